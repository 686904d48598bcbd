/**
 * Research and code operations with the engine's account side on PostgreSQL: two engines, each an
 * HTTP server on 127.0.0.1 with its own data dir (each indexes the same fixture into its SQLite),
 * sharing one real PostgreSQL 15 cluster for users, keys, ledger and history. Research settles at
 * the end of the model's answer and a code operation after its model ran; both must charge exactly,
 * write their history rows, and a conversation started on one node continues on the other.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { EngineCore } from '../../server/engine/core';
import { createHttpApp } from '../../server/host';
import { silentLogger } from '../../server/engine/log';
import { newId } from '../../server/engine/util/ids';
import { openPgStorage, type PgStorage } from '../../server/engine/store/pg/storage';
import { startPostgres, type PgCluster } from '../helpers/postgres';
import { FIXTURES, copyFixture, tempDir } from '../helpers/engine';
import { startLocalLlm, type LocalLlm } from './local-llm-server';
import { readAll } from './stream-client';

let cluster: PgCluster;
let llm: LocalLlm;
before(async () => { cluster = await startPostgres(); llm = await startLocalLlm(); });
after(async () => { await llm?.close(); await cluster?.stop(); });

interface Node { engine: EngineCore; app: FastifyInstance; base: string }

async function call(node: Node, method: string, url: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${node.base}${url}`, {
    method, headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  try { return { status: res.status, body: JSON.parse(text) }; } catch { return { status: res.status, body: text }; }
}

/** Two nodes over one fresh database, each with the fixture indexed for the user; everything stopped after `run`. */
async function twoNodes(run: (a: Node, b: Node, db: PgStorage, user: { userId: string; key: string }) => Promise<void>): Promise<void> {
  const url = await cluster.createDatabase();
  const nodes: Node[] = [];
  const db = await openPgStorage(url, silentLogger, { max: 2 });
  try {
    const userId = newId();
    await db.accounts.insertUser({ id: userId, email: `${userId}@example.test`, display_name: null, plan: 'FREE', is_owner: 0 });
    await db.accounts.setCreditLimit(userId, 40);
    const key = newId();
    const folder = copyFixture('ts-paths');
    for (let i = 0; i < 2; i++) {
      const engine = new EngineCore({
        dataDir: tempDir(`loupe-research-node${i}-`), log: silentLogger, allowedRoots: [os.tmpdir(), FIXTURES], githubApiUrl: 'http://127.0.0.1:9',
        accountStorage: await openPgStorage(url, silentLogger, { max: 5 }),
        // The fixture is a local folder: the owner shares it with everyone.
        accounts: { sharedFolders: [{ path: folder, users: ['*'] }] },
        research: { openai: { baseUrl: llm.baseUrl, models: ['echo-1'], contextWindow: 16384, maxOutput: 2048, creditsPer1kTokens: 1 } },
      });
      const app = await createHttpApp(engine);
      await app.listen({ port: 0, host: '127.0.0.1' });
      nodes.push({ engine, app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` });
      if (i === 0) await engine.accounts.addKeyAsync(userId, key, 'active');
      engine.repos.registerLocalFolder(userId, folder);
      await engine.queue.idle();
    }
    await run(nodes[0], nodes[1], db, { userId, key });
  } finally {
    for (const node of nodes) {
      await node.app.close();
      await node.engine.close();
    }
    await db.close();
  }
}

test('research streams and settles on PostgreSQL: charged exactly, history rows written, the conversation continues on the other node', () => twoNodes(async (a, b, db, u) => {
  const first = await readAll(`${a.base}/v2/search`, u.key, { query: 'compute the area of a shape', scope: 'code', chat: true });
  assert.equal(first.status, 200, JSON.stringify(first.json));
  const done = first.lines.at(-1)!.event;
  assert.equal(done.type, 'done', JSON.stringify(done));
  assert.equal(done.model, 'loupe-grounded');
  assert.equal(done.credits_used, 5, 'the search\'s 5 credits; the built-in model costs nothing');
  assert.ok(done.history_id && done.conversation_id, 'a history row in a new conversation');
  const answer = first.lines.filter((l) => l.event.type === 'chunk').map((l) => l.event.text).join('');
  assert.match(answer, /src\/app\/area\.ts:5/);
  assert.equal(await db.accounts.creditsUsed(u.userId), 5);

  // The follow-up on the other node: the thread is read from PostgreSQL, and joined.
  const second = await readAll(`${b.base}/v2/search`, u.key, { query: 'and where is it called?', scope: 'code', chat: true, conversation_id: done.conversation_id });
  assert.equal(second.status, 200, JSON.stringify(second.json));
  const done2 = second.lines.at(-1)!.event;
  assert.equal(done2.type, 'done', JSON.stringify(done2));
  assert.equal(done2.conversation_id, done.conversation_id, 'the same conversation');
  assert.equal(done2.credits_used, 5);
  assert.equal(await db.accounts.creditsUsed(u.userId), 10);

  for (const node of [a, b]) {
    const thread = await call(node, 'GET', `/v2/history/conversation/${done.conversation_id}`, u.key);
    assert.equal(thread.status, 200, JSON.stringify(thread.body));
    assert.deepEqual(thread.body.data.items.map((h: { history_id: string; category: string; credits: number }) => [h.history_id, h.category, h.credits]),
      [[done.history_id, 'research', 5], [done2.history_id, 'research', 5]], 'both turns, in order, on both nodes');
  }
  const history = await db.history.list({ userId: u.userId, limit: 10, offset: 0 });
  assert.equal(history.total, 2);
  const ledger = await db.accounts.chargesByOperation(u.userId, '1970-01-01T00:00:00.000Z');
  assert.equal(ledger.reduce((n, row) => n + row.credits, 0), 10, 'the ledger sums to the totals');
  // Nothing left reserved on either node: the whole balance can be set aside.
  for (const node of [a, b]) {
    const r = await node.engine.accounts.credits.reserveAsync(u.userId, 30, 'x');
    node.engine.accounts.credits.release(r);
  }
}));

test('code operations and /v1 explain settle on PostgreSQL: 2 + usage charged once, a history row each, over both nodes', () => twoNodes(async (a, b, db, u) => {
  const optimized = await call(a, 'POST', '/v1/fundi/optimize', u.key, { code: 'for (let i = 0; i < a.length; i++) total += a[i];', language: 'js' });
  assert.equal(optimized.status, 200, JSON.stringify(optimized.body));
  assert.equal(optimized.body.data.model, 'echo-1');
  assert.equal(optimized.body.data.credits_used, 3, '2 + 1 per started 1,000 tokens');
  assert.equal(optimized.body.meta.credits_remaining, 37);
  const explained = await call(b, 'POST', '/v1/fundi/explain', u.key, { code: 'const x = 1;', language: 'js' });
  assert.equal(explained.status, 200, JSON.stringify(explained.body));
  assert.equal(explained.body.data.credits_used, 3);
  // An indexed file explained through research (5 credits, the built-in model) on the first node.
  const file = await call(a, 'POST', '/v1/fundi/explain', u.key, { file_path: 'src/app/area.ts', model: 'loupe-grounded' });
  assert.equal(file.status, 200, JSON.stringify(file.body));
  assert.equal(file.body.data.source, 'index');
  assert.equal(file.body.data.credits_used, 5);

  assert.equal(await db.accounts.creditsUsed(u.userId), 11);
  const history = await db.history.list({ userId: u.userId, limit: 10, offset: 0 });
  assert.deepEqual(history.items.map((h) => [h.category, h.credits]).sort(), [['code', 3], ['code', 3], ['research', 5]]);
  assert.deepEqual(new Set(history.items.map((h) => h.id)), new Set([optimized.body.data.history_id, explained.body.data.history_id, file.body.data.history_id]));
  const ledger = await db.accounts.chargesByOperation(u.userId, '1970-01-01T00:00:00.000Z');
  assert.equal(ledger.reduce((n, row) => n + row.credits, 0), 11, 'charged once each: not again by the operation around them');
}));
