/**
 * Why a search-eval question misses: for each question whose answer file is not in the first two places
 * (reciprocal rank < 0.5; every question with --all), prints the top files of the hybrid ranking, each with its
 * best chunk's BM25 rank, vector rank, similarity, chunk count, lines, role and exact-name level and the file's
 * score (best chunk + 0.1 × the second, as search/hits.ts), and the same for the expected files further down.
 *   node --import tsx bench/search-explain.ts --keep DIR [--corpus phaser|flask|gin] [--all]
 * DIR is a --keep directory of bench/search-eval.ts (the index is reused as is).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { EngineCore } from '../server/engine/core';
import { silentLogger } from '../server/engine/log';
import { newId } from '../server/engine/util/ids';
import { hybridSearch, type RankedChunk } from '../server/engine/search/hybrid';
import { FILE_ROLES, rolesAsked, fileRole } from '../server/engine/search/file-role';
import { queryTerms } from '../server/engine/search/query';
import { corpus } from './corpora';
import { debianCorpus } from './debian';
import { EVAL_QUERIES, FLASK_QUERIES, GIN_QUERIES, type EvalQuery } from './search-queries';

const SETS: Record<string, { folder: () => string; queries: EvalQuery[] }> = {
  phaser: { folder: () => corpus('phaser'), queries: EVAL_QUERIES },
  flask: { folder: () => debianCorpus('flask'), queries: FLASK_QUERIES },
  gin: { folder: () => debianCorpus('gin'), queries: GIN_QUERIES },
};

async function main() {
  const { values } = parseArgs({ options: { keep: { type: 'string' }, corpus: { type: 'string', default: 'phaser' }, all: { type: 'boolean', default: false } } });
  const name = values.corpus!;
  const set = SETS[name];
  const folder = set.folder();
  const engine = new EngineCore({ dataDir: path.join(values.keep!, name), log: silentLogger, allowedRoots: [folder] });
  try {
    const { userId } = engine.accounts.ensureOwner(newId());
    const repo = engine.repos.registerLocalFolder(userId, folder);
    await engine.queue.idle();
    await engine.vectors.idle();
    const store = engine.reads.search;
    const queries = set.queries;
    for (const q of queries) {
      const terms = queryTerms(q.query);
      const asked = rolesAsked(terms);
      const r = await hybridSearch(store, engine.vectors, q.query, terms, {
        retriever: 'hybrid', repoIds: [repo.id], allowed: null, similarityThreshold: 0, depth: 200,
        demoted: new Set(FILE_ROLES.filter((x) => !asked.has(x))),
      });
      const files: { path: string; best: RankedChunk; n: number; score: number }[] = [];
      const seen = new Map<string, (typeof files)[number]>();
      for (const c of r.ranked) {
        const e = seen.get(c.file.path);
        if (!e) { const f = { path: c.file.path, best: c, n: 1, score: c.score }; seen.set(c.file.path, f); files.push(f); } else { if (e.n === 1) e.score += 0.1 * c.score; e.n++; }
      }
      files.sort((a, b) => b.score - a.score);
      const at = files.findIndex((f) => q.answers.includes(f.path));
      if (!values.all && at >= 0 && at < 2) continue;
      const fmt = (f: (typeof files)[number], i: number) =>
        `  ${String(i + 1).padStart(3)} ${q.answers.includes(f.path) ? '*' : ' '} ${f.path}  score=${f.score.toFixed(4)} lex=${f.best.lexicalRank ?? '-'} vec=${f.best.vectorRank ?? '-'} sim=${f.best.similarity?.toFixed(3) ?? '-'} chunks=${f.n} lines=${f.best.chunk.startLine}-${f.best.chunk.endLine} role=${fileRole(f.path) ?? ''} exact=${f.best.exact ?? ''} syms=${(f.best.chunk.symbols ?? '').slice(0, 60)}`;
      process.stdout.write(`\n# ${q.query}  (answer at ${at < 0 ? 'none' : at + 1}; stems ${terms.stems.join(',')})\n`);
      files.slice(0, 6).forEach((f, i) => process.stdout.write(`${fmt(f, i)}\n`));
      for (const a of q.answers) {
        const i = files.findIndex((f) => f.path === a);
        if (i >= 6) process.stdout.write(`${fmt(files[i], i)}\n`);
        else if (i < 0) process.stdout.write(`      ${a}: not among the fused chunks\n`);
      }
    }
  } finally {
    await engine.close();
  }
}
main().catch((e) => { process.stderr.write(`${(e as Error).stack}\n`); process.exit(1); });
