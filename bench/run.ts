/**
 * `npm run bench`: indexing and sidecar throughput on the registry corpora, side by side in one run.
 * Each measurement runs in a fresh process; medians over the runs are reported. The section between
 * the index markers of docs/benchmarks.md is rewritten; other sections are left as they are.
 *
 *   npm run bench                 # everything: indexing, search, research, analysis, editor
 *   npm run bench -- --runs 1 --only index rxjs phaser
 *
 * After the indexing section it runs the other benchmark scripts, each of which rewrites its own
 * section of docs/benchmarks.md (search, research, analysis, exactness per language, editor latency).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { corpus, sizeOf } from './corpora';

interface Sample { files: number; coreMs: number; coldMs: number; peakRssMb: number; noChangeMs: number; editMs: number[]; requestsPerSecond: number | null }

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

function measure(folder: string, edits: number, httpSeconds: number): Sample {
  const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'index-once.ts'), folder,
    '--edits', String(edits), '--http-seconds', String(httpSeconds)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 });
  return JSON.parse(out.trim().split('\n').pop()!);
}

function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { runs: { type: 'string', default: '3' }, only: { type: 'string' } },
  });
  const runs = Number(values.runs);
  const names = positionals.length ? positionals : ['rxjs', 'phaser', 'phaser-x2', 'phaser-x4'];
  const rows: string[] = [];
  for (const name of names) {
    const folder = corpus(name);
    const size = sizeOf(folder);
    const samples: Sample[] = [];
    for (let i = 0; i < runs; i++) {
      const last = name === names[names.length - 1] && i === 0;
      samples.push(measure(folder, name.startsWith('phaser') ? 20 : 0, last ? 10 : 0));
      process.stderr.write(`${name} run ${i + 1}: ${(samples[i].coldMs / 1000).toFixed(2)} s\n`);
    }
    const edits = samples.flatMap((s) => s.editMs);
    const rps = samples.map((s) => s.requestsPerSecond).filter((r): r is number => r !== null);
    rows.push(`| ${name} | ${size.files} | ${(size.bytes / 1e6).toFixed(1)} MB | ${(median(samples.map((s) => s.coreMs)) / 1000).toFixed(2)} s | ${(median(samples.map((s) => s.coldMs)) / 1000).toFixed(2)} s | ` +
      `${Math.round(median(samples.map((s) => s.peakRssMb)))} MB | ${Math.round(median(samples.map((s) => s.noChangeMs)))} ms | ` +
      `${edits.length ? `${median(edits).toFixed(1)} ms` : '—'} | ${rps.length ? Math.round(median(rps)) : '—'} |`);
  }
  const section = `<!-- bench:index:start -->
## Indexing and sidecar throughput

Command: \`npm run bench -- --runs ${runs} ${names.join(' ')}\` on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), ${new Date().toISOString().slice(0, 10)}.
Medians of ${runs} fresh-process run(s) per corpus. *Core index* = empty database to every file indexed and searchable
by text (walk, parse in worker threads, write symbols, edges, chunks and full text, link imports); *with vectors and docs* = until
the derived indexes are done too (the corpus embedding model trained, every chunk embedded, file docs generated);
*peak RSS* includes the workers; *no change* = a second full pass with nothing changed;
*edit* = one edited file re-indexed, text, symbols and edges (median of 20 edits per run; vectors and docs follow in the background); *GET /v2/repos* = autocannon, 10 connections, 10 s, over 127.0.0.1.

| corpus | files | size | core index | with vectors and docs | peak RSS | re-index, no change | one edit | GET /v2/repos req/s |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Targets (issue 2): phaser ≤ 6 s; phaser ×4 ≤ 25 s and ≤ 600 MB; linear growth; no-change ≤ 1 s on ×4; one edit ≤ 50 ms; ≥ 5,000 req/s.
<!-- bench:index:end -->`;
  const doc = path.join(__dirname, '..', 'docs', 'benchmarks.md');
  const current = fs.existsSync(doc) ? fs.readFileSync(doc, 'utf8') : '# Benchmarks\n\nEvery number here comes from a command in this repository; the machine is shared and noisy, so runs are medians.\n';
  const next = /<!-- bench:index:start -->[\s\S]*<!-- bench:index:end -->/.test(current)
    ? current.replace(/<!-- bench:index:start -->[\s\S]*<!-- bench:index:end -->/, section)
    : `${current.trimEnd()}\n\n${section}\n`;
  fs.writeFileSync(doc, next);
  process.stdout.write(`${section}\n`);
  if (values.only === 'index') return;
  const others: [string, string[]][] = [
    ['search-run.ts', []],
    ['research-bench.ts', ['phaser', '--write']],
    ['analysis-speed.ts', ['phaser-x4']],
    ['radius-exactness.ts', ['--write']],
    ['editor-latency.ts', ['phaser-x4']],
  ];
  for (const [script, args] of others) {
    process.stderr.write(`\n== bench/${script} ${args.join(' ')}\n`);
    execFileSync(process.execPath, ['--import', 'tsx', path.join(__dirname, script), ...args], { stdio: 'inherit' });
  }
}

main();
