import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestApp, indexFolder, type TestApp } from '../helpers/engine';
import { copyOf, debianPackage } from '../helpers/real-code';
import { ripgrepLines } from './ripgrep';

/**
 * grep_code returns every matching line by default, up to 1,000 per page, with `pagination` to page through
 * the rest; `total` is exact. Checked over HTTP against Debian's rg on gin 1.8.1 (Debian's package).
 */
let t: TestApp;
let folder: string;
let repoId: string;

before(async () => {
  t = await createTestApp();
  folder = copyOf(path.join(debianPackage('golang-github-gin-gonic-gin-dev', '1.8.1-1'), 'usr/share/gocode/src/github.com/gin-gonic/gin'));
  repoId = (await indexFolder(t, folder)).id;
});
after(async () => { await t?.close(); });

const grep = async (body: Record<string, unknown>) => {
  const r = await t.call('POST', '/v2/search', { scan_mode: 'grep_code', scope: 'code', repo_ids: [repoId], ...body });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { lines: (r.body.data.results as { file_path: string; start_line: number; snippet: { text: string } }[])
    .map((h) => `${h.file_path}:${h.start_line}:${h.snippet.text}`), total: r.body.data.total as number, pagination: r.body.pagination };
};

test('without a limit, grep_code returns every line rg returns (fewer than a page)', async () => {
  const rg = ripgrepLines(folder, ['-F', '--', 'func (c *Context)']);
  assert.ok(rg.length > 100, `rg finds ${rg.length} lines`);
  const r = await grep({ query: 'func (c *Context)' });
  assert.deepEqual(r.lines, rg);
  assert.equal(r.total, rg.length);
  assert.deepEqual(r.pagination, { total: rg.length, limit: 1000, offset: 0, has_more: false });
});

test('past 1,000 lines: a first page of 1,000, then the rest with offset; total exact; together rg\'s lines in its order', async () => {
  const rg = ripgrepLines(folder, ['-F', '--', 'assert.']);
  assert.ok(rg.length > 1000 && rg.length < 2000, `rg finds ${rg.length} lines`);
  const first = await grep({ query: 'assert.' });
  assert.equal(first.lines.length, 1000);
  assert.equal(first.total, rg.length);
  assert.deepEqual(first.pagination, { total: rg.length, limit: 1000, offset: 0, has_more: true });
  const second = await grep({ query: 'assert.', offset: 1000 });
  assert.equal(second.total, rg.length);
  assert.deepEqual(second.pagination, { total: rg.length, limit: 1000, offset: 1000, has_more: false });
  assert.deepEqual([...first.lines, ...second.lines], rg);
  // A smaller page when asked for one.
  const small = await grep({ query: 'assert.', limit: 20, offset: 40 });
  assert.deepEqual(small.lines, rg.slice(40, 60));
  assert.deepEqual(small.pagination, { total: rg.length, limit: 20, offset: 40, has_more: true });
});

test('files scope pages the files; semantic search keeps 20 hits per kind by default; a page over 1,000 is refused', async () => {
  const files = await t.call('POST', '/v2/search', { query: 'assert.', scan_mode: 'grep_code', scope: 'files', repo_ids: [repoId] });
  const rgFiles = new Set(ripgrepLines(folder, ['-F', '--', 'assert.']).map((l) => l.slice(0, l.indexOf(':'))));
  assert.equal(files.body.data.results.length, rgFiles.size);
  assert.equal(files.body.pagination.total, rgFiles.size);
  const semantic = await t.call('POST', '/v2/search', { query: 'route tree', scope: 'code', repo_ids: [repoId] });
  assert.equal(semantic.body.data.results.length, 20);
  assert.equal(semantic.body.pagination.limit, 20);
  assert.equal(semantic.body.pagination.has_more, true);
  const tooMany = await t.call('POST', '/v2/search', { query: 'assert.', scan_mode: 'grep_code', limit: 1001 });
  assert.equal(tooMany.status, 400);
  assert.match(tooMany.body.message, /limit/);
});
