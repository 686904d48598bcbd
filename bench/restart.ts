/**
 * A no-change restart, in this process: open the engine on a data dir that already holds the
 * folder's index (after a clean close), register the folder as a start does, and wait for the
 * catch-up run. Prints one JSON line: the open time, the catch-up time, their sum, and the file
 * system calls made (stat and friends per indexed file).
 *
 *   node --import tsx bench/restart.ts <folder> --data-dir <dir> [--runs 3]
 *
 * A data dir that does not exist yet is indexed first (cold, not measured). Runs from whichever
 * checkout it is in, so a copy in another checkout measures that build.
 *
 * Under tsx the engine's worker threads compile their sources at every start (~0.5 s on this machine that the
 * built CLI does not pay): for issue 17's "no-change restart ≤ 1 s" the CLI's figure, bench/restart-cli.ts, is
 * the one; this one compares file-system calls and the catch-up's own work.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import os from 'node:os';
import { EngineCore } from '../server/engine/core';
import { silentLogger } from '../server/engine/log';

const KEY = '4d3c2b1a-0f9e-4d8c-8b7a-6f5e4d3c2b1a';

/** Counts calls of the synchronous and promise-based stat family while `run` is awaited. */
async function counting<T>(run: () => Promise<T>): Promise<{ value: T; calls: Record<string, number> }> {
  const calls: Record<string, number> = {};
  const restore: (() => void)[] = [];
  const wrap = (target: Record<string, unknown>, name: string, label: string) => {
    const original = target[name] as (...args: unknown[]) => unknown;
    target[name] = (...args: unknown[]) => { calls[label] = (calls[label] ?? 0) + 1; return original.apply(target, args); };
    restore.push(() => { target[name] = original; });
  };
  const sync = fs as unknown as Record<string, unknown>;
  for (const name of ['statSync', 'lstatSync', 'readFileSync', 'readdirSync', 'realpathSync', 'openSync', 'existsSync']) wrap(sync, name, name);
  try {
    return { value: await run(), calls };
  } finally {
    for (const r of restore) r();
  }
}

async function main() {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { 'data-dir': { type: 'string' }, runs: { type: 'string', default: '3' } } });
  const folder = path.resolve(positionals[0]);
  const dataDir = path.resolve(values['data-dir']!);
  if (!fs.existsSync(path.join(dataDir, 'loupe.db'))) {
    const t0 = performance.now();
    const engine = new EngineCore({ dataDir, log: silentLogger, allowedRoots: [folder] });
    const { userId } = engine.accounts.ensureOwner(KEY);
    engine.repos.registerLocalFolder(userId, folder);
    await engine.queue.idle();
    await engine.close();
    process.stderr.write(`cold index of ${folder}: ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  const runs: { openMs: number; catchUpMs: number; totalMs: number; files: number; calls: Record<string, number> }[] = [];
  for (let i = 0; i < Number(values.runs); i++) {
    const measured = await counting(async () => {
      const t0 = performance.now();
      const engine = new EngineCore({ dataDir, log: silentLogger, allowedRoots: [folder] });
      const { userId } = engine.accounts.ensureOwner(KEY);
      const openMs = performance.now() - t0;
      const repo = engine.repos.registerLocalFolder(userId, folder);
      await engine.queue.idle();
      const totalMs = performance.now() - t0;
      const files = engine.filesStore.count(repo.id);
      await engine.close();
      return { openMs, catchUpMs: totalMs - openMs, totalMs, files };
    });
    runs.push({ ...measured.value, calls: measured.calls });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const round = (x: number) => Math.round(x);
  const last = runs[runs.length - 1];
  process.stdout.write(`${JSON.stringify({
    folder, files: last.files, runs: runs.map((r) => round(r.totalMs)),
    openMs: round(median(runs.map((r) => r.openMs))), catchUpMs: round(median(runs.map((r) => r.catchUpMs))), totalMs: round(median(runs.map((r) => r.totalMs))),
    statsPerFile: Math.round((((last.calls.statSync ?? 0) + (last.calls.lstatSync ?? 0)) / last.files) * 100) / 100, calls: last.calls,
    loadAverage: os.loadavg().map((x) => x.toFixed(1)).join(' / '),
  })}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
