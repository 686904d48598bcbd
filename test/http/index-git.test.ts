import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createTestApp, tempDir } from '../helpers/engine';

/**
 * GitHub cannot be reached here, so git's own `url.<base>.insteadOf` rewrites https://github.com/
 * to a folder of real local repositories: the product runs its real clone path with the system git.
 */
function fakeGithub(): string {
  const hub = tempDir('loupe-hub-');
  const repo = path.join(hub, 'acme', 'widget.git');
  fs.mkdirSync(repo, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  fs.mkdirSync(path.join(repo, 'src'));
  fs.writeFileSync(path.join(repo, 'src', 'widget.ts'), "import { gear } from './gear';\nexport const widget = () => gear() + 1;\n");
  fs.writeFileSync(path.join(repo, 'src', 'gear.ts'), 'export function gear(): number {\n  return 41;\n}\n');
  git('add', '.');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-q', '-m', 'first');
  process.env.GIT_CONFIG_COUNT = '1';
  process.env.GIT_CONFIG_KEY_0 = `url.file://${hub}/.insteadOf`;
  process.env.GIT_CONFIG_VALUE_0 = 'https://github.com/';
  return hub;
}

test('index/new clones a GitHub repository with the system git and indexes it in the background', async () => {
  fakeGithub();
  const t = await createTestApp();
  try {
    const res = await t.call('POST', '/v2/repos/index/new', { url: 'https://github.com/acme/widget.git' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.repo.url, 'https://github.com/acme/widget');
    assert.equal(res.body.data.repo.name, 'acme/widget');
    assert.equal(res.body.data.repo.visibility, 'public');
    assert.equal(res.body.data.repo.updating, true);
    assert.equal(res.body.meta.credits_used, 0, 'indexing costs nothing');
    await t.engine.queue.idle();

    const status = await t.call('POST', '/v2/repos/status', { url: 'https://github.com/acme/widget' });
    assert.equal(status.body.data.updating, false);
    assert.equal(status.body.data.state, 'ready', JSON.stringify(status.body));
    assert.equal(status.body.data.name, 'acme/widget');
    const files = await t.call('GET', `/v2/files/${encodeURIComponent('https://github.com/acme/widget')}`);
    assert.deepEqual(files.body.data.map((f: { file_path: string }) => f.file_path), ['src/gear.ts', 'src/widget.ts']);

    const again = await t.call('POST', '/v2/repos/index/new', { url: 'https://github.com/acme/widget' });
    assert.equal(again.body.data.created, false);
    assert.equal(again.body.data.queued, false);
    const refresh = await t.call('POST', '/v2/repos/index/new', { url: 'https://github.com/acme/widget', update: true });
    assert.equal(refresh.body.data.queued, true);
    await t.engine.queue.idle();
    assert.equal(t.engine.reposStore.all().length, 1);
  } finally {
    await t.close();
  }
});

test('a URL that is not a git repository is a 400 and leaves nothing behind', async () => {
  fakeGithub();
  const t = await createTestApp();
  try {
    const res = await t.call('POST', '/v2/repos/index/new', { url: 'https://github.com/acme/nothing-here' });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'NOT_A_REPOSITORY');
    assert.match(res.body.message, /not a reachable git repository/);
    assert.equal(t.engine.reposStore.all().length, 0);
    assert.equal(fs.existsSync(path.join(t.dataDir, 'repos')) ? fs.readdirSync(path.join(t.dataDir, 'repos')).length : 0, 0);
  } finally {
    await t.close();
  }
});
