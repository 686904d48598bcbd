/**
 * One indexing measurement in a fresh process (so peak RSS is this run's alone):
 *   node --import tsx bench/index-once.ts <folder> [--edits N] [--http-seconds S]
 * Prints one JSON line: cold index time, peak RSS, the longest main-thread stalls during the core index,
 * no-change re-index time, edit-to-index latencies,
 * and optionally GET /v2/repos throughput over 127.0.0.1 measured with autocannon.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { EngineCore } from '../server/engine/core';
import { silentLogger } from '../server/engine/log';
import { startSidecar } from '../server/host';
import { newId } from '../server/engine/util/ids';

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { edits: { type: 'string', default: '0' }, 'http-seconds': { type: 'string', default: '0' } },
  });
  const folder = path.resolve(positionals[0]);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-bench-'));
  try {
    const engine = new EngineCore({ dataDir, log: silentLogger, allowedRoots: [folder] });
    const key = newId();
    const { userId } = engine.accounts.ensureOwner(key);
    const t0 = performance.now();
    let coreMs = NaN;
    // How long the main thread (HTTP, LSP) is held at a time while the core index is written.
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    // The core index (files, symbols, edges, chunks, full text) is done when the derived ones start.
    engine.queue.on('progress', (p) => {
      if (Number.isNaN(coreMs) && (p.phase === 'derived' || p.phase === 'done')) { coreMs = performance.now() - t0; loop.disable(); }
    });
    const repo = engine.repos.registerLocalFolder(userId, folder);
    await engine.queue.idle();
    const coldMs = performance.now() - t0;
    const files = engine.filesStore.count(repo.id);

    const t1 = performance.now();
    const again = await engine.indexer.indexRepository(engine.reposStore.get(repo.id)!);
    const noChangeMs = performance.now() - t1;
    if (again.added + again.changed + again.removed !== 0) throw new Error('no-change re-index touched files');

    const editMs: number[] = [];
    const edits = Number(values.edits);
    if (edits > 0) {
      const candidates = engine.filesStore.paths(repo.id).filter((p) => p.endsWith('.js') || p.endsWith('.ts'));
      for (let i = 0; i < edits; i++) {
        const rel = candidates[(i * 7919) % candidates.length];
        const abs = path.join(folder, rel);
        const original = fs.readFileSync(abs, 'utf8');
        fs.writeFileSync(abs, `${original}\n// bench edit ${i}\n`);
        const s = performance.now();
        const r = await engine.indexer.updatePaths(engine.reposStore.get(repo.id)!, [rel]);
        editMs.push(performance.now() - s);
        fs.writeFileSync(abs, original);
        await engine.indexer.updatePaths(engine.reposStore.get(repo.id)!, [rel]);
        if (r.changed !== 1) throw new Error(`edit of ${rel} was not re-indexed`);
      }
    }

    let requestsPerSecond: number | null = null;
    const seconds = Number(values['http-seconds']);
    if (seconds > 0) {
      const sidecar = await startSidecar(engine, { host: '127.0.0.1', port: 0 });
      // autocannon runs in its own process so that it does not take the server's CPU.
      const result = await loadTest(`${sidecar.url}/v2/repos`, key, seconds);
      if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers`);
      requestsPerSecond = result.requests.average;
      await sidecar.close();
    }
    const peakRssMb = process.resourceUsage().maxRSS / 1024;
    await engine.close();
    const stall = { maxMs: Math.round(loop.max / 1e5) / 10, p99Ms: Math.round(loop.percentile(99) / 1e5) / 10 };
    process.stdout.write(`${JSON.stringify({ folder, files, coreMs, coldMs, peakRssMb, noChangeMs, editMs, requestsPerSecond, stall })}\n`);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function loadTest(url: string, key: string, seconds: number): Promise<{ non2xx: number; requests: { average: number } }> {
  const bin = path.join(__dirname, '..', 'node_modules', 'autocannon', 'autocannon.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, '--json', '-c', '10', '-d', String(seconds), '-H', `x-api-key=${key}`, url], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`autocannon exited with ${code}`))));
  });
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
