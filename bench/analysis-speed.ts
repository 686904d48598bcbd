/**
 * Analysis latencies, written to their section of docs/benchmarks.md:
 *
 *   node --import tsx bench/analysis-speed.ts [corpus=phaser-x4]
 *
 * Radius is timed through the HTTP app (in-process inject: validation, plan check, credits and JSON
 * included) for 200 files spread evenly over the corpus, each asked once (so call-site parsing is
 * cold for every target), then the same files again (warm). Blueprint and file docs (`basic`) the
 * same way. Exactness is bench/radius-exactness.ts (its own section).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openBenchApp } from './bench-app';
import { corpus, sizeOf } from './corpora';

const SAMPLE = 200;
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };
const med = (xs: number[]) => pct(xs, 0.5);
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

async function speed(name: string) {
  const dir = corpus(name);
  const { engine, app, key, userId, close } = await openBenchApp(dir, 'loupe-analysis-bench-');
  try {
    const t0 = performance.now();
    const repo = engine.repos.registerLocalFolder(userId, dir);
    await engine.queue.idle();
    const indexMs = performance.now() - t0;
    const call = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
      const s = performance.now();
      const res = await app.inject({ method, url, payload: body as never, headers: { 'x-api-key': key } });
      const ms = performance.now() - s;
      if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      return { ms, body: res.json() };
    };
    const g0 = performance.now();
    const graph = await engine.analysis.ctx.graph(repo.id);
    const graphMs = performance.now() - g0;
    // Blueprint first, before anything is precomputed in the background: the worst case after an index change.
    const blueprint: number[] = [];
    blueprint.push((await call('GET', `/v2/repos/${repo.id}/blueprint`)).ms);
    const sources = graph.files.filter((f) => /\.(js|ts)$/.test(f.path)).map((f) => f.path);
    const sample = Array.from({ length: SAMPLE }, (_, i) => sources[Math.floor((i * sources.length) / SAMPLE)]);
    const radiusUrl = `/v2/repos/${repo.id}/radius`;
    const cold: number[] = [];
    const warm: number[] = [];
    const depsOnly: number[] = [];
    let maxDependents = 0;
    for (const file of sample) {
      const r = await call('POST', radiusUrl, { file });
      cold.push(r.ms);
      maxDependents = Math.max(maxDependents, r.body.data.summary.total_dependents);
    }
    // Let the background finish parsing what the first calls deferred (it waits for a pause in calls).
    for (let i = 0; i < 600 && engine.analysis.ctx.pendingWarm() > 0; i++) await new Promise((r) => setTimeout(r, 100));
    for (const file of sample) warm.push((await call('POST', radiusUrl, { file })).ms);
    for (const file of sample) depsOnly.push((await call('POST', radiusUrl, { file, include: ['dependents'] })).ms);
    const hub = [...graph.in.entries()].sort((a, b) => b[1].length - a[1].length)[0][0];
    const hubTimes: number[] = [];
    for (let i = 0; i < 10; i++) hubTimes.push((await call('POST', radiusUrl, { file: graph.path(hub) })).ms);

    for (let i = 0; i < 5; i++) blueprint.push((await call('GET', `/v2/repos/${repo.id}/blueprint`)).ms);

    const docFiles = sample.slice(0, 50);
    for (const f of docFiles) await call('GET', `/v2/files/${repo.id}/${encodeURIComponent(f)}?fields=basic`);
    await engine.docs.idle();
    const docs: number[] = [];
    for (const f of docFiles) docs.push((await call('GET', `/v2/files/${repo.id}/${encodeURIComponent(f)}?fields=basic`)).ms);
    const docsFull: number[] = [];
    for (const f of docFiles) docsFull.push((await call('GET', `/v2/files/${repo.id}/${encodeURIComponent(f)}`)).ms);

    // After an edit: a new index generation; the first analysis call loads the graph and schedules the
    // precompute (entry points, facts, exported symbols, conventions) for the next quiet moment.
    const edited = sample[0];
    fs.appendFileSync(path.join(dir, edited), '\n// analysis bench edit\n');
    await engine.indexer.updatePaths(engine.reposStore.get(repo.id)!, [edited]);
    fs.writeFileSync(path.join(dir, edited), fs.readFileSync(path.join(dir, edited), 'utf8').replace('\n// analysis bench edit\n', ''));
    await call('POST', radiusUrl, { file: edited, include: ['dependents'] });
    for (let i = 0; i < 600 && engine.analysis.ctx.pendingWarm() > 0; i++) await new Promise((r) => setTimeout(r, 100));
    const blueprintAfterEdit = (await call('GET', `/v2/repos/${repo.id}/blueprint`)).ms;
    await engine.indexer.updatePaths(engine.reposStore.get(repo.id)!, [edited]);

    return {
      blueprintAfterEdit,
      name, files: sizeOf(dir).files, indexMs, graphMs, maxDependents,
      hub: { path: graph.path(hub), importers: graph.in[hub].length, median: med(hubTimes) },
      radius: { cold: { median: med(cold), p95: pct(cold, 0.95), max: Math.max(...cold) }, warm: { median: med(warm), p95: pct(warm, 0.95) }, depsOnly: { median: med(depsOnly), p95: pct(depsOnly, 0.95) } },
      blueprint: { first: blueprint[0], median: med(blueprint.slice(1)) },
      docs: { basic: { median: med(docs), p95: pct(docs, 0.95) }, full: { median: med(docsFull), p95: pct(docsFull, 0.95) } },
    };
  } finally {
    await close();
  }
}

async function main() {
  const args = process.argv.slice(2);
  const name = args.find((a) => !a.startsWith('--')) ?? 'phaser-x4';
  const s = await speed(name);
  process.stderr.write(`${JSON.stringify(s)}\n`);
  const section = `<!-- bench:analysis:start -->
## Analysis: blast radius, blueprint, file docs

Command: \`node --import tsx bench/analysis-speed.ts ${name}\` on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), ${new Date().toISOString().slice(0, 10)}.
Corpus ${name}: ${s.files} files, indexed in ${(s.indexMs / 1000).toFixed(1)} s. All times are whole HTTP calls through the app
(in-process inject: validation, plan check, credits, JSON), ${SAMPLE} source files spread evenly over the corpus.
The import graph is loaded once per index generation (${fmt(s.graphMs)} here) and kept in memory.

| measurement | median | p95 | target |
|---|---|---|---|
| radius, all parts, first call per file (call sites parsed) | ${fmt(s.radius.cold.median)} | ${fmt(s.radius.cold.p95)} | ≤ 20 ms median |
| radius, all parts, again (after background parsing) | ${fmt(s.radius.warm.median)} | ${fmt(s.radius.warm.p95)} | |
| radius, \`include: ["dependents"]\` | ${fmt(s.radius.depsOnly.median)} | ${fmt(s.radius.depsOnly.p95)} | |
| radius of the most imported file (\`${s.hub.path}\`, ${s.hub.importers} importers) | ${fmt(s.hub.median)} | | |
| blueprint, first call after an index change (nothing precomputed) | ${fmt(s.blueprint.first)} | | ≤ 500 ms |
| blueprint, first call after an edit, once the background precompute ran | ${fmt(s.blueprintAfterEdit)} | | ≤ 500 ms |
| blueprint, again (cached until the index changes) | ${fmt(s.blueprint.median)} | | |
| file docs \`basic\` (ready) | ${fmt(s.docs.basic.median)} | ${fmt(s.docs.basic.p95)} | ≤ 50 ms |
| file docs \`full\` (ready) | ${fmt(s.docs.full.median)} | ${fmt(s.docs.full.p95)} | |

Largest radius in the sample: ${s.maxDependents} dependents. The slowest first call was ${fmt(s.radius.cold.max)}.

Exactness (radius against each language's toolchain) has its own section, written by \`bench/radius-exactness.ts --write\`.
<!-- bench:analysis:end -->`;
  const doc = path.join(__dirname, '..', 'docs', 'benchmarks.md');
  const current = fs.existsSync(doc) ? fs.readFileSync(doc, 'utf8') : '# Benchmarks\n\nEvery number here comes from a command in this repository; the machine is shared and noisy, so runs are medians.\n';
  const next = /<!-- bench:analysis:start -->[\s\S]*<!-- bench:analysis:end -->/.test(current)
    ? current.replace(/<!-- bench:analysis:start -->[\s\S]*<!-- bench:analysis:end -->/, section)
    : `${current.trimEnd()}\n\n${section}\n`;
  fs.writeFileSync(doc, next);
  process.stdout.write(`${section}\n`);
}

main().catch((error) => { console.error(error); process.exit(1); });
