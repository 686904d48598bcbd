/**
 * Search quality with the queries of bench/search-queries.ts, on phaser@3.90.0 src/ and the held-out
 * Flask 2.2.2 (Python) and gin 1.8.1 (Go) sets from Debian, and the held-out sinatra 3.0.5 (Ruby) and cobra 1.6.1 (Go) ones:
 *   node --import tsx bench/search-eval.ts [--verbose] [--corpus phaser,flask,gin,phaser-heldout,sinatra,cobra] [--rankings hybrid,bm25,vectors,ripgrep,assisted] [--keep DIR] [--backend sqlite|pg|both]
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
 *
 * `--backend pg` asks the same questions of a team server (issue 20): a private PostgreSQL cluster (Debian's, as the
 * tests start it), a real index worker (`server/worker.ts`) that indexes the corpus and builds its vectors, and an
 * engine in this process reading that database as an API node does (`openPgStorage`). `both` runs SQLite, then
 * PostgreSQL, and prints each retriever's MRR@10 difference (the bar: within 0.02).
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
import { debianCorpus, debianPackage } from './debian';
import { EVAL_QUERIES, FLASK_QUERIES, GIN_QUERIES, type EvalQuery, type HeldOutQuery } from './search-queries';
import { COBRA_QUERIES, PHASER_HELDOUT, SINATRA_QUERIES } from './search-queries-heldout';
import { startFixedModel, type FixedModel } from './fixed-expansions-server';
import { openPgStorage } from '../server/engine/store/pg/storage';
import { indexThroughTeam, startTeamServer, type TeamServer } from '../test/helpers/team-server';

/** The oracle expansion of a query: its answer's own name (see the header). */
const oracleExpansion = (q: HeldOutQuery): string[] =>
  [q.symbol ? q.symbol.split('.').pop()! : q.answers[0].slice(q.answers[0].lastIndexOf('/') + 1).replace(/\.[^.]*$/, '')];

const K = 10;

export interface Metrics { mrr: number; recall: number; success: number }
export type Backend = 'sqlite' | 'pg';

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

export const CORPORA: Record<string, { label: string; folder: () => string; queries: EvalQuery[]; index?: string }> = {
  phaser: { label: 'phaser@3.90.0 src', folder: () => corpus('phaser'), queries: EVAL_QUERIES },
  // The held-out phaser questions (bench/search-queries-heldout.ts) on the same index as phaser's.
  'phaser-heldout': { label: 'phaser@3.90.0 src, held-out questions', folder: () => corpus('phaser'), queries: PHASER_HELDOUT, index: 'phaser' },
  flask: { label: 'Flask 2.2.2 (Debian python3-flask=2.2.2-3)', folder: () => debianCorpus('flask'), queries: FLASK_QUERIES },
  gin: { label: 'gin 1.8.1 (Debian golang-github-gin-gonic-gin-dev=1.8.1-1)', folder: () => debianCorpus('gin'), queries: GIN_QUERIES },
  // Held-out questions in words on Ruby and Go (bench/search-queries-heldout.ts).
  sinatra: {
    label: 'sinatra 3.0.5 (Debian ruby-sinatra=3.0.5-3+deb12u1)', queries: SINATRA_QUERIES,
    folder: () => path.join(debianPackage('ruby-sinatra=3.0.5-3+deb12u1'), 'usr/share/rubygems-integration/all/gems/sinatra-3.0.5'),
  },
  cobra: {
    label: 'cobra 1.6.1 (Debian golang-github-spf13-cobra-dev=1.6.1-1)', queries: COBRA_QUERIES,
    folder: () => path.join(debianPackage('golang-github-spf13-cobra-dev=1.6.1-1'), 'usr/share/gocode/src/github.com/spf13/cobra'),
  },
};

export type Ranking = 'bm25' | 'vectors' | 'hybrid' | 'ripgrep' | 'assisted';
const RETRIEVER: Record<Exclude<Ranking, 'ripgrep' | 'assisted'>, Retriever> = { bm25: 'lexical', vectors: 'vector', hybrid: 'hybrid' };

