import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFixture, createTestEngine, indexFolder, type TestEngine } from '../helpers/engine';
import type { SearchRequest } from '../../server/engine/search/types';
import { LoupeError } from '../../server/engine/errors';

let t: TestEngine;
const run = (req: SearchRequest) => t.engine.search.search(t.ownerId, req);
const paths = (hits: { filePath: string | null }[]) => [...new Set(hits.map((h) => h.filePath))];

before(async () => {
  // A low training threshold so the fixture gets a real corpus model (not the hashed fallback).
  t = createTestEngine({ search: { vectors: { minTrainChunks: 5 }, grepBudgetMs: 1500 } });
  await indexFolder(t, copyFixture('search-code'));
  await t.engine.vectors.idle();
});
after(async () => { await t.close(); });

test('semantic search finds identifiers by their sub-words, with snippets and highlights', async () => {
  const r = await run({ query: 'signed cookie', scope: 'code' });
  assert.equal(r.mode, 'semantic');
  assert.equal(r.retriever, 'hybrid');
  assert.match(r.embedding!.model, /^corpus-lsa-/);
  const top = r.results[0];
  assert.equal(top.type, 'code');
  assert.equal(top.filePath, 'src/net/cookies.ts');
  assert.equal(top.language, 'typescript');
  assert.ok(top.startLine! <= 16 && top.endLine! >= 16, 'the chunk defining parseSignedCookie');
  const line16 = top.snippet!.text.split('\n')[16 - top.snippet!.startLine];
  assert.match(line16, /parseSignedCookie/);
  const h = top.snippet!.highlights.find((x) => x.line === 16)!;
  assert.ok(h, 'line 16 is highlighted');
  assert.match(line16.slice(h.start, h.end), /signed|cookie/i);
  assert.ok(r.timings.totalMs >= 0 && 'lexicalMs' in r.timings && 'vectorMs' in r.timings);
});

test('each retriever runs alone, and the similarity threshold bounds the vector side', async () => {
  const lexical = await run({ query: 'exponential backoff', scope: 'code', retriever: 'lexical' });
  assert.equal(lexical.results[0].filePath, 'src/net/retry.ts');
  // Words seen in one chunk only are not in the corpus model (they carry no co-occurrence); these are.
  const vector = await run({ query: 'retry the request', scope: 'code', retriever: 'vector' });
  assert.ok(paths(vector.results.slice(0, 2)).includes('src/net/retry.ts'), JSON.stringify(paths(vector.results)));
  assert.ok(vector.results.every((h, i) => i === 0 || h.score <= vector.results[i - 1].score));
  const strict = await run({ query: 'retry the request', scope: 'code', retriever: 'vector', similarityThreshold: 0.9 });
  assert.ok(strict.results.length < vector.results.length);
  const unknownWords = await run({ query: 'zebra giraffe', scope: 'code', retriever: 'vector' });
  assert.equal(unknownWords.results.length, 0, 'a query of words the model never saw has no vector');
});

test('scopes: repositories, files, functions, code, and all grouped in that order', async () => {
  const repos = await run({ query: 'circle area', scope: 'repos' });
  assert.deepEqual(repos.results.map((h) => [h.type, h.repoName]), [['repo', 'search-code']]);
  const files = await run({ query: 'circle area', scope: 'files' });
  assert.equal(files.results[0].filePath, 'src/geometry/circle.ts');
  assert.ok(files.results.every((h) => h.type === 'file'));
  const fns = await run({ query: 'is the point inside the circle', scope: 'functions' });
  assert.equal(fns.results[0].name, 'Circle.contains');
  assert.equal(fns.results[0].kind, 'method');
  assert.deepEqual([fns.results[0].startLine, fns.results[0].endLine], [14, 18]);
  const all = await run({ query: 'circle area', scope: 'all', limit: 3 });
  const order = all.results.map((h) => h.type).filter((x, i, a) => a.indexOf(x) === i);
  assert.deepEqual(order, ['repo', 'file', 'function', 'code']);
  assert.equal(all.total, Object.values(all.totals).reduce((s, n) => s + (n ?? 0), 0));
});

