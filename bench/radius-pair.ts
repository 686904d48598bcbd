// Radius and editor-impact latency of one source tree (argv[2]) over a shared index (argv[3]), for side-by-side runs of
// two trees (before/after a change) on one index:
//   node --import tsx bench/radius-pair.ts <tree> <data dir> [corpus=phaser]
import path from 'node:path';
import fs from 'node:fs';
const [root, dataDir, corpusName = 'phaser'] = process.argv.slice(2);
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };
async function main() {
  const { EngineCore } = await import(path.join(root, 'server/engine/core.ts'));
  const { silentLogger } = await import(path.join(root, 'server/engine/log.ts'));
  const { corpus } = await import(path.join(root, 'bench/corpora.ts'));
  const dir = corpus(corpusName);
  fs.mkdirSync(dataDir, { recursive: true });
  const engine = new EngineCore({ dataDir, log: silentLogger, allowedRoots: [dir] });
  const { userId } = engine.accounts.ensureOwner('3f2a1c4e-8b7d-4e6f-9a1b-2c3d4e5f6a7b');
  const t0 = performance.now();
  const repo = engine.repos.registerLocalFolder(userId, dir);
  await engine.queue.idle();
  const indexMs = performance.now() - t0;
  const graph = await engine.analysis.ctx.graph(repo.id);
  const sources = graph.files.filter((f: { path: string }) => /\.(js|ts)$/.test(f.path)).map((f: { path: string }) => f.path);
  const sample: string[] = Array.from({ length: 200 }, (_, i) => sources[Math.floor((i * sources.length) / 200)]);
  const full: number[] = [], deps: number[] = [], impact: number[] = [];
  // Warm: every target once, then let the background parse what was deferred.
  for (const file of sample) await engine.analysis.radius(repo, { files: [file], dependencies: [], limit: 100 });
  for (let i = 0; i < 600 && engine.analysis.ctx.pendingWarm() > 0; i++) await new Promise((r) => setTimeout(r, 100));
  for (let round = 0; round < 3; round++) {
    for (const file of sample) { const s = performance.now(); await engine.analysis.radius(repo, { files: [file], dependencies: [], limit: 100 }); full.push(performance.now() - s); }
    for (const file of sample) { const s = performance.now(); await engine.analysis.radius(repo, { files: [file], dependencies: [], include: ['dependents'], limit: 100 }); deps.push(performance.now() - s); }
    for (const file of sample) { const s = performance.now(); await engine.ops.editor.impact(repo, file); impact.push(performance.now() - s); }
  }
  const out = { root, indexMs: Math.round(indexMs), files: graph.files.length, load: fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
    radiusFull: { p50: pct(full, 0.5), p95: pct(full, 0.95) }, radiusDeps: { p50: pct(deps, 0.5), p95: pct(deps, 0.95) }, impact: { p50: pct(impact, 0.5), p95: pct(impact, 0.95) } };
  console.log(JSON.stringify(out));
  await engine.close();
}
main().catch((e) => { console.error(e); process.exit(1); });