/** An index of one folder to ask questions of: the embedded engine's SQLite, or a team server's PostgreSQL. */
interface Searcher {
  /** The embedding model that served the last vector side (from the search outcome). */
  embedding: { model: string; dims: number } | null;
  rank(query: string, retriever: Retriever): Promise<string[]>;
  /** The hybrid with model-assisted retrieval (SQLite only: the fixed model runs beside this engine). */
  assisted?(query: string): Promise<string[]>;
  close(): Promise<void>;
}

async function sqliteSearcher(folder: string, dataDir: string, model: FixedModel | null): Promise<Searcher> {
  const engine = new EngineCore({
    dataDir, log: silentLogger, allowedRoots: [folder],
    ...(model ? { research: { openai: { baseUrl: model.baseUrl, models: ['assist-1'] }, retrieval: { model: 'assist-1' } } } : {}),
  });
  try {
    const { userId } = engine.accounts.ensureOwner(newId());
    const repo = engine.repos.registerLocalFolder(userId, folder);
    await engine.queue.idle();
    await engine.vectors.idle();
    const searcher: Searcher = {
      embedding: null,
      rank: async (q, retriever) => {
        const outcome = await engine.search.search(userId, { query: q, scope: 'files', limit: K, retriever });
        searcher.embedding = outcome.embedding ?? searcher.embedding;
        return outcome.results.map((h) => h.filePath!);
      },
      assisted: async (q) => {
        const { outcome } = await engine.research.assist!.search({ query: q, scope: 'files', limit: K }, [repo.id], (r) => engine.search.search(userId, r));
        return outcome.results.map((h) => h.filePath!);
      },
      close: () => engine.close(),
    };
    return searcher;
  } catch (error) {
    await engine.close();
    throw error;
  }
}

/**
 * The folder indexed by a team server's worker into a private PostgreSQL (vectors and docs included: the
 * repository is `ready` once its derived indexes are built), searched by an engine over that database.
 */
async function pgSearcher(folder: string, dataDir: string): Promise<Searcher> {
  const team: TeamServer = await startTeamServer();
  let engine: EngineCore | null = null;
  try {
    const node = await team.node('eval', { allow: [folder] });
    await team.worker();
    const repoId = await indexThroughTeam(team, node.base, folder, 1_200_000);
    const storage = await openPgStorage(team.url, silentLogger);
    engine = new EngineCore({ dataDir, log: silentLogger, allowedRoots: [folder], accountStorage: storage, indexReads: storage });
    // As an API node does for each request: the key authenticated, so the access rule knows the caller is the owner.
    const { userId } = await engine.accounts.authenticateAsync(team.key);
    const e = engine;
    const searcher: Searcher = {
      embedding: null,
      rank: async (q, retriever) => {
        // The search service's default scope is the embedded engine's own repositories: name the team's.
        const outcome = await e.search.search(userId, { query: q, scope: 'files', limit: K, retriever, repoIds: [repoId] });
        searcher.embedding = outcome.embedding ?? searcher.embedding;
        return outcome.results.map((h) => h.filePath!);
      },
      close: async () => { await e.close(); await team.stop(); },
    };
    return searcher;
  } catch (error) {
    await engine?.close();
    await team.stop();
    throw error;
  }
}

