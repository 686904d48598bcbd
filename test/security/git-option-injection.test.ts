import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, createTestApp, tempDir } from '../helpers/engine';
import { LoupeError } from '../../server/engine/errors';

/**
 * Attack: git options through user values. `review.base` and index/new's `branch` accepted a
 * leading `-` and reached git's argument list, where git parses options even after positionals
 * (`git show --output=/tmp/x:./file`, `git fetch origin --upload-pack=…`). Both are refused at the
 * API (400 naming the field) and again in the engine (so every transport is covered), and the git
 * calls that carry a user value pass `--end-of-options` before it.
 */
test('a revision or branch starting with - is a 400 naming the field, at the API and in the engine', async () => {
  const folder = copyFixture('ts-paths');
  execFileSync('git', ['init', '-q'], { cwd: folder });
  execFileSync('git', ['-c', 'user.email=a@b.c', '-c', 'user.name=a', 'add', '.'], { cwd: folder });
  execFileSync('git', ['-c', 'user.email=a@b.c', '-c', 'user.name=a', 'commit', '-qm', 'one'], { cwd: folder });
  const t = await createTestApp();
  const canary = path.join(tempDir('loupe-canary-'), 'written');
  try {
    const indexed = await t.call('POST', '/v2/repos/index/new', { url: folder });
    assert.equal(indexed.status, 200, JSON.stringify(indexed.body));
    const repoId = indexed.body.data.repo.repo_id;
    await t.engine.queue.idle();
    const before = t.engine.accounts.credits.balance(t.ownerId);
    for (const base of [`--output=${canary}`, '-p', '--help', '-']) {
      const res = await t.call('POST', `/v2/repos/${repoId}/review`, { files: ['src/lib/math.ts'], base });
      assert.equal(res.status, 400, `${base}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.message, /^base: /);
    }
    for (const branch of ['--upload-pack=touch /tmp/pwned', '-x', '--all']) {
      const res = await t.call('POST', '/v2/repos/index/new', { url: folder, branch, update: true });
      assert.equal(res.status, 400, `${branch}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.message, /^branch: /);
    }
    assert.deepEqual(t.engine.accounts.credits.balance(t.ownerId), before, 'refusals are free');
    // Past the HTTP schema (another transport, a future caller): the engine refuses too.
    const repo = t.engine.reposStore.get(repoId)!;
    await assert.rejects(t.engine.analysis.review(repo, { files: ['src/lib/math.ts'], base: `--output=${canary}` }),
      (e: unknown) => e instanceof LoupeError && e.code === 'VALIDATION_FAILED' && (e.details as { field: string }).field === 'base');
    const caller = { userId: t.ownerId, keyId: 'k', plan: 'ENTERPRISE', isOwner: true };
    await assert.rejects(t.engine.repos.index(caller, { url: folder, branch: '--upload-pack=x', update: true }),
      (e: unknown) => e instanceof LoupeError && (e.details as { field: string }).field === 'branch');
    assert.ok(!fs.existsSync(canary), 'git wrote nothing');
    // A real revision still works through --end-of-options.
    const ok = await t.call('POST', `/v2/repos/${repoId}/review`, { files: ['src/lib/math.ts'], base: 'HEAD~0' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.ok(ok.body.data.files[0].signals.public_api, 'the public API was compared against HEAD~0');
  } finally {
    await t.close();
  }
});
