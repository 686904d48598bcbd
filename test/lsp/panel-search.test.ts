import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { copyFixture, tempDir } from '../helpers/engine';
import { startLspClient, type TestLspClient } from '../helpers/lsp-client';
import type { HistoryEntry, ResearchChunk, SearchParams, SearchResult } from '../../protocol/lsp';

// The panel's search and research go through the same operations as POST /v2/search: the same
// request shape and validation, the same hits, and the same charge and history row for the owner.
let folder: string;
let dataDir: string;
let lsp: TestLspClient;

before(async () => {
  assert.ok(fs.existsSync(path.join(__dirname, '..', '..', 'dist', 'server.js')), 'run `npm run build` first');
  folder = copyFixture('e2e-app');
  dataDir = tempDir('loupe-panel-data-');
  lsp = await startLspClient(folder, dataDir, randomUUID());
  await lsp.ready();
});

after(async () => lsp?.stop());

const search = (params: SearchParams) => lsp.connection.sendRequest('loupe/search', params) as Promise<SearchResult>;
const ledger = () => {
  const db = new Database(path.join(dataDir, 'accounts.db'), { readonly: true });
  try {
    // One row per operation and minute: `calls` says how many charges it holds.
    return db.prepare('SELECT operation, credits, calls FROM credit_ledger ORDER BY id').all() as { operation: string; credits: number; calls: number }[];
  } finally {
    db.close();
  }
};

test('a panel search is the API\'s search: its request shape, its hits with the editor\'s URI, charged and recorded for the owner', async () => {
  const result = await search({ query: 'formatPrice', scan_mode: 'grep_code', scope: 'code', filters: { file_types: ['ts'] } });
  assert.ok(result.total > 0);
  const hit = result.hits.find((h) => h.file_path === 'src/util/format.ts')!;
  assert.equal(hit.type, 'code');
  assert.equal(hit.uri, lsp.uri('src/util/format.ts'));
  assert.equal(hit.line, hit.snippet!.highlights[0].line, 'a click lands on the match');
  assert.ok(result.hits.every((h) => h.file_path?.endsWith('.ts')), 'the filter applied');

  assert.deepEqual(ledger().filter((r) => r.operation === 'search.run'), [{ operation: 'search.run', credits: 5, calls: 1 }]);
  const history = await lsp.connection.sendRequest('loupe/history', { limit: 10 }) as HistoryEntry[];
  assert.equal(history[0].query, 'formatPrice');
  assert.equal(history[0].kind, 'search');
});

test('a bad panel request is refused as the API refuses it, naming the field, and charges nothing', async () => {
  await assert.rejects(search({ query: 'formatPrice', scan_mode: 'regex' as never }), /scan_mode: must be one of "semantic", "grep_docs", "grep_code"/);
  await assert.rejects(search({ query: 'x' }), /query: must NOT have fewer than 2 characters/);
  assert.equal(ledger().filter((r) => r.operation === 'search.run').reduce((n, r) => n + r.calls, 0), 1);
});

test('panel research streams an answer, continues its conversation, and is charged as research', async () => {
  const chunks: ResearchChunk[] = [];
  lsp.connection.onNotification('loupe/researchChunk', (c: ResearchChunk) => { chunks.push(c); });
  const first = await lsp.connection.sendRequest('loupe/research', { streamId: 's1', question: 'where is the price formatted', scope: 'code' }) as { conversationId: string | null };
  assert.ok(first.conversationId);
  const done = chunks.find((c) => c.streamId === 's1' && c.type === 'done');
  assert.deepEqual(done, { streamId: 's1', type: 'done', conversationId: first.conversationId });
  assert.ok(chunks.some((c) => c.streamId === 's1' && c.type === 'citation'), 'the answer cites files');

  const second = await lsp.connection.sendRequest('loupe/research', { streamId: 's2', question: 'and who calls it', scope: 'code', conversationId: first.conversationId }) as { conversationId: string | null };
  assert.equal(second.conversationId, first.conversationId);
  // 5 for the search; the built-in model adds nothing.
  const research = ledger().filter((r) => r.operation === 'search.research');
  assert.deepEqual([research.reduce((n, r) => n + r.calls, 0), research.reduce((n, r) => n + r.credits, 0)], [2, 10]);
  const history = await lsp.connection.sendRequest('loupe/history', { limit: 10 }) as HistoryEntry[];
  const researchRows = history.filter((h) => h.kind === 'research');
  assert.equal(researchRows.length, 2);
  assert.ok(researchRows.every((h) => h.conversationId === first.conversationId));
});
