/**
 * Search speed on a corpus (default phaser ×4, ~8,000 files), in one fresh process:
 *   node --import tsx bench/search-bench.ts [corpus] [--reps N] [--only hybrid|grep] [--data-dir DIR]
 * 1. cold index with vectors (empty database → every chunk embedded, the corpus model trained);
 * 2. hybrid search latency in-process and over HTTP on 127.0.0.1 (the evaluation's queries);
 * 3. grep_code against Debian's ripgrep on the same tree, literal and regex, same answers checked.
 * Prints a JSON summary on the last line. `--only` runs one of 2 and 3 (1 always runs, it builds the index);
 * `--data-dir` keeps the database in DIR and reuses it on the next run (then 1 only re-checks the files).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { EngineCore } from '../server/engine/core';
import { silentLogger } from '../server/engine/log';
import { newId } from '../server/engine/util/ids';
import { createHttpApp } from '../server/host';
import { parseGrepQuery } from '../server/engine/search/query';
import { corpus } from './corpora';
import { EVAL_QUERIES } from './search-queries';

const GREP_QUERIES = [
  'setInterpolation', 'collideSpriteVsGroup', 'TextureManager', 'removeAllListeners', 'pixelArt',
  '/Math\\.(sin|cos)\\(/', '/function\\s+\\w+Matrix/', '/(?i)deprecated/', '/this\\.\\w+ = null;$/', '/@since 3\\.[0-9]+\\.0/',
];

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: Math.round(at(0.5) * 100) / 100, p95: Math.round(at(0.95) * 100) / 100, n: s.length };
};

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { reps: { type: 'string', default: '5' }, only: { type: 'string' }, 'data-dir': { type: 'string' } },
  });
  const name = positionals[0] ?? 'phaser-x4';
  const reps = Number(values.reps);
  const only = values.only;
  if (only !== undefined && only !== 'hybrid' && only !== 'grep') throw new Error('--only takes hybrid or grep');
  const folder = corpus(name);
  const keep = values['data-dir'];
  if (keep) fs.mkdirSync(keep, { recursive: true });
  const dataDir = keep ? path.resolve(keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-search-bench-'));
  const engine = new EngineCore({ dataDir, log: silentLogger, allowedRoots: [folder] });
  try {
    const key = newId();
    const { userId } = engine.accounts.ensureOwner(key);
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const repo = engine.repos.registerLocalFolder(userId, folder);
    await engine.queue.idle();
    const indexedMs = performance.now() - t0;
    await engine.vectors.idle();
    const coldMs = performance.now() - t0;
    // Main thread and parse workers together (process-wide CPU), for comparison with wall time on a loaded machine.
    const coldUsage = process.cpuUsage(cpu0);
    const coldCpu = (coldUsage.user + coldUsage.system) / 1000;
    const model = engine.vectors.active()!;
    const files = engine.filesStore.count(repo.id);
    const chunks = (engine.db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
    process.stderr.write(`${name}: ${files} files, ${chunks} chunks indexed with vectors in ${(coldMs / 1000).toFixed(1)} s (${model.embedder.id})\n`);

    // Hybrid latency in-process.
    const queries = only === 'grep' ? [] : EVAL_QUERIES.map((q) => q.query);
    for (const q of queries.slice(0, 5)) await engine.search.search(userId, { query: q, scope: 'code' });
    const inProcess: number[] = [];
    // CPU time of the process per search: what the wall time would be on an idle machine (the work is single-threaded).
    const cpu: number[] = [];
    const phases: Record<string, number[]> = {};
    for (let r = 0; r < reps; r++) {
      for (const q of queries) {
        const s = performance.now();
        const c = process.cpuUsage();
        const out = await engine.search.search(userId, { query: q, scope: 'code', limit: 10 });
        const used = process.cpuUsage(c);
        inProcess.push(performance.now() - s);
        cpu.push((used.user + used.system) / 1000);
        for (const [k, v] of Object.entries(out.timings)) (phases[k] ??= []).push(v);
      }
    }
    // The same over HTTP (real socket on 127.0.0.1).
    const app = await createHttpApp(engine);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address() as { port: number };
    const url = `http://127.0.0.1:${address.port}/v2/search`;
    const overHttp: number[] = [];
    for (let r = 0; r < reps && queries.length; r++) {
      for (const q of queries) {
        const s = performance.now();
        const res = await request(url, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ query: q, scope: 'code', limit: 10 }) });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
        overHttp.push(performance.now() - s);
      }
    }
    await app.close();

    // grep_code against ripgrep: same tree, same answers, wall time of each.
    const grep: { query: string; loupeMs: number; rgMs: number; lines: number; rgLines: number; candidates: number }[] = [];
    for (const q of only === 'hybrid' ? [] : GREP_QUERIES) {
      const parsed = parseGrepQuery(q);
      const loupe: number[] = [];
      let lines = 0;
      let candidates = 0;
      for (let r = 0; r < reps; r++) {
        const s = performance.now();
        const out = await engine.search.search(userId, { query: q, scanMode: 'grep_code', scope: 'code', limit: 100000 });
        loupe.push(performance.now() - s);
        lines = out.total;
        candidates = out.candidates!.files;
      }
      const rg: number[] = [];
      let rgLines = 0;
      for (let r = 0; r < reps; r++) {
        const s = performance.now();
        const res = spawnSync('rg', ['-n', '--hidden', '--no-require-git', '--no-config', ...parsed.rgArgs, folder], { encoding: 'utf8', maxBuffer: 1 << 28 });
        rg.push(performance.now() - s);
        rgLines = res.stdout ? res.stdout.split('\n').filter(Boolean).length : 0;
      }
      grep.push({ query: q, loupeMs: stats(loupe).median, rgMs: stats(rg).median, lines, rgLines, candidates });
      process.stderr.write(`grep ${q}: loupe ${stats(loupe).median} ms, rg ${stats(rg).median} ms, ${lines}/${rgLines} lines\n`);
    }
    const summary = {
      corpus: name, files, chunks, model: model.embedder.id, dims: model.embedder.dims,
      indexedMs: Math.round(indexedMs), coldWithVectorsMs: Math.round(coldMs),
      hybridInProcess: stats(inProcess), hybridCpu: stats(cpu), hybridHttp: stats(overHttp),
      coldCpuMs: Math.round(coldCpu), loadAverage: os.loadavg()[0],
      phases: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, stats(v)])),
      grep,
      cores: os.cpus().length,
    };
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } finally {
    await engine.close();
    if (!keep) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => { process.stderr.write(`${(error as Error).stack}\n`); process.exit(1); });
