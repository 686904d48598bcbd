import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/engine';

const ROOT = path.join(__dirname, '..', '..');
const RUNNER = path.join(ROOT, 'test', 'runner.mjs');

/** Running, not a zombie (a killed process whose parent died waits for init to reap it, and init may be slow). */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

function run(fixture: string, args: string[]) {
  const pidFile = path.join(tempDir('loupe-runner-'), 'pid');
  const started = Date.now();
  const result = spawnSync(process.execPath, [RUNNER, ...args, path.join('test', 'fixtures', 'runner', fixture)], {
    cwd: ROOT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, LOUPE_RUNNER_PID_FILE: pidFile },
  });
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  return { ...result, pid, seconds: (Date.now() - started) / 1000 };
}

test('a test file that hangs past its time is killed with the processes it started, and fails the run', { timeout: 150_000 }, () => {
  const r = run('hangs-with-child.ts', ['--file-timeout', '20']);
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /hangs-with-child\.ts ran out of its 20 s; its process group was killed/);
  assert.match(r.stdout, /# FAILED .*hangs-with-child\.ts: timed out/);
  assert.equal(alive(r.pid), false, 'the child the test started is gone');
});

test('a passing test file that leaves a process behind passes, and the process is killed', { timeout: 150_000 }, () => {
  const r = run('leaves-child.ts', []);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /# files 1, tests passed 1, failed 0/);
  assert.equal(alive(r.pid), false, 'the forgotten child is gone');
});
