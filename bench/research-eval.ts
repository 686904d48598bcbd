/**
 * Research answer quality: how often the first line of a research answer names the expected place.
 *
 *   node_modules/.bin/node --import tsx bench/research-eval.ts [--verbose] [--corpus hono|flask] [--assist URL]
 *
 * Indexes hono@4.13.19 (npm) and Flask 2.2.2 (Debian python3-flask 2.2.2-3), both pinned and cached by
 * test/helpers/real-code.ts, asks each question of bench/research-questions.ts through the research
 * operation (POST /v2/search with chat: true, the built-in model) and checks the answer's first line:
 * it must name the expected symbol and cite `path:line` in the expected file, inside that symbol's
 * definition. Reports first-line precision overall, on the held-out part and per project, and the
 * median time to the first chunk. Prints a JSON summary on the last line.
 *
 * --assist turns on model-assisted retrieval (query expansion and rerank) with an OpenAI-compatible
 * server on 127.0.0.1 that returns fixed expansions (bench/fixed-expansions-server.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { EngineCore, type EngineConfig } from '../server/engine/core';
import { silentLogger } from '../server/engine/log';
import { newId } from '../server/engine/util/ids';
import { debianPackage, npmPackage } from '../test/helpers/real-code';
import { RESEARCH_QUESTIONS, samePlace, type ResearchQuestion } from './research-questions';
import { EXPANSIONS, startFixedModel } from './fixed-expansions-server';

export const HONO_SPEC = 'hono@4.13.19';
export const FLASK_DEB = ['python3-flask', '2.2.2-3'] as const;

/** The folder each project is indexed from (a copy for flask: the unpacked package holds more than flask). */
export function corpusFolder(corpus: ResearchQuestion['corpus']): string {
  if (corpus === 'hono') return npmPackage(HONO_SPEC);
  const source = path.join(debianPackage(...FLASK_DEB), 'usr/lib/python3/dist-packages/flask');
  return source;
}

/** The answer's first line: the first non-empty line, past a leading italic notice if one comes first. */
export function firstLine(answer: string): string {
  const lines = answer.split('\n').map((l) => l.trim()).filter(Boolean);
  return (/^_.*_$/.test(lines[0] ?? '') ? lines[1] : lines[0]) ?? '';
}

export interface Verdict { right: boolean; cited: string | null }

type Symbols = (corpus: ResearchQuestion['corpus'], filePath: string) => { name: string; startLine: number; endLine: number }[];

/** Whether a first line names one of the expected places: the symbol, and a citation inside its definition. */
export function judge(q: ResearchQuestion, line: string, symbolsOf: Symbols): Verdict {
  const cites = [...line.matchAll(/([\w./@$-]+\.[a-z]+):(\d+)/g)].map((m) => ({ path: m[1], line: Number(m[2]) }));
  const cited = cites[0] ? `${cites[0].path}:${cites[0].line}` : null;
  for (const e of q.expect) {
    const named = new RegExp(`(^|[^\\w$#])${e.symbol.replace(/[$#]/g, '\\$&')}([^\\w$]|$)`).test(line);
    if (!named) continue;
    for (const c of cites.slice(0, 1)) {
      if (!samePlace(q.corpus, c.path, e.file)) continue;
      const defs = symbolsOf(q.corpus, c.path).filter((s) => s.name === e.symbol);
      if (defs.some((s) => s.startLine <= c.line && c.line <= s.endLine)) return { right: true, cited };
    }
  }
  return { right: false, cited };
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : 0; };
const p95 = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)] : 0; };
const ratio = (xs: boolean[]) => (xs.length ? Math.round((xs.filter(Boolean).length / xs.length) * 1000) / 1000 : 0);

