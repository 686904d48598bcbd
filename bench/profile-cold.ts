/**
 * One build's CLI cold-indexes a copy of a folder with `--cpu-prof` (its main and worker threads each write a
 * profile into <profile dir>, emptied first); prints the time to the run's `indexed` line and the main thread's CPU then.
 * Compare two builds' main-thread profiles by function (issue 17: what the main thread does with parse results).
 *
 *   node --import tsx bench/profile-cold.ts <checkout> <folder> <profile dir>
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const [checkout, folder, profDir] = process.argv.slice(2);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-profcold-'));
fs.cpSync(folder, path.join(work, 'repo'), { recursive: true });
fs.rmSync(profDir, { recursive: true, force: true });
const t0 = performance.now();
const child = spawn(process.execPath, [`--cpu-prof`, `--cpu-prof-dir=${profDir}`, path.join(checkout, 'dist', 'cli.js'), path.join(work, 'repo'), '--port', '0', '--data-dir', path.join(work, 'data'), '--no-watch'], {
  env: { ...process.env, LOUPE_API_KEY: '6f5e4d3c-2b1a-4f0e-9d8c-7b6a5f4e3d2c' }, stdio: ['ignore', 'ignore', 'pipe'],
});
let err = '';
child.stderr!.on('data', (d) => {
  err += d;
  if (/^indexed /m.test(err) && !child.killed) {
    const f = fs.readFileSync(`/proc/${child.pid}/task/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    console.log(JSON.stringify({ checkout, ms: Math.round(performance.now() - t0), mainCpuS: (Number(f[11]) + Number(f[12])) / 100, load: os.loadavg()[0] }));
    child.kill('SIGTERM');
  }
});
child.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));