/** MRR@10, Recall@10 and Success@10 of every ranking asked for, over one corpus, on one backend. */
export async function evaluate(name: string, rankings: Ranking[], options: { verbose?: boolean; keep?: string; backend?: Backend } = {}) {
  const { label, folder: folderOf, queries, index } = CORPORA[name];
  const { verbose = false, keep, backend = 'sqlite' } = options;
  if (backend === 'pg' && (rankings.includes('assisted') || keep)) throw new Error('--backend pg takes neither the assisted ranking nor --keep');
  const folder = folderOf();
  // --keep DIR: the index is kept in DIR/<corpus> and reused by the next run (ranking changes need no re-index).
  const dataDir = keep ? path.join(keep, index ?? name) : fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-search-eval-'));
  fs.mkdirSync(dataDir, { recursive: true });
  let model: FixedModel | null = null;
  let searcher: Searcher | null = null;
  try {
    if (rankings.includes('assisted')) model = await startFixedModel(Object.fromEntries(queries.map((q) => [q.query, oracleExpansion(q)])));
    searcher = backend === 'pg' ? await pgSearcher(folder, dataDir) : await sqliteSearcher(folder, dataDir, model);
    const s = searcher;
    const results: Partial<Record<Ranking, string[][]>> = Object.fromEntries(rankings.map((k) => [k, []]));
    for (const q of queries) {
      for (const k of rankings) {
        results[k]!.push(k === 'ripgrep' ? ripgrepRanking(folder, q.query) : k === 'assisted' ? await s.assisted!(q.query) : await s.rank(q.query, RETRIEVER[k]));
      }
      if (verbose) {
        const at = (list: string[]) => { const i = list.slice(0, K).findIndex((p) => q.answers.includes(p)); return i < 0 ? '-' : String(i + 1); };
        const line = rankings.map((k) => `${k} ${at(results[k]![results[k]!.length - 1])}`).join(' ');
        const top = rankings.includes('hybrid') ? ` [${results.hybrid![results.hybrid!.length - 1].slice(0, 3).join(', ')}]` : '';
        process.stderr.write(`${name} (${backend}): ${q.query}: ${line}${top}\n`);
      }
    }
    const byKind = (kind: EvalQuery['kind']) => {
      const idx = queries.map((q, i) => (q.kind === kind ? i : -1)).filter((i) => i >= 0);
      return Object.fromEntries(Object.entries(results).map(([k, v]) => [k, score(idx.map((i) => v[i]), idx.map((i) => queries[i]))]));
    };
    return {
      corpus: label, backend, queries: queries.length,
      paraphrased: queries.filter((q) => q.kind === 'paraphrase').length,
      model: s.embedding?.model ?? null, dims: s.embedding?.dims ?? null,
      ...(model ? { assistRequests: model.requests.length } : {}),
      all: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, score(v, queries)])) as Partial<Record<Ranking, Metrics>>,
      paraphrase: byKind('paraphrase'),
    };
  } finally {
    await searcher?.close();
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
    backend: { type: 'string', default: 'sqlite' },
  } });
  const rankings = values.rankings!.split(',') as Ranking[];
  if (!['sqlite', 'pg', 'both'].includes(values.backend!)) throw new Error(`--backend is sqlite, pg or both, not ${values.backend}`);
  const backends: Backend[] = values.backend === 'both' ? ['sqlite', 'pg'] : [values.backend as Backend];
  const runs: Record<string, Partial<Record<Backend, Awaited<ReturnType<typeof evaluate>>>>> = {};
  for (const name of values.corpus!.split(',')) {
    if (!CORPORA[name]) throw new Error(`unknown corpus ${name} (${Object.keys(CORPORA).join(', ')})`);
    runs[name] = {};
    for (const backend of backends) runs[name][backend] = await evaluate(name, rankings, { verbose: values.verbose, keep: values.keep, backend });
  }
  const corpora = Object.fromEntries(Object.entries(runs).map(([name, r]) => [name, r[backends[0]]!]));
  // With both backends: PostgreSQL's MRR@10 minus SQLite's, per corpus and ranking.
  const mrrDelta = backends.length === 2 ? Object.fromEntries(Object.entries(runs).map(([name, r]) => [name, Object.fromEntries(
    rankings.filter((k) => r.pg!.all[k]).map((k) => [k, round(r.pg!.all[k]!.mrr - r.sqlite!.all[k]!.mrr)]))])) : undefined;
  const first = corpora.phaser ?? Object.values(corpora)[0];
  process.stdout.write(`${JSON.stringify({ ...first, corpora, ...(mrrDelta ? { pg: Object.fromEntries(Object.entries(runs).map(([n, r]) => [n, r.pg])), mrrDelta } : {}), loadAverage: os.loadavg()[0] })}\n`);
}

if (require.main === module) main().catch((error) => { process.stderr.write(`${(error as Error).stack}\n`); process.exit(1); });