async function main() {
  const { values } = parseArgs({ options: {
    verbose: { type: 'boolean', default: false }, corpus: { type: 'string' }, assist: { type: 'boolean', default: false }, data: { type: 'string' },
  } });
  const corpora = (values.corpus ? [values.corpus] : ['hono', 'flask']) as ResearchQuestion['corpus'][];
  const rows: { q: ResearchQuestion; right: boolean; firstChunkMs: number; searchMs: number; words: number }[] = [];
  for (const corpus of corpora) {
    // --data DIR keeps each index between runs (DIR/<corpus>); without it a temporary one is removed.
    const dataDir = values.data ? path.join(values.data, corpus) : fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-research-eval-'));
    const folder = corpusFolder(corpus);
    const config: EngineConfig = { dataDir, log: silentLogger, allowedRoots: [folder] };
    const model = values.assist ? await startFixedModel(EXPANSIONS[corpus]) : null;
    if (model) config.research = { openai: { baseUrl: model.baseUrl, models: ['assist-1'] }, retrieval: { model: 'assist-1' } };
    const engine = new EngineCore(config);
    try {
      const key = newId();
      engine.accounts.ensureOwner(key);
      const caller = await engine.ops.auth.caller({ apiKey: key });
      const repo = engine.repos.registerLocalFolder(caller.userId, folder);
      await engine.queue.idle();
      await engine.vectors.idle();
      const store = engine.storage.research;
      const symbolsOf: Symbols = (_c, filePath) => {
        const row = store.file(repo.id, filePath);
        return row ? store.symbols(row.id) : [];
      };
      for (const q of RESEARCH_QUESTIONS.filter((x) => x.corpus === corpus)) {
        // The search alone first (what the first chunk waits for besides grounding), then the research call.
        const s0 = performance.now();
        await engine.search.search(caller.userId, { query: q.question });
        const searchMs = performance.now() - s0;
        const t0 = performance.now();
        const run = await engine.ops.search.research(caller, { query: q.question, chat: true } as never);
        let answer = '';
        let firstChunkMs = 0;
        for await (const event of run.events(new AbortController().signal)) {
          if (event.type === 'chunk') {
            if (!answer) firstChunkMs = performance.now() - t0;
            answer += event.text;
          }
        }
        const line = firstLine(answer);
        const verdict = judge(q, line, symbolsOf);
        rows.push({ q, right: verdict.right, firstChunkMs, searchMs, words: answer.split(/\s+/).filter(Boolean).length });
        if (values.verbose) {
          process.stderr.write(`${verdict.right ? 'ok  ' : 'MISS'} ${q.heldOut ? '[held] ' : ''}${corpus}: ${q.question}\n      ${line.slice(0, 220)}\n`);
          if (!verdict.right) process.stderr.write(`      expected ${q.expect.map((e) => `${e.symbol} in ${e.file}`).join(' | ')}\n`);
        }
      }
    } finally {
      await engine.close();
      await model?.close();
      if (!values.data) fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const part = (f: (r: (typeof rows)[number]) => boolean) => ratio(rows.filter(f).map((r) => r.right));
  const summary = {
    questions: rows.length, heldOutQuestions: rows.filter((r) => r.q.heldOut).length,
    firstLineRight: part(() => true), tuned: part((r) => !r.q.heldOut), heldOut: part((r) => !!r.q.heldOut),
    hono: part((r) => r.q.corpus === 'hono'), flask: part((r) => r.q.corpus === 'flask'),
    firstChunkMsMedian: Math.round(median(rows.map((r) => r.firstChunkMs)) * 10) / 10,
    firstChunkMsP95: Math.round(p95(rows.map((r) => r.firstChunkMs)) * 10) / 10,
    searchMsMedian: Math.round(median(rows.map((r) => r.searchMs)) * 10) / 10,
    researchShareMsMedian: Math.round(median(rows.map((r) => r.firstChunkMs - r.searchMs)) * 10) / 10,
    wordsMedian: median(rows.map((r) => r.words)), assist: !!values.assist, load: os.loadavg()[0].toFixed(2),
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

if (require.main === module) main().catch((error) => { process.stderr.write(`${(error as Error).stack}\n`); process.exit(1); });
