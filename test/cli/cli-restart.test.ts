import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, tempDir } from '../helpers/engine';
import { killAtEnd, startCli, waitFor, type RunningCli } from '../helpers/cli';

const KEY = '3b0c6f1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f';

/** Runs the built CLI until its catch-up run's summary line, then stops it with Ctrl-C. */
async function startUntilIndexed(t: import('node:test').TestContext, folder: string, dataDir: string): Promise<RunningCli & { summary: string }> {
  // NODE_DEBUG_NATIVE=COMPILE_CACHE: Node says on stderr which compiled code it read and accepted.
  // NODE_COMPILE_CACHE unset: the cache is the one the CLI turns on in its data dir.
  const cli = await startCli([folder, '--port', '0', '--data-dir', dataDir, '--no-watch'], { LOUPE_API_KEY: KEY, NODE_DEBUG_NATIVE: 'COMPILE_CACHE', NODE_COMPILE_CACHE: '' });
  killAtEnd(t, cli.child);
  const summary = await waitFor(() => /^indexed ts-paths: .*$/m.exec(cli.stderr())?.[0], 30_000, 'the summary line');
  return { ...cli, summary };
}

test('a restart of the CLI reads its bundles\' compiled code from DATA_DIR/compile-cache and answers as before', async (t) => {
  const folder = copyFixture('ts-paths');
  const dataDir = path.join(tempDir('loupe-cli-restart-'), 'data'); // does not exist yet: the engine makes it
  const first = await startUntilIndexed(t, folder, dataDir);
  assert.match(first.summary, /[1-9]\d* added/);
  first.child.kill('SIGINT');
  assert.equal(await first.exited, 0, first.stderr());
  // Written when the first start's process exited (the cache was turned on once the data dir existed).
  const cacheDir = path.join(dataDir, 'compile-cache');
  const entries = fs.readdirSync(cacheDir, { recursive: true }).filter((f) => fs.statSync(path.join(cacheDir, String(f))).isFile());
  assert.ok(entries.length > 0, 'no compiled code was kept in DATA_DIR/compile-cache');

  const second = await startUntilIndexed(t, folder, dataDir);
  try {
    assert.match(second.summary, /0 added, 0 changed, 0 removed, [1-9]\d* unchanged/);
    // The vendored packages and the index writer's bundle came from the cache (the CLI's own bundle,
    // loaded before the first start made the data dir, is kept from the second start on).
    for (const bundle of ['vendor.js', 'write-worker.js']) {
      assert.match(second.stderr(), new RegExp(`cache for \\S*dist/${bundle.replace('.', '\\.')} was accepted`), `${bundle} was compiled again`);
    }
    // The routes' schemas, compiled on first use, validate and serialize as they did when compiled at start.
    const get = async (p: string, key: string | null = KEY) => {
      const res = await fetch(`${second.url}${p}`, { headers: key ? { 'x-api-key': key } : {} });
      return { status: res.status, body: await res.json() as any };
    };
    const repos = await get('/v2/repos?limit=5');
    assert.equal(repos.status, 200);
    assert.equal(repos.body.data[0].state, 'ready');
    assert.equal(repos.body.data[0].url, fs.realpathSync(folder));
    const badLimit = await get('/v2/repos?limit=abc');
    assert.equal(badLimit.status, 400);
    assert.equal(badLimit.body.code, 'VALIDATION_FAILED');
    assert.match(badLimit.body.message, /^query\.limit: /);
    const search = await fetch(`${second.url}/v2/search`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'x', nope: 1 }) });
    assert.equal(search.status, 400);
    assert.match(((await search.json()) as any).message, /nope: is not a known field/);
  } finally {
    second.child.kill('SIGINT');
  }
  assert.equal(await second.exited, 0, second.stderr());
});
