/**
 * Search benchmarks, each in a fresh process, written to the search section of docs/benchmarks.md:
 *   node --import tsx bench/search-run.ts [--reps N] [corpus]
 * (quality: bench/search-eval.ts on phaser, Flask and gin; speed: bench/search-bench.ts on phaser ×4 by default).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const run = (script: string, args: string[]) => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(__dirname, script), ...args],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26 });
  return JSON.parse(out.trim().split('\n').pop()!);
};

function main() {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { reps: { type: 'string', default: '3' } } });
  const name = positionals[0] ?? 'phaser-x4';
  const evalResult = run('search-eval.ts', []);
  const speed = run('search-bench.ts', [name, '--reps', values.reps!]);
  const load = os.loadavg()[0].toFixed(1);
  const quality = (set: Record<string, { mrr: number; recall: number; success: number }>) => Object.entries(set)
    .map(([k, m]) => `| ${k} | ${m.mrr.toFixed(3)} | ${m.recall.toFixed(3)} | ${m.success.toFixed(3)} |`).join('\n');
  const heldOut = Object.entries(evalResult.corpora as Record<string, { corpus: string; queries: number; all: Record<string, { mrr: number; recall: number; success: number }> }>)
    .filter(([name]) => name !== 'phaser')
    .map(([, c]) => `${c.queries} held-out queries on ${c.corpus}:\n\n| ranking | MRR@10 | Recall@10 | Success@10 |\n|---|---|---|---|\n${quality(c.all)}`).join('\n\n');
  const grepRows = (speed.grep as { query: string; loupeMs: number; rgMs: number; lines: number; rgLines: number; candidates: number }[])
    .map((g) => `| \`${g.query.replace(/\|/g, '\\|')}\` | ${g.candidates} | ${g.lines} / ${g.rgLines} | ${g.loupeMs} ms | ${g.rgMs} ms | ${(g.loupeMs / g.rgMs).toFixed(2)} |`).join('\n');
  const section = `<!-- bench:search:start -->
## Search

Command: \`node --import tsx bench/search-run.ts --reps ${values.reps} ${name}\` on ${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)},
1-minute load average ${load} at the end, ${speed.loadAverage.toFixed(1)} during the speed run (the machine is shared by
many processes: wall times are inflated by the load; CPU times are given beside them).

### Quality (bench/search-eval.ts)

${evalResult.queries} queries on ${evalResult.corpus} (${evalResult.paraphrased} paraphrased, avoiding the answer's identifiers; the rest name them),
each with the file(s) that answer it (bench/search-queries.ts). Files ranked per query; a hit is an answer file in the top 10.
Embedding model: ${evalResult.model} (${evalResult.dims} dimensions, learned from the indexed code, no download).
*ripgrep* = a plain keyword ranking: files by how many query words \`rg -i -F\` finds in them, then by match count.

| ranking | MRR@10 | Recall@10 | Success@10 |
|---|---|---|---|
${quality(evalResult.all)}

Paraphrased queries only:

| ranking | MRR@10 | Recall@10 | Success@10 |
|---|---|---|---|
${quality(evalResult.paraphrase)}

${heldOut}

### Speed (bench/search-bench.ts, ${speed.corpus}: ${speed.files} files, ${speed.chunks} chunks)

| measurement | result | target |
|---|---|---|
| cold index with vectors (empty database → every chunk embedded), wall | ${(speed.coldWithVectorsMs / 1000).toFixed(1)} s | ≤ 40 s |
| the same, CPU time of all threads (parse workers included) | ${(speed.coldCpuMs / 1000).toFixed(1)} s | |
| hybrid search in-process, median / p95 (${speed.hybridInProcess.n} searches) | ${speed.hybridInProcess.median} / ${speed.hybridInProcess.p95} ms | ≤ 30 / ≤ 100 ms |
| hybrid search in-process, CPU time per search, median / p95 | ${speed.hybridCpu.median} / ${speed.hybridCpu.p95} ms | |
| hybrid search over HTTP on 127.0.0.1, median / p95 | ${speed.hybridHttp.median} / ${speed.hybridHttp.p95} ms | |
| of which BM25 / vectors / fusion (medians) | ${speed.phases.lexicalMs?.median} / ${speed.phases.vectorMs?.median} / ${speed.phases.fuseMs?.median} ms | |

grep_code against Debian's ripgrep on the same tree (wall time, medians of ${values.reps}; rg's includes starting the process;
lines = Loupe's / rg's, Loupe collects at most 10,000):

| query | candidate files | lines | Loupe | rg | ratio |
|---|---|---|---|---|---|
${grepRows}

Target: grep_code ≤ half of rg's time.
<!-- bench:search:end -->`;
  const doc = path.join(__dirname, '..', 'docs', 'benchmarks.md');
  const current = fs.existsSync(doc) ? fs.readFileSync(doc, 'utf8') : '# Benchmarks\n';
  const re = /<!-- bench:search:start -->[\s\S]*<!-- bench:search:end -->/;
  fs.writeFileSync(doc, re.test(current) ? current.replace(re, section) : `${current.trimEnd()}\n\n${section}\n`);
  process.stdout.write(`${section}\n`);
}

main();
