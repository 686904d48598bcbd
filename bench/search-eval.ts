/**
 * Search quality on phaser@3.90.0 src/ with the queries of bench/search-queries.ts:
 *   node --import tsx bench/search-eval.ts [--verbose]
 * Ranks files for each query with BM25 alone, vectors alone, the hybrid (what /v2/search uses), and
 * a plain ripgrep keyword ranking (files by how many query words they contain, then by matches),
 * and reports MRR@10, Recall@10 and Success@10. Prints a JSON summary on the last line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { EngineCore } from '../server/engine/core';
import { silentLogger } from '../server/engine/log';
import { newId } from '../server/engine/util/ids';
import { queryTerms } from '../server/engine/search/query';
import type { Retriever } from '../server/engine/search/types';
import { corpus } from './corpora';
import { EVAL_QUERIES, type EvalQuery } from './search-queries';

const K = 10;

interface Metrics { mrr: number; recall: number; success: number }

function score(rankings: string[][], queries: EvalQuery[]): Metrics {
  let mrr = 0;
  let recall = 0;
  let success = 0;
  rankings.forEach((ranked, i) => {
    const answers = new Set(queries[i].answers);
    const top = ranked.slice(0, K);
    const first = top.findIndex((p) => answers.has(p));
    if (first >= 0) { mrr += 1 / (first + 1); success++; }
    recall += top.filter((p) => answers.has(p)).length / answers.size;
  });
  const n = queries.length;
  return { mrr: round(mrr / n), recall: round(recall / n), success: round(success / n) };
}
const round = (x: number) => Math.round(x * 1000) / 1000;

/** A plain keyword ranking with ripgrep: files matching more of the query's words first, then more matches. */
function ripgrepRanking(folder: string, query: string): string[] {
  const words = queryTerms(query).words.filter((w) => w.length >= 3);
  const score = new Map<string, { words: number; matches: number }>();
  for (const w of words) {
    const res = spawnSync('rg', ['-i', '-c', '--no-config', '-F', w, '.'], { cwd: folder, encoding: 'utf8', maxBuffer: 1 << 26 });
    for (const line of res.stdout.split('\n')) {
      const m = /^(.*):(\d+)$/.exec(line);
      if (!m) continue;
      const file = m[1].replace(/^\.\//, '');
      const e = score.get(file) ?? { words: 0, matches: 0 };
      e.words++;
      e.matches += Number(m[2]);
      score.set(file, e);
    }
  }
  return [...score].sort((a, b) => b[1].words - a[1].words || b[1].matches - a[1].matches || a[0].localeCompare(b[0])).map(([f]) => f);
}

async function main() {
  const { values } = parseArgs({ options: { verbose: { type: 'boolean', default: false } } });
  const folder = corpus('phaser');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-search-eval-'));
  const engine = new EngineCore({ dataDir, log: silentLogger, allowedRoots: [folder] });
  try {
    const { userId } = engine.accounts.ensureOwner(newId());
    engine.repos.registerLocalFolder(userId, folder);
    await engine.queue.idle();
    await engine.vectors.idle();
    const model = engine.vectors.active()!;
    const rank = async (q: string, retriever: Retriever) => {
      const r = await engine.search.search(userId, { query: q, scope: 'files', limit: K, retriever });
      return r.results.map((h) => h.filePath!);
    };
    const results: Record<string, string[][]> = { bm25: [], vectors: [], hybrid: [], ripgrep: [] };
    for (const q of EVAL_QUERIES) {
      results.bm25.push(await rank(q.query, 'lexical'));
      results.vectors.push(await rank(q.query, 'vector'));
      results.hybrid.push(await rank(q.query, 'hybrid'));
      results.ripgrep.push(ripgrepRanking(folder, q.query));
      if (values.verbose) {
        const at = (list: string[]) => { const i = list.slice(0, K).findIndex((p) => q.answers.includes(p)); return i < 0 ? '-' : String(i + 1); };
        const i = results.bm25.length - 1;
        process.stderr.write(`${q.query}: bm25 ${at(results.bm25[i])} vec ${at(results.vectors[i])} hybrid ${at(results.hybrid[i])} rg ${at(results.ripgrep[i])}\n`);
      }
    }
    const byKind = (kind: EvalQuery['kind']) => {
      const idx = EVAL_QUERIES.map((q, i) => (q.kind === kind ? i : -1)).filter((i) => i >= 0);
      return Object.fromEntries(Object.entries(results).map(([k, v]) => [k, score(idx.map((i) => v[i]), idx.map((i) => EVAL_QUERIES[i]))]));
    };
    const summary = {
      corpus: 'phaser@3.90.0 src', queries: EVAL_QUERIES.length,
      paraphrased: EVAL_QUERIES.filter((q) => q.kind === 'paraphrase').length,
      model: model.embedder.id, dims: model.embedder.dims,
      all: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, score(v, EVAL_QUERIES)])),
      paraphrase: byKind('paraphrase'),
    };
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } finally {
    await engine.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => { process.stderr.write(`${(error as Error).stack}\n`); process.exit(1); });
