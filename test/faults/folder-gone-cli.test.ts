import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, tempDir } from '../helpers/engine';
import { killAtEnd, ROOT, waitFor } from '../helpers/cli';

const KEY = '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b';

test('the real CLI keeps serving when the folder it watches is deleted, and reports it missing', { timeout: 240_000 }, async (t) => {
  const folder = copyFixture('ts-paths');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server', 'cli.ts'), folder, '--port', '0', '--data-dir', tempDir('loupe-gone-')], {
    cwd: ROOT, env: { ...process.env, LOUPE_API_KEY: KEY }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  killAtEnd(t, child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  try {
    const url = await waitFor(() => /^Loupe API: (\S+)$/m.exec(out)?.[1], 90_000, 'the CLI to listen');
    const post = async (p: string, body: unknown) => {
      const res = await fetch(`${url}${p}`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() as any };
    };
    await waitFor(async () => (await post('/v2/repos/status', { url: folder })).body.data?.state === 'ready', 90_000, 'indexing');
    fs.rmSync(folder, { recursive: true, force: true });
    const status = await waitFor(async () => {
      const s = await post('/v2/repos/status', { url: folder });
      return s.body.data?.state === 'missing' && s;
    }, 45_000, 'the status to say missing');
    assert.equal(status.status, 200);
    assert.equal(child.exitCode, null, `the CLI is still running:\n${err}`);
    const repos = await fetch(`${url}/v2/repos`, { headers: { 'x-api-key': KEY } });
    assert.equal(repos.status, 200);
  } finally {
    child.kill('SIGTERM');
  }
});
