import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFixture, createTestApp, type TestApp } from '../helpers/engine';

let t: TestApp;
let repoId: string;
let folder: string;

before(async () => {
  t = await createTestApp({ search: { vectors: { minTrainChunks: 5 } } });
  folder = copyFixture('search-code');
  const indexed = await t.call('POST', '/v2/repos/index/new', { url: folder });
  repoId = indexed.body.data.repo.repo_id;
  await t.engine.queue.idle();
  await t.engine.vectors.idle();
});
after(async () => { await t.close(); });

test('POST /v2/search answers in the envelope, costs 5 credits and writes a search history row', async () => {
  const before = (await t.call('GET', '/v2/repos?limit=1')).body.meta.credits_used;
  const r = await t.call('POST', '/v2/search', { query: 'signed cookie', scope: 'code', limit: 3 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.status, 'success');
  const hit = r.body.data.results[0];
  assert.deepEqual(Object.keys(hit).slice(0, 5), ['type', 'repo_id', 'repo_name', 'file_path', 'score']);
  assert.equal(hit.repo_id, repoId);
  assert.equal(hit.file_path, 'src/net/cookies.ts');
  assert.ok(hit.start_line >= 1 && hit.end_line >= hit.start_line && hit.language === 'typescript');
  assert.ok(Array.isArray(hit.snippet.highlights) && hit.snippet.highlights.length > 0);
  assert.equal(r.body.data.search.mode, 'semantic');
  assert.ok(r.body.data.results.length <= 3 && r.body.data.total >= r.body.data.results.length);
  assert.equal(typeof r.body.data.search.timings.totalMs, 'number');
  assert.equal(r.body.meta.credits_used, before + 5);
  const history = await t.call('GET', `/v2/history/${r.body.meta.history_id}`);
  assert.equal(history.status, 200);
  assert.equal(history.body.data.category, 'search');
});

test('grep modes, repo_urls, filters and fields go through the wire', async () => {
  const grep = await t.call('POST', '/v2/search', { query: '/parse\\w+Cookie/', scan_mode: 'grep_code', scope: 'functions', repo_urls: [folder] });
  assert.equal(grep.status, 200, JSON.stringify(grep.body));
  assert.deepEqual(grep.body.data.results.map((h: { name: string }) => h.name), ['parseSignedCookie']);
  const docs = await t.call('POST', '/v2/search', { query: 'HMAC', scan_mode: 'grep_docs', scope: 'files', fields: 'summary' });
  assert.equal(docs.status, 200);
  assert.equal(docs.body.data.results[0].file_path, 'src/net/cookies.ts');
  assert.equal(docs.body.data.results[0].doc.depth, 'summary');
  const filtered = await t.call('POST', '/v2/search', { query: 'return', scan_mode: 'grep_code', scope: 'files', filters: { file_paths: ['src/geometry/**'], max_lines: 100 } });
  assert.deepEqual(filtered.body.data.results.map((h: { file_path: string }) => h.file_path), ['src/geometry/circle.ts']);
});

test('bad input is a 400 that names the field and the rule; nothing is charged', async () => {
  const credits = (await t.call('GET', '/v2/repos?limit=1')).body.meta.credits_used;
  const cases: [unknown, RegExp][] = [
    [{}, /query: is required/],
    [{ query: 'x' }, /query/],
    [{ query: 'x'.repeat(1001) }, /query/],
    [{ query: 'ok', scope: 'everything' }, /scope: must be one of/],
    [{ query: 'ok', scan_mode: 'regex' }, /scan_mode: must be one of/],
    [{ query: 'ok', similarity_threshold: 1.5 }, /similarity_threshold/],
    [{ query: 'ok', fields: 'deep' }, /fields: must be one of/],
    [{ query: 'ok', filters: { colour: 'red' } }, /filters.colour: is not a known field/],
    [{ query: 'ok', filters: { min_lines: -1 } }, /filters.min_lines/],
    [{ query: 'ok', filters: { min_lines: 50, max_lines: 10 } }, /filters.min_lines: must not be greater than filters.max_lines/],
    [{ query: 'ok', repo_ids: ['not-a-uuid'] }, /repo_ids.0/],
    [{ query: 'ok', repo_ids: Array.from({ length: 26 }, () => crypto.randomUUID()) }, /repo_ids/],
    [{ query: 'ok', repo_ids: Array.from({ length: 13 }, () => crypto.randomUUID()), repo_urls: Array.from({ length: 13 }, (_, i) => `https://github.com/a/b${i}`) }, /at most 25/],
    [{ query: '/a(?=b)/', scan_mode: 'grep_code' }, /query: invalid regular expression: look-around/],
    [{ query: '/abc/x', scan_mode: 'grep_code' }, /query: unknown regular expression flag x/],
    [{ query: 'ok', chat: 'yes' }, /chat: must be boolean/],
    [{ query: 'ok', limit: 0 }, /limit/],
  ];
  for (const [body, message] of cases) {
    const r = await t.call('POST', '/v2/search', body);
    assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 80)} → ${r.status} ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, 'VALIDATION_FAILED');
    assert.match(r.body.message, message);
  }
  const unknown = await t.call('POST', '/v2/search', { query: 'ok', repo_ids: [repoId, '5b6c0d3e-1111-4222-8333-444455556666'], repo_urls: ['https://github.com/nobody/nowhere'] });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.code, 'UNKNOWN_REPOSITORIES');
  assert.match(unknown.body.message, /5b6c0d3e-1111-4222-8333-444455556666/);
  assert.match(unknown.body.message, /nobody\/nowhere/);
  assert.ok(!unknown.body.message.includes(repoId), 'known repositories are not named');
  assert.equal((await t.call('GET', '/v2/repos?limit=1')).body.meta.credits_used, credits + 1);
});

