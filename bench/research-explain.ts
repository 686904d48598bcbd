/**
 * Why the research answer's first line names what it names: for each question of the research set, the
 * lead candidates best first with their features (lead.ts), and where the expected place stands.
 *
 *   node_modules/.bin/node --import tsx bench/research-explain.ts --data DIR [--corpus hono|flask] [--misses] [--held] [--top 8] [--match WORDS]
 *
 * DIR is the index kept by `bench/research-eval.ts --data DIR`. By default only the tuning part is
 * explained (held-out questions are for measuring, not for reading); --held adds them.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { EngineCore } from '../server/engine/core';
import { silentLogger } from '../server/engine/log';
import { newId } from '../server/engine/util/ids';
import { leadCandidates, type ResearchHit } from '../server/engine/research/grounding';
import { isBenchPath, leadFeatures, leadScore, readQuestion } from '../server/engine/research/lead';
import { isTestPath } from '../server/engine/analysis/entry-points';
import { RESEARCH_QUESTIONS, samePlace, type ResearchQuestion } from './research-questions';
import { corpusFolder } from './research-eval';

async function main() {
  const { values } = parseArgs({ options: {
    data: { type: 'string' }, corpus: { type: 'string' }, misses: { type: 'boolean', default: false }, held: { type: 'boolean', default: false },
    top: { type: 'string', default: '8' }, match: { type: 'string' },
  } });
  if (!values.data) throw new Error('--data DIR is required (the index kept by research-eval --data DIR)');
  const corpora = (values.corpus ? [values.corpus] : ['hono', 'flask']) as ResearchQuestion['corpus'][];
  for (const corpus of corpora) {
    const folder = corpusFolder(corpus);
    const engine = new EngineCore({ dataDir: path.join(values.data, corpus), log: silentLogger, allowedRoots: [folder] });
    try {
      const key = newId();
      engine.accounts.ensureOwner(key);
      const caller = await engine.ops.auth.caller({ apiKey: key });
      engine.repos.registerLocalFolder(caller.userId, folder);
      await engine.queue.idle();
      const store = engine.storage.research;
      const read = (repoId: string, p: string) => { const row = store.file(repoId, p); return row ? { row, symbols: store.symbols(row.id) } : null; };
      for (const q of RESEARCH_QUESTIONS.filter((x) => x.corpus === corpus && (values.held || !x.heldOut))) {
        if (values.match && !q.question.includes(values.match)) continue;
        const outcome = await engine.search.search(caller.userId, { query: q.question });
        const qw = readQuestion(q.question);
        const hits: ResearchHit[] = outcome.results.filter((h) => !!h.filePath).map((h) => ({
          repoId: h.repoId, repoName: h.repoName, filePath: h.filePath!, startLine: h.startLine ?? null, endLine: h.endLine ?? null, score: h.score,
          ...(h.type === 'function' && h.name ? { name: h.name } : {}),
        })).filter((h) => qw.wantsTests || !(isTestPath(h.filePath) || isBenchPath(h.filePath)));
        const candidates = leadCandidates(hits, read, [], (repoId, p) => { const row = store.file(repoId, p); return row ? store.lines(row.id, 1, row.lines) : null; },
          (repoId, p) => store.importersOf(repoId, [p], 500));
        const scored = leadFeatures(qw, candidates, q.question).map((x) => ({ ...x, score: leadScore(x.features) })).sort((a, b) => b.score - a.score);
        const isExpected = (c: (typeof candidates)[number]) => q.expect.some((e) => e.symbol === c.symbol.name && samePlace(corpus, c.path, e.file));
        const right = scored.length > 0 && isExpected(scored[0].candidate);
        if (values.misses && right) continue;
        const show = (x: (typeof scored)[number], i: number) => {
          const c = x.candidate; const f = x.features;
          const name = c.symbol.parent ? `${c.symbol.parent}.${c.symbol.name}` : c.symbol.name;
          return `  ${String(i + 1).padStart(3)} ${x.score.toFixed(2).padStart(6)} ${isExpected(c) ? '*' : ' '} ${name} (${c.symbol.kind}) ${c.path}:${c.symbol.startLine}`
            + `  name=${f.inName.toFixed(2)}/${f.nameHits} path=${f.inPath} text=${f.inText} cov=${f.covered.toFixed(2)} kind=${f.kind} file=${f.fileRank} hit=${f.hitRank ?? '-'}`
            + ` calls=${f.callers} imp=${f.importers}${f.accessor ? " ACC" : ""}${f.stub ? ' STUB' : ''}${f.registrar ? ' REG' : ''}${f.deprecated ? ' DEPR' : ''}${f.container ? ' container' : ''}${f.declaration ? ' decl' : ''}${f.test ? ' test' : ''}${f.error ? ' error' : ''}`;
        };
        process.stdout.write(`${right ? 'ok  ' : 'MISS'} ${q.heldOut ? '[held] ' : ''}${corpus}: ${q.question}  (words: ${qw.words.filter((w) => !w.startsWith('\u0000')).join(' ')})\n`);
        scored.slice(0, Number(values.top)).forEach((x, i) => process.stdout.write(`${show(x, i)}\n`));
        const at = scored.findIndex((x) => isExpected(x.candidate));
        if (at >= Number(values.top)) process.stdout.write(`${show(scored[at], at)}\n`);
        else if (at < 0) {
          const fileAt = outcome.results.findIndex((h) => h.type === 'file' && q.expect.some((e) => samePlace(corpus, h.filePath!, e.file)));
          const fnAt = outcome.results.filter((h) => h.type === 'function').findIndex((h) => q.expect.some((e) => samePlace(corpus, h.filePath!, e.file) && h.name!.replace(/^.*\./, '') === e.symbol));
          process.stdout.write(`    expected not a candidate (file hit index ${fileAt}, function hit ${fnAt}; ${candidates.length} candidates)\n`);
        }
      }
    } finally {
      await engine.close();
    }
  }
}

main().catch((error) => { process.stderr.write(`${(error as Error).stack}\n`); process.exit(1); });