test('filters: file types, path globs, dependencies, function names, has_functions, line counts, visibility', async () => {
  const q = (filters: SearchRequest['filters'], scope: SearchRequest['scope'] = 'code', query = 'cookie value return') =>
    run({ query, scope, filters, limit: 50 }).then((r) => r.results);
  const js = paths(await q({ fileTypes: ['js'] }, 'files', 'counter increment return'));
  assert.equal(js[0], 'src/legacy/old.js');
  assert.ok(js.every((p) => p!.endsWith('.js')));
  assert.ok((await q({ fileTypes: ['typescript'] }, 'files')).every((h) => h.filePath!.endsWith('.ts')));
  const net = paths(await q({ filePaths: ['src/net/**'] }, 'files', 'cookie retry'));
  assert.deepEqual(net.sort(), ['src/net/cookies.ts', 'src/net/retry.ts']);
  assert.deepEqual(paths(await q({ filePaths: ['src/geometry'] }, 'files', 'circle radius')), ['src/geometry/circle.ts']);
  assert.deepEqual(paths(await q({ dependencies: ['lodash'] }, 'files', 'retry request')), ['src/net/retry.ts']);
  assert.deepEqual(paths(await q({ functionNames: ['CONTAINS'] }, 'files', 'circle point')), ['src/geometry/circle.ts']);
  const noFunctions = paths(await q({ hasFunctions: false }, 'files', 'cookies signed'));
  assert.ok(noFunctions.includes('docs/guide.md') && !noFunctions.includes('src/net/cookies.ts'));
  assert.deepEqual(paths(await q({ minLines: 30 }, 'files', 'cookie')), ['src/net/cookies.ts']);
  assert.ok(!paths(await q({ maxLines: 10 }, 'files', 'cookie')).includes('src/net/cookies.ts'));
  const privateFns = await q({ visibility: 'private' }, 'functions', 'expiry date days');
  assert.ok(privateFns.length > 0 && privateFns.every((h) => h.exported === false));
  assert.equal(privateFns[0].name, 'expiryDate');
  const publicFns = await q({ visibility: 'public' }, 'functions', 'expiry date days cookie');
  assert.ok(publicFns.every((h) => h.exported === true));
  await assert.rejects(q({ minLines: 10, maxLines: 5 }), /filters.min_lines: must not be greater than filters.max_lines/);
  await assert.rejects(q({ filePaths: [''] }), /filters.file_paths\[0\]/);
});

test('grep_code scopes: lines, files by match count, enclosing functions, repositories', async () => {
  const code = await run({ query: 'secret', scanMode: 'grep_code', scope: 'code', limit: 100 });
  assert.ok(code.results.every((h) => h.type === 'code' && h.startLine === h.endLine && h.snippet!.text.includes('secret')));
  assert.equal(code.candidates!.files, 1, 'the trigram index narrowed the scan to one file');
  const files = await run({ query: 'secret', scanMode: 'grep_code', scope: 'files' });
  assert.deepEqual(files.results.map((h) => [h.filePath, h.matches]), [['src/net/cookies.ts', code.total]]);
  const fns = await run({ query: 'secret', scanMode: 'grep_code', scope: 'functions' });
  assert.deepEqual(fns.results.map((h) => h.name).sort(), ['parseSignedCookie', 'signCookie']);
  const repos = await run({ query: 'secret', scanMode: 'grep_code', scope: 'repos' });
  assert.deepEqual(repos.results.map((h) => [h.type, h.matches]), [['repo', code.total]]);
  const filtered = await run({ query: 'return', scanMode: 'grep_code', scope: 'code', filters: { fileTypes: ['js'] }, limit: 100 });
  assert.deepEqual(paths(filtered.results), ['src/legacy/old.js']);
});

test('grep_docs searches file documentation, not code', async () => {
  const r = await run({ query: 'forge', scanMode: 'grep_docs', scope: 'files' });
  assert.deepEqual(paths(r.results), ['src/net/cookies.ts']);
  const none = await run({ query: 'decodeURIComponent', scanMode: 'grep_docs', scope: 'files' });
  assert.equal(none.total, 0, 'code that is not in the docs is not found');
});

test('fields adds each hit\'s documentation at the asked depth', async () => {
  const r = await run({ query: 'signed cookie', scope: 'files', fields: 'basic', limit: 1 });
  const doc = r.results[0].doc!;
  assert.equal(doc.depth, 'basic');
  assert.equal(doc.processing, doc.markdown === null);
  await t.engine.docs.idle();
  const ready = await run({ query: 'signed cookie', scope: 'files', fields: 'full', limit: 1 });
  assert.match(ready.results[0].doc!.markdown!, /cookies\.ts/);
});

test('a catastrophic regular expression is stopped by its time budget and the server keeps answering', async () => {
  const started = Date.now();
  await assert.rejects(run({ query: '/(a+)+$/', scanMode: 'grep_code' }), (e: unknown) =>
    e instanceof LoupeError && e.code === 'VALIDATION_FAILED' && /did not finish within 1500 ms/.test(e.message));
  assert.ok(Date.now() - started < 5000, 'stopped near its budget');
  const after = await run({ query: 'parseSignedCookie', scanMode: 'grep_code', scope: 'code' });
  assert.ok(after.total >= 1);
});

test('repositories: unknown ids and URLs are named; more than 25 is refused', async () => {
  await assert.rejects(run({ query: 'cookie', repoIds: ['8d9f6c1e-0000-4000-8000-000000000000'], repoUrls: ['https://github.com/nobody/nothing'] }),
    (e: unknown) => e instanceof LoupeError && e.code === 'UNKNOWN_REPOSITORIES'
      && /8d9f6c1e-0000-4000-8000-000000000000/.test(e.message) && /nobody\/nothing/.test(e.message));
  await assert.rejects(run({ query: 'cookie', repoIds: Array.from({ length: 20 }, () => crypto.randomUUID()), repoUrls: Array.from({ length: 6 }, (_, i) => `https://github.com/a/b${i}`) }),
    /at most 25/);
});
