/**
 * Model-assisted retrieval for plain search (POST /v2/search without chat). The model is a remote service
 * (an OpenAI-compatible chat server); a real HTTP server on 127.0.0.1 with fixed answers stands in for it
 * (bench/fixed-expansions-server.ts), and the search goes through the real HTTP route. Off by default; on, the
 * identifiers the model names join the search and its file order is asked; its usage is charged with the
 * search; a model that is down costs nothing and the plain ranking comes back with a note in `meta.retrieval`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestApp, indexFolder, tempDir, type TestApp } from '../helpers/engine';
import { startFixedModel } from '../../bench/fixed-expansions-server';
import { engineConfigFromSettings } from '../../server/settings';
import { DEFAULT_SETTINGS } from '../../protocol/settings';

const QUERY = 'how are request handlers looked up';

/** The words of the query are all in options.ts; the function that answers it, matchRoute, is in match.ts. */
function project(): string {
  const root = path.join(tempDir('loupe-search-assist-'), 'router');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.writeFileSync(path.join(root, 'package.json'), '{"name":"router","version":"1.0.0"}');
  fs.writeFileSync(path.join(root, 'src/options.ts'), [
    '/** Options of the request handler lookup: how request handlers are looked up. */',
    'export interface RequestHandlerLookupOptions { strict: boolean; lookupCache: boolean }',
    '',
    '/** Counts the request handlers looked up so far. */',
    'export function countRequestHandlersLookedUp(table: Map<string, unknown>): number {',
    '  return table.size;',
    '}',
    '',
  ].join('\n'));
  fs.writeFileSync(path.join(root, 'src/match.ts'), [
    '/** Finds what was registered for a method and a path. */',
    'export function matchRoute(table: Map<string, () => string>, method: string, path: string): (() => string) | undefined {',
    '  const secretBody = table.get(`${method} ${path}`);',
    '  return secretBody;',
    '}',
    '',
  ].join('\n'));
  return root;
}

const files = (body: { data: { results: { type: string; file_path: string; score: number }[] } }) =>
  body.data.results.filter((h) => h.type === 'file').map((h) => h.file_path);

async function search(app: TestApp, extra: Record<string, unknown> = {}) {
  const res = await app.call('POST', '/v2/search', { query: QUERY, scope: 'files', ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const row = app.engine.history.get(app.ownerId, res.body.meta.history_id);
  return { body: res.body, credits: row.credits };
}

test('off by default: a configured chat model is not asked, and the plain ranking is charged 5', async () => {
  const model = await startFixedModel({ [QUERY]: ['matchRoute'] });
  const app = await createTestApp({ research: { openai: { baseUrl: model.baseUrl, models: ['assist-1'] } } });
  try {
    await indexFolder(app, project());
    const { body, credits } = await search(app);
    assert.equal(model.requests.length, 0);
    assert.equal(body.meta.retrieval, undefined);
    assert.equal(files(body)[0], 'src/options.ts', 'without help the file with the words ranks first');
    assert.equal(credits, 5);
  } finally {
    await app.close();
    await model.close();
  }
});

test('on: the named identifier lifts its file, names and no code are sent, usage is charged, meta.retrieval says so', async () => {
  const model = await startFixedModel({ [QUERY]: ['matchRoute', 'notInTheRepository'] });
  const app = await createTestApp({
    research: { openai: { baseUrl: model.baseUrl, models: ['assist-1'], creditsPer1kTokens: 1000 }, retrieval: { model: 'assist-1' } },
  });
  try {
    await indexFolder(app, project());
    const { body, credits } = await search(app);
    assert.equal(files(body)[0], 'src/match.ts');
    const scores = body.data.results.map((h: { score: number }) => h.score);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a), 'scores still fall down the list');
    assert.deepEqual(body.meta.retrieval.identifiers, ['matchRoute'], 'names outside the repository are dropped');
    assert.equal(body.meta.retrieval.model, 'assist-1');
    assert.equal(body.meta.retrieval.reranked, true);
    assert.ok(credits > 5 && credits === 5 + body.meta.retrieval.credits, `charged ${credits}`);
    assert.equal(model.requests.length, 2, 'one expansion, one rerank');
    const sent = model.requests.flatMap((r) => r.messages.map((m) => m.content)).join('\n');
    assert.match(sent, /^matchRoute$/m);
    assert.match(sent, /^\d+\. match src\/match\.ts:\d+/m, 'the rerank names the files');
    assert.doesNotMatch(sent, /secretBody|table\.get/, 'no code is sent');

    // Grep is exact: the model is not asked.
    const before = model.requests.length;
    const grep = await app.call('POST', '/v2/search', { query: 'matchRoute', scan_mode: 'grep_code' });
    assert.equal(grep.status, 200);
    assert.equal(model.requests.length, before);
    assert.equal(grep.body.meta.retrieval, undefined);
  } finally {
    await app.close();
    await model.close();
  }
});

test('a model that is down costs nothing: the plain ranking comes back with a note', async () => {
  const model = await startFixedModel({});
  const baseUrl = model.baseUrl;
  await model.close();
  const app = await createTestApp({ research: { openai: { baseUrl, models: ['assist-1'], creditsPer1kTokens: 1000 }, retrieval: { model: 'assist-1', timeoutMs: 2000 } } });
  try {
    await indexFolder(app, project());
    const { body, credits } = await search(app);
    assert.equal(files(body)[0], 'src/options.ts');
    assert.equal(credits, 5);
    assert.equal(body.meta.retrieval.credits, 0);
    assert.match(body.meta.retrieval.note, /did not answer; the plain ranking is returned/);
  } finally {
    await app.close();
  }
});

test('the editor setting loupe.retrieval.model turns it on; empty, it is off', () => {
  const on = engineConfigFromSettings({ ...DEFAULT_SETTINGS, retrieval: { model: 'vscode:copilot-gpt-4o' } }, {});
  assert.deepEqual(on.research?.retrieval, { model: 'vscode:copilot-gpt-4o' });
  assert.equal(engineConfigFromSettings(DEFAULT_SETTINGS, {}).research?.retrieval ?? null, null);
});

test('a client that hangs up stops the retrieval model call', async () => {
  const { startLocalLlm } = await import('../research/local-llm-server');
  const llm = await startLocalLlm({ delayMs: 200 }); // one word every 200 ms: the answer takes seconds
  const app = await createTestApp({ research: { openai: { baseUrl: llm.baseUrl, models: ['echo-1'] }, retrieval: { model: 'echo-1', timeoutMs: 60_000 } } });
  const controller = new AbortController();
  try {
    await indexFolder(app, project());
    const url = await app.app.listen({ host: '127.0.0.1', port: 0 });
    const request = fetch(`${url}/v2/search`, {
      method: 'POST', signal: controller.signal,
      headers: { 'x-api-key': app.key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: QUERY, scope: 'files' }),
    }).catch(() => null);
    for (let i = 0; i < 200 && llm.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(llm.requests.length, 1, 'the model was asked');
    const disconnected = llm.nextDisconnect();
    controller.abort();
    const at = performance.now();
    await Promise.race([disconnected, new Promise((_, reject) => setTimeout(() => reject(new Error('the model call went on after the client left')), 3000))]);
    assert.ok(performance.now() - at < 1000, `the model call stopped ${Math.round(performance.now() - at)} ms after the client left`);
    await request;
  } finally {
    controller.abort();
    await app.close();
    await llm.close();
  }
});
