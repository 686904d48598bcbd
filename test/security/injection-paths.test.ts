import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestApp, tempDir } from '../helpers/engine';

const SECRET = 'zebracornSecretWord';

/** A repository with symlinks pointing inside and outside it, next to a folder it must never read. */
function repoWithSymlinks() {
  const base = tempDir('loupe-symlinks-');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.ts'), `export const ${SECRET} = 'outside the repository';\n`);
  const repo = path.join(base, 'repo');
  fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
  fs.writeFileSync(path.join(repo, 'src', 'real.ts'), 'export function realThing(): number { return 1; }\n');
  fs.writeFileSync(path.join(repo, 'src', 'later.ts'), 'export const laterThing = 2;\n');
  fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(repo, 'src', 'link-out.ts'));
  fs.symlinkSync(outside, path.join(repo, 'dir-out'));
  fs.symlinkSync(path.join(repo, 'src', 'real.ts'), path.join(repo, 'src', 'link-in.ts'));
  return { base, outside, repo };
}

test('symlinks never take indexing, search or grep outside the repository, even when a file turns into one later', async () => {
  const { outside, repo } = repoWithSymlinks();
  const t = await createTestApp();
  try {
    const indexed = await t.call('POST', '/v2/repos/index/new', { url: repo });
    assert.equal(indexed.status, 200, JSON.stringify(indexed.body));
    const repoId = indexed.body.data.repo.repo_id;
    await t.engine.queue.idle();
    const files = await t.call('GET', `/v2/files/${repoId}?limit=100`);
    const paths = files.body.data.map((f: { file_path: string }) => f.file_path).sort();
    assert.ok(!paths.some((p: string) => p.includes('link-out') || p.startsWith('dir-out')), `indexed: ${paths}`);
    assert.ok(paths.includes('src/real.ts'));

    const lookFor = async () => {
      const found: string[] = [];
      // The class-per-letter regex has no literal for the trigram index to narrow on: every file is read.
      const unindexable = `/${[...SECRET].map((c) => `[${c}]`).join('')}/`;
      for (const body of [{ query: SECRET, repo_ids: [repoId] }, { query: SECRET, scan_mode: 'grep_code', repo_ids: [repoId] },
        { query: unindexable, scan_mode: 'grep_code', repo_ids: [repoId] }]) {
        const res = await t.call('POST', '/v2/search', body);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        if (JSON.stringify(res.body.data).includes(SECRET)) found.push(String(body.scan_mode ?? 'semantic'));
      }
      return found;
    };
    assert.deepEqual(await lookFor(), [], 'the secret outside is not found');

    // An indexed file becomes a symlink to the outside (a fetched commit can do this) before any re-index.
    fs.rmSync(path.join(repo, 'src', 'later.ts'));
    fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(repo, 'src', 'later.ts'));
    assert.deepEqual(await lookFor(), [], 'grep does not follow it out of the repository');

    // A folder given to index that is a symlink to somewhere not allowed is refused.
    const sneaky = path.join(tempDir('loupe-sneaky-'), 'etc-link');
    fs.symlinkSync('/etc', sneaky);
    const refused = await t.call('POST', '/v2/repos/index/new', { url: sneaky });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'PATH_NOT_ALLOWED');

    // File ids that climb out of the repository are just unknown files.
    for (const id of ['..%2F..%2F..%2Fetc%2Fpasswd', '%2Fetc%2Fpasswd', 'src%2F..%2F..%2Foutside%2Fsecret.ts', 'dir-out%2Fsecret.ts']) {
      const res = await t.call('GET', `/v2/files/${repoId}/${id}`);
      assert.ok(res.status === 404 || res.status === 400, `${id}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      assert.ok(!JSON.stringify(res.body).includes('root:'), 'no file content');
    }
  } finally {
    await t.close();
  }
});

test('query text with full-text, LIKE and SQL syntax is data, never syntax: no 5xx, nothing dropped', async () => {
  const { repo } = repoWithSymlinks();
  const t = await createTestApp();
  try {
    const indexed = await t.call('POST', '/v2/repos/index/new', { url: repo });
    const repoId = indexed.body.data.repo.repo_id;
    await t.engine.queue.idle();
    const nasty = ['"unbalanced', 'NEAR(real thing)', 'real*', 'body:real', '^real', 'real AND OR NOT', "'; DROP TABLE files; --",
      'a" OR 1=1 --', '%', '_', '\\', 'real\u0000thing', '(((((', '{"$gt": ""}', 'ünïcödé realThing', `${'x '.repeat(400)}`];
    for (const query of nasty) {
      for (const extra of [{}, { scan_mode: 'grep_code' }, { scan_mode: 'grep_docs' }]) {
        const res = await t.call('POST', '/v2/search', { query, repo_ids: [repoId], ...extra });
        assert.ok(res.status < 500, `${JSON.stringify(query)} ${JSON.stringify(extra)}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
      for (const url of [`/v2/repos?search=${encodeURIComponent(query.slice(0, 200))}`, `/v2/files/${repoId}?search=${encodeURIComponent(query.slice(0, 200))}`]) {
        const res = await t.call('GET', url);
        assert.ok(res.status < 500, `${url}: ${res.status}`);
        if (res.status === 200 && (query === '%' || query === '_')) assert.equal(res.body.data.length, 0, `${query} is a literal, not a wildcard`);
      }
    }
    const injected = await t.call('GET', `/v2/repos?order_by=${encodeURIComponent('name; DROP TABLE repos')}`);
    assert.equal(injected.status, 400);
    // Whoever calls the store directly, an unknown sort column never reaches SQL.
    assert.doesNotThrow(() => t.engine.reposStore.list({ userId: t.ownerId, scope: 'private', limit: 5, offset: 0, orderBy: 'name; DROP TABLE repos' as never, order: 'asc' } as never));
    const still = await t.call('GET', `/v2/files/${repoId}?limit=5`);
    assert.equal(still.status, 200);
    assert.ok(still.body.data.length > 0, 'every table is still there');
  } finally {
    await t.close();
  }
});
