import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { copyFixture, tempDir } from '../helpers/engine';
import { CLI, killAtEnd, startCli, waitFor } from '../helpers/cli';

const KEY = '5b0e9c3a-1d2f-4e6a-8b7c-9d0e1f2a3b4c';

/**
 * Starts the real CLI on a fresh data dir and sends `signals` SIGINTs as soon as start-up is past opening
 * the index: the CLI creates DATA_DIR/compile-cache then, and then binds the port and builds the HTTP
 * application (hundreds of milliseconds) before it prints its address. Before the handlers were installed
 * first, a signal in that window met Node's default action: killed by SIGINT, nothing closed (and so did
 * one sent the moment a script read the address line, on a loaded machine: the flaky CI failure).
 */
async function interruptStart(t: TestContext, signals: 1 | 2) {
  const folder = copyFixture('ts-paths');
  const dataDir = path.join(tempDir('loupe-cli-signals-'), 'data');
  const child = spawn(process.execPath, [CLI, folder, '--port', '0', '--data-dir', dataDir, '--no-watch'], {
    env: { ...process.env, LOUPE_API_KEY: KEY }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  killAtEnd(t, child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const ended = new Promise<number | NodeJS.Signals>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal!)));
  // Two signals sent back to back can reach the process as one: the second goes the moment the first is acknowledged.
  if (signals === 2) child.stderr.on('data', () => { if (/SIGINT: stopping/.test(stderr) && child.exitCode === null) child.kill('SIGINT'); });
  // Looked for every 2 ms: the window from there to the address line (the port, the application) is hundreds.
  await new Promise<void>((resolve, reject) => {
    const deadline = Date.now() + 30_000;
    const timer = setInterval(() => {
      if (fs.existsSync(path.join(dataDir, 'compile-cache')) || child.exitCode !== null) { clearInterval(timer); resolve(); }
      else if (Date.now() > deadline) { clearInterval(timer); reject(new Error(`start-up did not open the index:\n${stderr}`)); }
    }, 2);
  });
  child.kill('SIGINT');
  return { ended: await ended, stdout: () => stdout, stderr: () => stderr, folder, dataDir };
}

test('Ctrl-C while the CLI starts stops it cleanly: exit 0, no address printed, and the next start finds its index', async (t) => {
  const run = await interruptStart(t, 1);
  assert.equal(run.ended, 0, run.stderr());
  assert.match(run.stderr(), /SIGINT: stopping/);
  assert.doesNotMatch(run.stdout(), /Loupe API:/, 'a start that was asked to stop still announced itself');

  const next = await startCli([run.folder, '--port', '0', '--data-dir', run.dataDir, '--no-watch'], { LOUPE_API_KEY: KEY });
  killAtEnd(t, next.child);
  await waitFor(() => /^indexed ts-paths: /m.test(next.stderr()), 60_000, 'the next start to index');
  const res = await fetch(`${next.url}/v2/repos`, { headers: { 'x-api-key': KEY } });
  assert.equal(res.status, 200);
  next.child.kill('SIGINT');
  assert.equal(await next.exited, 0, next.stderr());
});

test('a second Ctrl-C while the CLI starts or stops exits at once with 130, the shells\' code for SIGINT', async (t) => {
  const run = await interruptStart(t, 2);
  assert.equal(run.ended, 130, run.stderr());
  assert.match(run.stderr(), /SIGINT: stopping/);
  assert.doesNotMatch(run.stdout(), /Loupe API:/);
});
