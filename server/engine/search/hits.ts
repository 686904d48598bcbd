import type { SearchStore, SymbolRow } from '../store/search-store';
import type { Async } from '../store/surface';
import type { RepoRecord } from '../types';
import { EXACT_NAME, NAME_ONLY_BOOST, nameOfQuery, symbolNamed, writtenAsName, type RankedChunk } from './hybrid';
import type { QueryTerms } from './query';
import type { Highlight, SearchHit, SearchScope, Snippet } from './types';

const SNIPPET_LINES = 12;
const FUNCTION_KINDS = new Set(['function', 'method']);

/** Highlights every occurrence of the query's words (or words sharing their stem) in some lines. */
export function highlighter(terms: QueryTerms): (line: string, lineNo: number) => Highlight[] {
  const alternatives = [...new Set([...terms.words, ...terms.stems])].filter((w) => w.length >= 2)
    .sort((a, b) => b.length - a.length).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (!alternatives.length) return () => [];
  const re = new RegExp(`(?:${alternatives.join('|')})[a-z]*`, 'gi');
  return (line, lineNo) => {
    const out: Highlight[] = [];
    for (const m of line.matchAll(re)) out.push({ line: lineNo, start: m.index, end: m.index + m[0].length });
    return out;
  };
}

/** The densest window of a chunk for the query, with its highlights. */
export function chunkSnippet(content: string, startLine: number, highlight: ReturnType<typeof highlighter>): Snippet {
  const lines = content.split('\n');
  const counts = lines.map((l, i) => highlight(l, startLine + i).length);
  let best = 0;
  let bestSum = -1;
  for (let s = 0; s < Math.max(1, lines.length - SNIPPET_LINES + 1); s++) {
    let sum = 0;
    for (let i = s; i < Math.min(lines.length, s + SNIPPET_LINES); i++) sum += counts[i];
    if (sum > bestSum) { best = s; bestSum = sum; }
  }
  const window = lines.slice(best, best + SNIPPET_LINES);
  return {
    startLine: startLine + best,
    text: window.join('\n'),
    highlights: window.flatMap((l, i) => highlight(l, startLine + best + i)),
  };
}

export interface HitContext {
  store: Async<SearchStore>;
  repos: Map<string, RepoRecord>;
  terms: QueryTerms;
  /** The query as typed: a function it names exactly ranks first. */
  query?: string;
  limit: number;
  offset?: number;
  visibility?: 'public' | 'private';
  functionNames?: string[];
}

/** Whether a scope's hits include functions (their symbols are read before the hits are assembled). */
export const wantsFunctions = (scope: SearchScope) => scope === 'all' || scope === 'functions';

