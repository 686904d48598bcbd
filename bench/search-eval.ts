/**
 * Search quality with the queries of bench/search-queries.ts, on phaser@3.90.0 src/ and the held-out
 * Flask 2.2.2 (Python) and gin 1.8.1 (Go) sets from Debian:
 *   node --import tsx bench/search-eval.ts [--verbose] [--corpus phaser,flask,gin,phaser-heldout] [--rankings hybrid,bm25,vectors,ripgrep,assisted] [--keep DIR]
 * Ranks files for each query with BM25 alone, vectors alone, the hybrid (what /v2/search uses), and
 * a plain ripgrep keyword ranking (files by how many query words they contain, then by matches),
 * and reports MRR@10, Recall@10 and Success@10 per corpus. Prints a JSON summary on the last line
 * (phaser's figures at the top level, as before; every corpus under `corpora`).
 *
 * `assisted` is the hybrid with model-assisted retrieval (research/retrieval-assist.ts: query expansion, then a
 * rerank of the top files) against a local OpenAI-compatible server on 127.0.0.1 with fixed answers
 * (bench/fixed-expansions-server.ts). Its expansions are oracle ones: for each query the name of the definition
 * that answers it (`symbol` of the held-out sets; phaser's answer file's base name, its class), kept only when it
 * is among the names Loupe sends (at most 400). So it measures the most the plumbing can add with a model that
 * names the answer whenever it is offered, not any particular model.
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
import { debianCorpus } from './debian';
import { EVAL_QUERIES, FLASK_QUERIES, GIN_QUERIES, type EvalQuery, type HeldOutQuery } from './search-queries';
import { PHASER_HELDOUT } from './search-queries-heldout';
import { startFixedModel, type FixedModel } from './fixed-expansions-server';

/** The oracle expansion of a query: its answer's own name (see the header). */
const oracleExpansion = (q: HeldOutQuery): string[] =>
  [q.symbol ? q.symbol.split('.').pop()! : q.answers[0].slice(q.answers[0].lastIndexOf('/') + 1).replace(/\.[^.]*$/, '')];

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

const CORPORA: Record<string, { label: string; folder: () => string; queries: EvalQuery[]; index?: string }> = {
  phaser: { label: 'phaser@3.90.0 src', folder: () => corpus('phaser'), queries: EVAL_QUERIES },
  // The held-out phaser questions (bench/search-queries-heldout.ts) on the same index as phaser's.
  'phaser-heldout': { label: 'phaser@3.90.0 src, held-out questions', folder: () => corpus('phaser'), queries: PHASER_HELDOUT, index: 'phaser' },
  flask: { label: 'Flask 2.2.2 (Debian python3-flask=2.2.2-3)', folder: () => debianCorpus('flask'), queries: FLASK_QUERIES },
  gin: { label: 'gin 1.8.1 (Debian golang-github-gin-gonic-gin-dev=1.8.1-1)', folder: () => debianCorpus('gin'), queries: GIN_QUERIES },
};

type Ranking = 'bm25' | 'vectors' | 'hybrid' | 'ripgrep' | 'assisted';
const RETRIEVER: Record<Exclude<Ranking, 'ripgrep' | 'assisted'>, Retriever> = { bm25: 'lexical', vectors: 'vector', hybrid: 'hybrid' };

async function evaluate(name: string, rankings: Ranking[], verbose: boolean, keep?: string) {
  const { label, folder: folderOf, queries, index } = CORPORA[name];
  const folder = folderOf();
  // --keep DIR: the index is kept in DIR/<corpus> and reused by the next run (ranking changes need no re-index).
  const dataDir = keep ? path.join(keep, index ?? name) : fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-search-eval-'));
  fs.mkdirSync(dataDir, { recursive: true });
  let model: FixedModel | null = null;
  if (rankings.includes('assisted')) model = await startFixedModel(Object.fromEntries(queries.map((q) => [q.query, oracleExpansion(q)])));
  const engine = new EngineCore({
    dataDir, log: silentLogger, allowedRoots: [folder],
    ...(model ? { research: { openai: { baseUrl: model.baseUrl, models: ['assist-1'] }, retrieval: { model: 'assist-1' } } } : {}),
  });
  try {
    const { userId } = engine.accounts.ensureOwner(newId());
    const repo = engine.repos.registerLocalFolder(userId, folder);
    await engine.queue.idle();
    await engine.vectors.idle();
    const embedder = engine.vectors.active()!;
    const rank = async (q: string, retriever: Retriever) => {
      const r = await engine.search.search(userId, { query: q, scope: 'files', limit: K, retriever });
      return r.results.map((h) => h.filePath!);
    };
    const assisted = async (q: string) => {
      const { outcome } = await engine.research.assist!.search({ query: q, scope: 'files', limit: K }, [repo.id], (r) => engine.search.search(userId, r));
      return outcome.results.map((h) => h.filePath!);
    };
    const results: Partial<Record<Ranking, string[][]>> = Object.fromEntries(rankings.map((k) => [k, []]));
    for (const q of queries) {
      for (const k of rankings) {
        results[k]!.push(k === 'ripgrep' ? ripgrepRanking(folder, q.query) : k === 'assisted' ? await assisted(q.query) : await rank(q.query, RETRIEVER[k]));
      }
      if (verbose) {
        const at = (list: string[]) => { const i = list.slice(0, K).findIndex((p) => q.answers.includes(p)); return i < 0 ? '-' : String(i + 1); };
        const line = rankings.map((k) => `${k} ${at(results[k]![results[k]!.length - 1])}`).join(' ');
        const top = rankings.includes('hybrid') ? ` [${results.hybrid![results.hybrid!.length - 1].slice(0, 3).join(', ')}]` : '';
        process.stderr.write(`${name}: ${q.query}: ${line}${top}\n`);
      }
    }
    const byKind = (kind: EvalQuery['kind']) => {
      const idx = queries.map((q, i) => (q.kind === kind ? i : -1)).filter((i) => i >= 0);
      return Object.fromEntries(Object.entries(results).map(([k, v]) => [k, score(idx.map((i) => v[i]), idx.map((i) => queries[i]))]));
    };
    return {
      corpus: label, queries: queries.length,
      paraphrased: queries.filter((q) => q.kind === 'paraphrase').length,
      model: embedder.embedder.id, dims: embedder.embedder.dims,
      ...(model ? { assistRequests: model.requests.length } : {}),
      all: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, score(v, queries)])),
      paraphrase: byKind('paraphrase'),
    };
  } finally {
    await engine.close();
    await model?.close();
    if (!keep) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const { values } = parseArgs({ options: {
    verbose: { type: 'boolean', default: false },
    corpus: { type: 'string', default: 'phaser,flask,gin' },
    rankings: { type: 'string', default: 'bm25,vectors,hybrid,ripgrep' },
    keep: { type: 'string' },
  } });
  const rankings = values.rankings!.split(',') as Ranking[];
  const corpora: Record<string, Awaited<ReturnType<typeof evaluate>>> = {};
  for (const name of values.corpus!.split(',')) {
    if (!CORPORA[name]) throw new Error(`unknown corpus ${name} (${Object.keys(CORPORA).join(', ')})`);
    corpora[name] = await evaluate(name, rankings, values.verbose!, values.keep);
  }
  const first = corpora.phaser ?? Object.values(corpora)[0];
  process.stdout.write(`${JSON.stringify({ ...first, corpora, loadAverage: os.loadavg()[0] })}\n`);
}

main().catch((error) => { process.stderr.write(`${(error as Error).stack}\n`); process.exit(1); });
