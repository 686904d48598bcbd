// Runs test files with `node --test`, a few at a time, each in its own process group with a hard
// time limit. A test that times out can leave a server or a child process running, and then its
// file never ends (a loaded machine once kept one alive for 20 minutes); when a file runs out of
// time, or ends while something it started is still alive, its whole process group is killed.
//
//   node test/runner.mjs [--concurrency N] [--file-timeout S] [--test-timeout S] GLOB...
//
// Each file's TAP output is printed when it ends (files run side by side would interleave), then a
// summary; the exit code is 1 when any file failed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    concurrency: { type: 'string', default: '2' },
    'file-timeout': { type: 'string', default: '900' },
    'test-timeout': { type: 'string', default: '600' },
  },
});
const concurrency = Math.max(1, Number(values.concurrency));
const fileTimeoutMs = Number(values['file-timeout']) * 1000;
const testTimeoutMs = Number(values['test-timeout']) * 1000;
const files = [...new Set(positionals.flatMap((pattern) => fs.globSync(pattern)))].sort();
if (!files.length) {
  process.stderr.write(`no test files match ${positionals.join(' ')}\n`);
  process.exit(1);
}

// A runner started from inside a test (test/tooling/runner.test.ts) must not report to that test's runner.
const childEnv = { ...process.env };
delete childEnv.NODE_TEST_CONTEXT;
const running = new Set();
const results = [];

/** Kills a process group; it may already be gone. */
function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: nothing left in the group
  }
}

function runFile(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', `--test-timeout=${testTimeoutMs}`, file], {
      detached: true, // its own process group: whatever the tests start is killed with it
      stdio: ['ignore', 'pipe', 'pipe'],
      env: childEnv,
    });
    running.add(child.pid);
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, fileTimeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      // The file is done; anything it started and left running goes too (it would hold the pipes open).
      killGroup(child.pid);
      running.delete(child.pid);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(output)?.[1] ?? 0);
      const result = { file, seconds, pass: count('pass'), fail: count('fail'), code, signal, timedOut };
      result.ok = code === 0 && !timedOut;
      // Let the pipes drain what was written before the exit.
      setImmediate(() => {
        process.stdout.write(`\n# ---- ${file} (${seconds} s)\n${output}`);
        if (timedOut) process.stdout.write(`not ok - ${file} ran out of its ${fileTimeoutMs / 1000} s; its process group was killed\n`);
        resolve(result);
      });
    });
  });
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const pid of running) killGroup(pid);
    process.exit(130);
  });
}

const queue = [...files];
const lanes = Array.from({ length: Math.min(concurrency, files.length) }, async () => {
  while (queue.length) results.push(await runFile(queue.shift()));
});
const started = Date.now();
await Promise.all(lanes);

const failed = results.filter((r) => !r.ok);
const pass = results.reduce((s, r) => s + r.pass, 0);
const fail = results.reduce((s, r) => s + r.fail, 0);
process.stdout.write(`\n# files ${results.length}, tests passed ${pass}, failed ${fail}, in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
for (const r of [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 5)) process.stdout.write(`# slowest: ${r.file} ${r.seconds} s\n`);
for (const r of failed) {
  process.stdout.write(`# FAILED ${r.file}: ${r.timedOut ? 'timed out' : r.signal ? `killed by ${r.signal}` : `exit ${r.code}, ${r.fail} failing`}\n`);
}
process.exit(failed.length ? 1 : 0);