/** Semantic hits for a scope from fused chunks: code as is; files, functions and repositories gathered from them. */
export async function semanticHits(
  scope: SearchScope, ranked: RankedChunk[], ctx: HitContext,
): Promise<{ hits: SearchHit[]; totals: Partial<Record<SearchHit['type'], number>> }> {
  // One read of the ranked files' symbols, before any hit is made (none when no function hits are asked for).
  const fileSymbols = wantsFunctions(scope) ? await ctx.store.symbols([...new Set(ranked.map((r) => r.file.id))]) : [];
  const highlight = highlighter(ctx.terms);
  const top = ranked.length ? ranked[0].score : 1;
  const norm = (s: number) => Math.round((s / top) * 1e4) / 1e4;
  const repoName = (id: string) => ctx.repos.get(id)?.name ?? id;

  const code = (): SearchHit[] => ranked.map((r) => ({
    type: 'code', repoId: r.file.repoId, repoName: repoName(r.file.repoId), filePath: r.file.path, score: norm(r.score),
    startLine: r.chunk.startLine, endLine: r.chunk.endLine, language: r.file.language,
    snippet: chunkSnippet(r.chunk.content, r.chunk.startLine, highlight),
  }));

  const files = (): SearchHit[] => {
    const byFile = new Map<number, { r: RankedChunk; best: number; second: number; n: number }>();
    // `ranked` is best first: a file's first chunk is its best.
    for (const r of ranked) {
      const e = byFile.get(r.file.id);
      if (!e) byFile.set(r.file.id, { r, best: r.score, second: 0, n: 1 });
      else { if (e.n === 1) e.second = r.score; e.n++; }
    }
    const sorted = [...byFile.values()].map((e) => ({ ...e, score: evidence(e.best, e.second) }))
      .sort((a, b) => b.score - a.score || a.r.file.path.localeCompare(b.r.file.path));
    const best = sorted[0]?.score ?? 1;
    return sorted.map(({ r, score, n }) => ({
      type: 'file', repoId: r.file.repoId, repoName: repoName(r.file.repoId), filePath: r.file.path,
      score: Math.round((score / best) * 1e4) / 1e4, language: r.file.language, matches: n,
      startLine: r.chunk.startLine, endLine: r.chunk.endLine, snippet: chunkSnippet(r.chunk.content, r.chunk.startLine, highlight),
    }));
  };

  const functions = (): SearchHit[] => {
    const symbols = fileSymbols.filter((s) => FUNCTION_KINDS.has(s.kind) && visible(s, ctx.visibility)
      && (!ctx.functionNames?.length || ctx.functionNames.some((n) => n.toLowerCase() === s.name.toLowerCase())));
    const byFile = new Map<number, SymbolRow[]>();
    for (const s of symbols) byFile.set(s.fileId, [...(byFile.get(s.fileId) ?? []), s]);
    const scored = new Map<number, { s: SymbolRow; r: RankedChunk; score: number }>();
    const wanted = new Set(ctx.terms.stems);
    const named = ctx.query ? nameOfQuery(ctx.query) : null;
    const asName = !!ctx.query && writtenAsName(ctx.query);
    for (const r of ranked) {
      // The chunk's own bonus for defining the name asked for goes to that function, not to its neighbours.
      const base = r.exact === 2 ? r.score - EXACT_NAME : r.exact === 1 ? r.score / (1 + NAME_ONLY_BOOST) : r.score;
      for (const s of byFile.get(r.file.id) ?? []) {
        // A function is found through the chunks its body overlaps; its own name matching the query counts extra.
        if (s.endLine < r.chunk.startLine || s.startLine > r.chunk.endLine) continue;
        // Among the functions of a chunk, the one whose name, signature and doc say what the query says wins.
        let score = base * (1 + relevance(`${s.name} ${s.signature ?? ''} ${s.doc ?? ''}`, wanted));
        const level = named ? symbolNamed(named, s.name, s.parent, asName) : 0;
        if (level === 2) score += EXACT_NAME;
        else if (level === 1) score *= 1 + NAME_ONLY_BOOST;
        const prev = scored.get(s.id);
        if (!prev || prev.score < score) scored.set(s.id, { s, r, score });
      }
    }
    const sorted = [...scored.values()].sort((a, b) => b.score - a.score);
    const best = sorted[0]?.score ?? 1;
    return sorted.map(({ s, r, score }) => {
      const lines = r.chunk.content.split('\n');
      const from = Math.max(s.startLine, r.chunk.startLine);
      const to = Math.min(s.endLine, r.chunk.endLine, from + SNIPPET_LINES - 1);
      const window = lines.slice(from - r.chunk.startLine, to - r.chunk.startLine + 1);
      return {
        type: 'function', repoId: r.file.repoId, repoName: repoName(r.file.repoId), filePath: r.file.path,
        score: Math.round((score / best) * 1e4) / 1e4, startLine: s.startLine, endLine: s.endLine, language: r.file.language,
        name: s.parent ? `${s.parent}.${s.name}` : s.name, kind: s.kind, signature: s.signature, exported: s.exported,
        snippet: { startLine: from, text: window.join('\n'), highlights: window.flatMap((l, i) => highlight(l, from + i)) },
      } satisfies SearchHit;
    });
  };

  const repos = (): SearchHit[] => {
    const byRepo = new Map<string, { best: number; second: number; n: number }>();
    for (const r of ranked) {
      const e = byRepo.get(r.file.repoId);
      if (!e) byRepo.set(r.file.repoId, { best: r.score, second: 0, n: 1 });
      else { if (e.n === 1) e.second = r.score; e.n++; }
    }
    const sorted = [...byRepo].map(([id, e]) => [id, { ...e, score: evidence(e.best, e.second) }] as const)
      .sort((a, b) => b[1].score - a[1].score);
    const best = sorted[0]?.[1].score ?? 1;
    return sorted.map(([id, e]) => ({
      type: 'repo', repoId: id, repoName: repoName(id), filePath: null, score: Math.round((e.score / best) * 1e4) / 1e4, matches: e.n,
    }));
  };

  return assemble(scope, { code, files, functions, repos }, ctx.limit, ctx.offset);
}

/**
 * How much of the second-best chunk a file (or repository) adds to its best. The best evidence decides,
 * as Zoekt scores a file by its best line: summing a share of every matching chunk let a large file with
 * many weak chunks outrank the file whose one chunk is the answer (bench/search-eval.ts, docs/benchmarks.md).
 */
export const SECOND_CHUNK_SHARE = 0.1;
const evidence = (best: number, second: number) => best + SECOND_CHUNK_SHARE * second;

/** Pages each kind (`offset`, `limit`) and, for scope `all`, groups them: repositories, files, functions, then code. */
export function assemble(
  scope: SearchScope,
  make: { code: () => SearchHit[]; files: () => SearchHit[]; functions: () => SearchHit[]; repos: () => SearchHit[] },
  limit: number,
  offset = 0,
): { hits: SearchHit[]; totals: Partial<Record<SearchHit['type'], number>> } {
  const kinds: [SearchHit['type'], () => SearchHit[]][] = scope === 'all'
    ? [['repo', make.repos], ['file', make.files], ['function', make.functions], ['code', make.code]]
    : [[({ repos: 'repo', files: 'file', functions: 'function', code: 'code' } as const)[scope], make[scope]]];
  const hits: SearchHit[] = [];
  const totals: Partial<Record<SearchHit['type'], number>> = {};
  for (const [type, build] of kinds) {
    const list = build();
    totals[type] = list.length;
    const size = type === 'repo' && scope === 'all' ? Math.min(limit, 5) : limit;
    hits.push(...list.slice(offset, offset + size));
  }
  return { hits, totals };
}

/** Share of the query's stems found among the words (and identifier sub-words) of a text. */
function relevance(text: string, stems: Set<string>): number {
  if (!stems.size) return 0;
  const words = (text.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? []).map((w) => w.toLowerCase());
  let hit = 0;
  for (const st of stems) if (words.some((w) => w.startsWith(st))) hit++;
  return hit / stems.size;
}

export function visible(s: SymbolRow, visibility: 'public' | 'private' | undefined): boolean {
  return visibility === undefined || (visibility === 'public') === s.exported;
}