test('no key is a 401; chat: true without Accept: application/x-ndjson is a 406 before anything streams', async () => {
  const anonymous = await t.app.inject({ method: 'POST', url: '/v2/search', payload: { query: 'cookie' } });
  assert.equal(anonymous.statusCode, 401);
  const research = await t.call('POST', '/v2/search', { query: 'how are cookies signed', chat: true }, { accept: 'application/json' });
  assert.equal(research.status, 406);
  assert.equal(research.body.code, 'NOT_ACCEPTABLE');
});

test('the OpenAPI document describes the search route from its schemas', async () => {
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const op = doc.paths['/v2/search'].post;
  assert.equal(op.operationId, 'search');
  const body = op.requestBody.content['application/json'].schema;
  for (const field of ['query', 'scope', 'scan_mode', 'repo_ids', 'repo_urls', 'filters', 'similarity_threshold', 'fields', 'chat', 'model', 'conversation_id']) {
    assert.ok(JSON.stringify(body).includes(`"${field}"`) || JSON.stringify(doc.components).includes(`"${field}"`), field);
  }
  assert.ok(op.responses['200'].content['application/x-ndjson'], 'the research stream is declared');
});

test('chat: true streams the research answer: the search line first, then chunks, then done', async () => {
  const res = await t.app.inject({
    method: 'POST', url: '/v2/search',
    headers: { 'x-api-key': t.key, accept: 'application/x-ndjson', 'content-type': 'application/json' },
    payload: { query: 'how is a signed cookie checked', scope: 'code', limit: 3, chat: true },
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /application\/x-ndjson/);
  const lines = res.body.trim().split('\n').map((l) => JSON.parse(l) as { type: string; results?: { file_path: string }[] });
  assert.equal(lines[0].type, 'search');
  assert.equal(lines[0].results![0].file_path, 'src/net/cookies.ts');
  assert.ok(lines.slice(1, -1).every((l) => l.type === 'chunk') && lines.length > 2);
  assert.equal(lines[lines.length - 1].type, 'done');
});
