/** POST /v2/search with chat: true, end to end: the real search route, engine and sidecar on 127.0.0.1. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { copyFixture, createTestEngine, indexFolder, type TestEngine } from '../helpers/engine';
import { createHttpApp } from '../../server/host';
import { readAll } from './stream-client';

let t: TestEngine;
let app: FastifyInstance;
let base: string;
before(async () => {
  t = createTestEngine();
  await indexFolder(t, copyFixture('ts-paths'));
  await t.engine.queue.idle();
  app = await createHttpApp(t.engine);
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
after(async () => { await app.close(); await t.close(); });

test('chat: true streams search, chunks, done; the search line carries the JSON mode\'s hits', async () => {
  const body = { query: 'compute the area of a shape', scope: 'code' };
  const json = await app.inject({ method: 'POST', url: '/v2/search', headers: { 'x-api-key': t.key }, payload: body });
  assert.equal(json.statusCode, 200, json.body);
  const { status, headers, lines } = await readAll(`${base}/v2/search`, t.key, { ...body, chat: true });
  assert.equal(status, 200);
  assert.match(String(headers['content-type']), /application\/x-ndjson/);
  const [search, ...rest] = lines.map((l) => l.event);
  assert.equal(search.type, 'search');
  assert.deepEqual(search.results, json.json().data.results);
  assert.equal(search.total, json.json().data.total);
  assert.equal(search.meta.search.mode, 'semantic');
  assert.ok(rest.slice(0, -1).every((e) => e.type === 'chunk'));
  const done = rest.at(-1);
  assert.equal(done.type, 'done');
  assert.equal(done.model, 'loupe-grounded');
  assert.ok(done.context_files.some((f: { file_path: string }) => f.file_path === 'src/app/area.ts'), JSON.stringify(done.context_files));
  const answer = rest.filter((e) => e.type === 'chunk').map((e) => e.text).join('');
  assert.match(answer, /src\/app\/area\.ts:5/);
  assert.equal(t.engine.history.get(t.ownerId, done.history_id).category, 'research');
});

test('chat: true refusals are JSON: unknown model 400 names it; JSON-only Accept 406', async () => {
  const unknown = await readAll(`${base}/v2/search`, t.key, { query: 'area of a shape', chat: true, model: 'nope-1' });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.json.code, 'UNKNOWN_MODEL');
  assert.match(unknown.json.message, /"nope-1"/);
  const notAcceptable = await readAll(`${base}/v2/search`, t.key, { query: 'area of a shape', chat: true }, { accept: 'application/json' });
  assert.equal(notAcceptable.status, 406);
  const unknownRepo = await readAll(`${base}/v2/search`, t.key, { query: 'area of a shape', chat: true, repo_ids: ['00000000-0000-4000-8000-000000000000'] });
  assert.equal(unknownRepo.status, 400);
  assert.equal(unknownRepo.json.code, 'UNKNOWN_REPOSITORIES');
  assert.ok(t.engine.accounts.credits.available(t.ownerId) === t.engine.accounts.credits.balance(t.ownerId).remaining, 'reservation released');
});

test('/openapi.json documents the research stream as application/x-ndjson with a oneOf of the events', async () => {
  const spec = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const ok = spec.paths['/v2/search'].post.responses['200'];
  const ndjson = ok.content['application/x-ndjson'].schema;
  const types = ndjson.oneOf.map((s: { properties: { type: { const?: string; enum?: string[] } } }) => s.properties.type.const ?? s.properties.type.enum?.[0]);
  assert.deepEqual(types, ['search', 'chunk', 'done', 'error']);
  assert.ok(ok.content['application/json']);
});

test('a follow-up keeps the previous answer\'s files in its grounding', async () => {
  const first = await readAll(`${base}/v2/search`, t.key, { query: 'compute the area of a shape', chat: true });
  const done = first.lines.at(-1)!.event;
  const followUp = await readAll(`${base}/v2/search`, t.key, { query: 'who writes the output file', scope: 'code', limit: 1, chat: true, conversation_id: done.conversation_id });
  const next = followUp.lines.at(-1)!.event;
  assert.equal(next.type, 'done');
  assert.equal(next.conversation_id, done.conversation_id);
  const paths = next.context_files.map((f: { file_path: string }) => f.file_path);
  assert.deepEqual(followUp.lines[0].event.results.map((r: { file_path: string }) => r.file_path), ['src/app/main.ts'], 'the search alone finds one file');
  assert.ok(paths.includes('src/app/main.ts'), `this search's own hit: ${paths}`);
  assert.ok(paths.includes('src/app/area.ts'), `carried from the first answer: ${paths}`);
});
