import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { tempDir, createTestEngine } from '../helpers/engine';
import { CLI, startCli, waitFor } from '../helpers/cli';
import { EngineCore } from '../../server/engine/core';
import { createLogger } from '../../server/engine/log';
import { signUp } from './attacker';

/**
 * Attack: the data directory (the owner's plaintext key in `owner-key`, the accounts database, other
 * users' sign-up codes in `outbox/`) made into a repository. With `npm start -- ~/proj --allow ~` a
 * FREE user who signed up through the API asked index/new for the data dir and grepped the owner's
 * ENTERPRISE key out of it. Every way a folder comes in refuses one that is, lies inside or
 * contains the data dir, comparing real paths.
 */
test('a user cannot index the data dir, a folder inside it, a link to it or a folder around it', { timeout: 90_000 }, async () => {
  const home = tempDir('loupe-home-');
  const project = path.join(home, 'proj');
  fs.mkdirSync(path.join(project, 'src'), { recursive: true });
  fs.writeFileSync(path.join(project, 'src', 'a.ts'), 'export const a = 1;\n');
  const dataDir = path.join(home, '.loupe');
  fs.symlinkSync(dataDir, path.join(home, 'link-to-data'));
  const cli = await startCli([project, '--allow', home, '--port', '0', '--data-dir', dataDir, '--no-watch']);
  try {
    assert.match(cli.stderr(), /data directory .* lies inside .*a folder API callers may index/, 'the owner is warned at start-up');
    const eve = await signUp(cli.url, dataDir, 'eve@example.test');
    await waitFor(async () => (await eve.call('GET', '/v2/repos')).status === 200, 10_000, 'the new key to work');
    const attempts = [dataDir, path.join(dataDir, 'outbox'), path.join(dataDir, 'repos'), path.join(home, 'link-to-data'),
      path.join(home, 'link-to-data', 'outbox'), `file://${dataDir}`, home, `${dataDir}/../.loupe`];
    for (const url of attempts) {
      const res = await eve.call('POST', '/v2/repos/index/new', { url });
      assert.equal(res.status, 403, `${url}: ${res.text}`);
      assert.equal(res.body.code, 'PATH_NOT_ALLOWED');
      assert.equal(res.body.field, 'url');
      assert.doesNotMatch(res.text, new RegExp(`\\(${fs.realpathSync(dataDir).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`), 'the data dir is not named to API callers');
    }
    const listed = await eve.call('GET', '/v2/repos');
    assert.deepEqual(listed.body.data, [], 'nothing was registered for her');
    const grep = await eve.call('POST', '/v2/search', { query: cli.key, scan_mode: 'grep_code' });
    assert.ok(grep.status === 200 || grep.status === 400, grep.text);
    assert.doesNotMatch(grep.text, new RegExp(cli.key), 'the owner\'s key is found nowhere');
    // The owner is refused too (the data dir is never indexed, whoever asks).
    const owner = await fetch(`${cli.url}/v2/repos/index/new`, {
      method: 'POST', headers: { 'x-api-key': cli.key, 'content-type': 'application/json' }, body: JSON.stringify({ url: dataDir }),
    });
    assert.equal(owner.status, 403);
  } finally {
    cli.child.kill('SIGINT');
    await cli.exited;
  }
});

test('the command line refuses a folder or --allow that is, lies inside or contains the data dir', () => {
  const home = tempDir('loupe-home-');
  const dataDir = path.join(home, 'data');
  fs.mkdirSync(path.join(dataDir, 'inner'), { recursive: true });
  const cases: [string[], RegExp][] = [
    [[dataDir], /is Loupe's data directory/],
    [[home], /contains Loupe's data directory/],
  ];
  for (const [args, message] of cases) {
    const run = spawnSync(process.execPath, [CLI, ...args, '--port', '0', '--data-dir', dataDir, '--no-watch'], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.status, 2, `${args.join(' ')}: ${run.stdout}${run.stderr}`);
    assert.match(run.stderr, message, args.join(' '));
    assert.doesNotMatch(run.stdout, /API key:/, 'refused before serving anything');
  }
  const allowInside = spawnSync(process.execPath, [CLI, tempDir('loupe-proj-'), '--allow', path.join(dataDir, 'inner'), '--port', '0', '--data-dir', dataDir],
    { encoding: 'utf8', timeout: 30_000 });
  assert.equal(allowInside.status, 2, allowInside.stderr);
  assert.match(allowInside.stderr, /lies inside Loupe's data directory/);
});

test('workspace folders (the editor\'s path in) around the data dir are refused; an old registration of it is forgotten at start', async () => {
  const home = tempDir('loupe-home-');
  const dataDir = path.join(home, 'data');
  const t = createTestEngine({ dataDir });
  let repoId: string;
  try {
    // The language server registers each workspace folder with registerLocalFolder.
    assert.throws(() => t.engine.repos.registerLocalFolder(t.ownerId, home), /contains Loupe's data directory/);
    assert.throws(() => t.engine.repos.registerLocalFolder(t.ownerId, dataDir), /is Loupe's data directory/);
    // A repository of the data dir registered by an earlier version, with a file indexed from it.
    repoId = '11111111-2222-4333-8444-555555555555';
    t.engine.reposStore.insert({ id: repoId, url: dataDir, name: 'data', rootPath: dataDir, source: 'local', branch: null, visibility: 'private' });
    t.engine.reposStore.grantAccess(t.ownerId, repoId);
    fs.writeFileSync(path.join(dataDir, 'secret.txt'), 'the owner key is here\n');
  } finally {
    await t.close();
  }
  const lines: string[] = [];
  const again = new EngineCore({ dataDir, log: createLogger((level, line) => lines.push(`[${level}] ${line}`), 'debug') });
  try {
    assert.equal(again.reposStore.get(repoId), undefined, 'the registration is gone');
    assert.ok(lines.some((l) => l.includes('forgot the repository') && l.includes(dataDir)), lines.join('\n'));
  } finally {
    await again.close();
  }
});
