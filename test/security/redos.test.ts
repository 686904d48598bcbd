import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestApp, tempDir } from '../helpers/engine';

/**
 * Catastrophic patterns from callers, through the real route: a grep_code regex that backtracks
 * without end is stopped by its time budget (400, the server answering others meanwhile), and a
 * path-glob filter of the same kind finishes at once.
 */
test('grep_code with (a+)+$ and friends on long lines cannot hang the server', { timeout: 120_000 }, async () => {
  const folder = path.join(tempDir('loupe-redos-'), 'redos');
  fs.mkdirSync(path.join(folder, 'src'), { recursive: true });
  fs.writeFileSync(path.join(folder, 'src', 'long.txt'), `${'a'.repeat(30_000)}!\n${'ab'.repeat(10_000)}c\n`);
  fs.writeFileSync(path.join(folder, 'src', 'main.ts'), 'export const answer = 42;\n');
  const t = await createTestApp();
  try {
    const indexed = await t.call('POST', '/v2/repos/index/new', { url: folder });
    assert.equal(indexed.status, 200, JSON.stringify(indexed.body));
    await t.engine.queue.idle();
    const repoId = indexed.body.data.repo.repo_id;

    for (const query of ['/(a+)+$/', '/(a|aa)+$/', '/(.*a){25}x/', '/((ab)*)*c$/', '/(\\w+\\s?)+$/']) {
      const started = Date.now();
      const search = t.call('POST', '/v2/search', { query, scan_mode: 'grep_code', repo_ids: [repoId] });
      // While the regex runs, the server keeps answering.
      const meanwhile = Date.now();
      const other = await t.call('GET', '/v2/repos');
      assert.equal(other.status, 200);
      assert.ok(Date.now() - meanwhile < 2000, `another request waited ${Date.now() - meanwhile} ms behind ${query}`);
      const res = await search;
      const ms = Date.now() - started;
      assert.ok(ms < 15_000, `${query} took ${ms} ms`);
      assert.ok(res.status === 200 || res.status === 400, `${query}: ${res.status} ${JSON.stringify(res.body)}`);
      if (res.status === 400) {
        assert.equal(res.body.code, 'VALIDATION_FAILED');
        assert.match(res.body.message, /did not finish within \d+ ms/);
      }
    }
    // The pool recovered from the terminated workers: an ordinary regex works and is fast.
    const fine = await t.call('POST', '/v2/search', { query: '/answer = \\d+/', scan_mode: 'grep_code', repo_ids: [repoId] });
    assert.equal(fine.status, 200, JSON.stringify(fine.body));
    assert.ok(JSON.stringify(fine.body.data).includes('answer = 42'));

    // A path glob of the kind that hangs RegExp-based glob matchers.
    const started = Date.now();
    const globbed = await t.call('POST', '/v2/search', {
      query: 'answer', repo_ids: [repoId], filters: { file_paths: ['**/*a*a*a*a*a*a*a*a*a*a*a*a*b', '{*,*}{*,*}{*,*}{*,*}{*,*}{*,*}{*,*}x'] },
    });
    assert.ok(globbed.status === 200 || globbed.status === 400, JSON.stringify(globbed.body));
    assert.ok(Date.now() - started < 5000, `glob filter took ${Date.now() - started} ms`);
    const extglob = await t.call('POST', '/v2/search', { query: 'answer', repo_ids: [repoId], filters: { file_paths: ['**/+(*)+(*)+(*)x'] } });
    assert.equal(extglob.status, 400);
    assert.match(extglob.body.message, /filters\.file_paths\[0\]/);
  } finally {
    await t.close();
  }
});
