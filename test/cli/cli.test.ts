import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, tempDir } from '../helpers/engine';
import { killAtEnd, startCli, waitFor } from '../helpers/cli';

test('npm start: the real CLI indexes a folder, serves it on 127.0.0.1, follows edits, and stops cleanly on Ctrl-C', async () => {
  const folder = copyFixture('ts-paths');
  const dataDir = tempDir('loupe-cli-');
  const key = '7d1c8a52-3f0e-4c1b-9a57-2f4f7e3b9c10';
  const cli = await startCli([folder, '--port', '0', '--data-dir', dataDir], { LOUPE_API_KEY: key });
  try {
    assert.match(cli.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(cli.key, key);
    const get = async (p: string) => {
      const res = await fetch(`${cli.url}${p}`, { headers: { 'x-api-key': key } });
      return { status: res.status, body: await res.json() as any };
    };
    const repos = await waitFor(async () => {
      const r = await get('/v2/repos');
      return r.body.data?.[0]?.state === 'ready' && r;
    }, 30_000, 'the folder to be indexed');
    assert.equal(repos.body.data[0].url, fs.realpathSync(folder));
    const repoId = repos.body.data[0].repo_id;
    // The summary line is written when the run returns, which can be a moment after the repository reads ready.
    await waitFor(async () => /indexed ts-paths: \d+ added/.test(cli.stderr()), 15_000, 'the summary line on stderr');

    const unauthorised = await fetch(`${cli.url}/v2/repos`);
    assert.equal(unauthorised.status, 401);

    // The watcher picks up a new file.
    fs.writeFileSync(path.join(folder, 'src/lib/fresh.ts'), 'export const fresh = true;\n');
    await waitFor(async () => (await get(`/v2/files/${repoId}?search=fresh`)).body.data.length === 1, 15_000, 'the new file to be indexed');

    const openapi = await fetch(`${cli.url}/openapi.json`);
    assert.equal(openapi.status, 200);
    const docs = await fetch(`${cli.url}/docs/`);
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /swagger/i);
  } finally {
    cli.child.kill('SIGINT');
  }
  assert.equal(await cli.exited, 0, `CLI did not exit cleanly:\n${cli.stderr()}`);
  assert.ok(fs.existsSync(path.join(dataDir, 'loupe.db')));
});

test('the CLI refuses bad arguments with a clear message', async () => {
  const { spawnSync } = await import('node:child_process');
  const { CLI } = await import('../helpers/cli');
  const missing = spawnSync(process.execPath, [CLI, '/no/such/folder'], { encoding: 'utf8' });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /is not a folder/);
  const badPort = spawnSync(process.execPath, [CLI, '.', '--port', 'abc'], { encoding: 'utf8' });
  assert.equal(badPort.status, 2);
  assert.match(badPort.stderr, /--port must be/);
  const badKey = spawnSync(process.execPath, [CLI, '.', '--data-dir', tempDir()], { encoding: 'utf8', env: { ...process.env, LOUPE_API_KEY: 'nope' } });
  assert.equal(badKey.status, 2);
  assert.match(badKey.stderr, /LOUPE_API_KEY: must be a UUID/);
});

test('a taken port is the first and only thing the CLI reports: nothing is indexed before it listens', async () => {
  const net = await import('node:net');
  const { spawnSync } = await import('node:child_process');
  const { CLI } = await import('../helpers/cli');
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  try {
    const port = (blocker.address() as { port: number }).port;
    const dataDir = tempDir('loupe-cli-port-');
    const run = spawnSync(process.execPath, [CLI, copyFixture('ts-paths'), '--port', String(port), '--data-dir', dataDir], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.status, 2, run.stderr);
    assert.equal(run.stderr.trim(), `loupe: port ${port} is in use; pass --port N or --port 0`);
    assert.equal(run.stdout, '');
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
});


test('a client still sending a body over the limit gets the 413 in the error shape, not a reset connection', { timeout: 120_000 }, async (t) => {
  // fetch writes the whole body before it reads the answer: a server in another process that closed the socket
  // with the body unread reset it, and fetch failed with EPIPE (about 1 upload in 4 of 1.1 MB before the fix).
  const key = '5b0e2c7a-9d41-4f3e-8a6c-1e2d3c4b5a69';
  const cli = await startCli([copyFixture('ts-paths'), '--port', '0', '--data-dir', tempDir('loupe-cli-'), '--no-watch'], { LOUPE_API_KEY: key });
  killAtEnd(t, cli.child); // however the test ends, even timed out
  try {
    const body = JSON.stringify({ query: 'x', padding: 'x'.repeat(1_100_000) });
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${cli.url}/v2/search`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body });
      assert.equal(res.status, 413, `upload ${i}`);
      assert.equal(((await res.json()) as { code: string }).code, 'PAYLOAD_TOO_LARGE');
    }
    // The connection the body was read off still serves requests.
    assert.equal((await fetch(`${cli.url}/v2/repos`, { headers: { 'x-api-key': key } })).status, 200);
  } finally {
    cli.child.kill('SIGTERM');
    await cli.exited;
  }
});
