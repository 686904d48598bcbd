/**
 * A no-change restart of the whole CLI, on two builds side by side (issue 17's "≤ 1 s" target): each
 * build's `dist/cli.js <folder> --no-watch --port 0` is spawned on a data dir that already holds the
 * folder's index (after a clean stop), and timed from spawn to the catch-up run's `indexed …` line on
 * stderr; also to its `Loupe API:` line on stdout (printed once the HTTP application is built). "Ready and
 * answering" is the later of the two; RSS is the process's at the `indexed` line.
 *
 *   node --import tsx bench/restart-cli.ts --folder <dir> --baseline <checkout> [--candidate <checkout>] [--runs 5]
 *
 * The index is made once by the baseline's CLI (cold, not measured) and copied for each build, so both
 * start from the same files. Runs alternate between builds in fresh processes; prints one line per run
 * to stderr and a Markdown table of medians with the load average.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';

const ROOT = path.join(__dirname, '..');
const KEY = '6f5e4d3c-2b1a-4f0e-9d8c-7b6a5f4e3d2c';

interface Run { indexedMs: number; apiMs: number; readyMs: number; line: string; cpuMs: number; mainCpuMs: number; rssMb: number }

/** User + system CPU of a process (all its threads, exited ones included) or of one of its threads, ms. */
const cpuMs = (file: string) => {
  const f = fs.readFileSync(file, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};

/** Spawns the CLI, resolves at its `indexed` line (and kills it with SIGTERM, waiting for its exit). */
function once(checkout: string, folder: string, dataDir: string, timeoutMs = 600_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [path.join(checkout, 'dist', 'cli.js'), folder, '--port', '0', '--data-dir', dataDir, '--no-watch'], {
      env: { ...process.env, LOUPE_API_KEY: KEY }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let apiMs = NaN;
    let out = '';
    let err = '';
    let result: Run | null = null;
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    let indexed: { ms: number; line: string; cpuMs: number; mainCpuMs: number; rssMb: number } | null = null;
    // Stopped (a clean close) once both lines are out, whichever comes first.
    const check = () => {
      if (!indexed || Number.isNaN(apiMs) || result) return;
      // Ready and answering: the catch-up run is done and the API is up, whichever came last.
      result = { indexedMs: indexed.ms, apiMs, readyMs: Math.max(indexed.ms, apiMs), line: indexed.line, cpuMs: indexed.cpuMs, mainCpuMs: indexed.mainCpuMs, rssMb: indexed.rssMb };
      child.kill('SIGTERM');
    };
    child.stdout!.on('data', (d) => {
      out += d;
      if (Number.isNaN(apiMs) && /^Loupe API: /m.test(out)) apiMs = performance.now() - t0;
      check();
    });
    child.stderr!.on('data', (d) => {
      err += d;
      const m = /^indexed .*$/m.exec(err);
      if (m && !indexed) {
        // CPU time is what the load changes least: the process's (the writer thread's included) and its main thread's.
        indexed = {
          ms: performance.now() - t0, line: m[0], cpuMs: cpuMs(`/proc/${child.pid}/stat`), mainCpuMs: cpuMs(`/proc/${child.pid}/task/${child.pid}/stat`),
          rssMb: Number(/^VmRSS:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024,
        };
      }
      check();
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (result) resolve(result);
      else reject(new Error(`${checkout}: the CLI exited with ${code} before its indexed line:\n${err}`));
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' / ');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      folder: { type: 'string' }, baseline: { type: 'string' }, candidate: { type: 'string', default: ROOT },
      runs: { type: 'string', default: '5' }, 'data-dir': { type: 'string' },
    },
  });
  if (!values.folder || !values.baseline) throw new Error('--folder <dir> and --baseline <checkout> are required');
  const folder = path.resolve(values.folder);
  const sides: Record<string, string> = { baseline: path.resolve(values.baseline), candidate: path.resolve(values.candidate!) };
  // The index, made once by the baseline (kept when --data-dir names one that exists).
  const source = values['data-dir'] ? path.resolve(values['data-dir']) : fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-restart-src-'));
  if (!fs.existsSync(path.join(source, 'loupe.db'))) {
    const cold = await once(sides.baseline, folder, source);
    process.stderr.write(`cold index by the baseline: ${(cold.indexedMs / 1000).toFixed(1)} s (${cold.line})\n`);
  }
  const dirs: Record<string, string> = {};
  for (const side of Object.keys(sides)) {
    dirs[side] = fs.mkdtempSync(path.join(os.tmpdir(), `loupe-restart-${side}-`));
    fs.cpSync(source, dirs[side], { recursive: true });
    // A first start of each build on its copy (migrations, a first catch-up), not measured.
    await once(sides[side], folder, dirs[side]);
  }
  const runs: Record<string, Run[]> = {};
  const loads = [load()];
  try {
    for (let i = 0; i < Number(values.runs); i++) {
      const order = i % 2 ? ['candidate', 'baseline'] : ['baseline', 'candidate'];
      for (const side of order) {
        const r = await once(sides[side], folder, dirs[side]);
        (runs[side] ??= []).push(r);
        process.stderr.write(`${side}: ready ${r.readyMs.toFixed(0)} ms, indexed ${r.indexedMs.toFixed(0)} ms, API ${r.apiMs.toFixed(0)} ms, RSS ${r.rssMb.toFixed(0)} MB, CPU ${r.cpuMs} ms (main thread ${r.mainCpuMs}) (${r.line}) load ${load()}\n`);
      }
      loads.push(load());
    }
  } finally {
    for (const dir of Object.values(dirs)) fs.rmSync(dir, { recursive: true, force: true });
    if (!values['data-dir']) fs.rmSync(source, { recursive: true, force: true });
  }
  type Key = 'indexedMs' | 'apiMs' | 'readyMs' | 'cpuMs' | 'mainCpuMs' | 'rssMb';
  const m = (side: string, k: Key) => median(runs[side].map((r) => r[k]));
  const rows = Object.keys(sides).map((side) => `| ${side} | ${runs[side].map((r) => r.readyMs.toFixed(0)).join(', ')} | **${m(side, 'readyMs').toFixed(0)}** | ${m(side, 'apiMs').toFixed(0)} | ${m(side, 'indexedMs').toFixed(0)} | ${m(side, 'cpuMs')} | ${m(side, 'mainCpuMs')} | ${m(side, 'rssMb').toFixed(0)} |`);
  const ratio = (k: Key) => (m('candidate', k) / m('baseline', k)).toFixed(2);
  process.stdout.write(`No-change restart of the CLI on ${folder}, ${values.runs} runs each, alternating; ${os.cpus().length} cores; load average ${loads.join(' → ')}.\n\n` +
    '| build | ready and answering, each run (ms) | ready and answering (median, ms) | spawn → `Loupe API:` (ms) | spawn → `indexed` (ms) | CPU to `indexed`, all threads (ms) | of it the main thread (ms) | RSS at `indexed` (MB) |\n|---|---|---|---|---|---|---|---|\n' +
    `${rows.join('\n')}\n| candidate / baseline | | ${ratio('readyMs')} | ${ratio('apiMs')} | ${ratio('indexedMs')} | ${ratio('cpuMs')} | ${ratio('mainCpuMs')} | ${ratio('rssMb')} |\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
