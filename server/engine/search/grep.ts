import type { SearchFileRow, SearchStore, SymbolRow } from '../store/search-store';
import type { Async } from '../store/surface';
import type { RepoRecord } from '../types';
import type { GrepLine } from './grep-scan';
import type { GrepPool } from './grep-pool';
import type { GrepTask } from './grep-worker';
import { MAX_LINES_PER_FILE, planGrep, tasksOf, type GrepIndexUse, type GrepSamples } from './grep-plan';
import { assemble, visible, wantsFunctions } from './hits';
import type { GrepQuery } from './query';
import type { DocSource, SearchHit, SearchScope } from './types';
import { innermostAround } from '../util/innermost';

export interface GrepContext {
  store: Async<SearchStore>;
  pool: GrepPool;
  docs: DocSource | null;
  repos: Map<string, RepoRecord>;
  repoIds: string[];
  allowed: Map<number, SearchFileRow> | null;
  /** Files the index left out that grep_code still reads (generated, minified, oversized), in any order. */
  unindexed?: SearchFileRow[];
  limit: number;
  offset?: number;
  maxMatches: number;
  budgetMs: number;
  visibility?: 'public' | 'private';
  functionNames?: string[];
  /** Whether grep_code picks candidate files with the trigram index: when it pays (auto), always, never. */
  index?: GrepIndexUse;
  /** A sample of each repository set's files, kept between searches (see GrepSamples). */
  samples?: GrepSamples;
}

export interface GrepFileMatch { file: SearchFileRow; lines: GrepLine[] }

export interface GrepRun {
  matches: GrepFileMatch[];
  candidateFiles: number;
  scannedFiles: number;
  truncated: boolean;
  timings: { candidatesMs: number; scanMs: number };
}

const byPath = (a: SearchFileRow, b: SearchFileRow) => (a.repoId < b.repoId ? -1 : a.repoId > b.repoId ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * grep_code: the candidate files (from the trigram index, or every file: grep-plan.ts decides),
 * scanned from disk by the workers in path order (as `rg --sort path` prints them) until the line cap.
 */
export async function grepCode(q: GrepQuery, ctx: GrepContext): Promise<GrepRun> {
  let started = performance.now();
  let listed: SearchFileRow[] | null = null;
  const everyFile = async (): Promise<SearchFileRow[]> => {
    if (!listed) {
      const files = ctx.allowed ? [...ctx.allowed.values()].sort(byPath)
        : ctx.samples ? await ctx.samples.ordered(ctx.repoIds, await ctx.store.generations(ctx.repoIds), async () => (await ctx.store.files(ctx.repoIds)).sort(byPath)) as SearchFileRow[]
        : (await ctx.store.files(ctx.repoIds)).sort(byPath);
      if (!ctx.allowed) ctx.samples?.remember(ctx.repoIds, files);
      listed = files;
    }
    return listed;
  };
  const plan = await planGrep(q, ctx, everyFile);
  let candidates: SearchFileRow[];
  if (plan.lookups) {
    const ids = new Set<number>();
    // The lookups (one per list of literals, a handful) are read side by side.
    for (const found of await Promise.all(plan.lookups.map((lookup) => ctx.store.trigramFiles(ctx.repoIds, lookup)))) for (const id of found) ids.add(id);
    const known = listed as SearchFileRow[] | null;
    candidates = known ? known.filter((f) => ids.has(f.id))
      : ctx.allowed ? [...ids].map((id) => ctx.allowed!.get(id)).filter((f): f is SearchFileRow => !!f).sort(byPath)
      : (await ctx.store.filesByIds([...ids])).sort(byPath);
  } else {
    candidates = await everyFile();
  }
  // ripgrep reads every text file; the index knows nothing of these, so they are always scanned.
  if (ctx.unindexed?.length) candidates = mergeSorted(candidates, [...ctx.unindexed].sort(byPath));
  const candidatesMs = performance.now() - started;
  started = performance.now();
  // In output order, so a search that stops at the line cap has scanned everything that is kept.
  const scan = await ctx.pool.scanOrdered(plan.matcher, tasksOf(candidates, ctx), { maxLinesPerFile: MAX_LINES_PER_FILE, budgetMs: ctx.budgetMs, maxLines: ctx.maxMatches });
  const matches = collect(candidates, scan.found, ctx.maxMatches);
  return { ...matches, candidateFiles: candidates.length, scannedFiles: scan.scanned, timings: { candidatesMs, scanMs: performance.now() - started } };
}

function mergeSorted(a: SearchFileRow[], b: SearchFileRow[]): SearchFileRow[] {
  const out: SearchFileRow[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) out.push(j >= b.length || (i < a.length && byPath(a[i], b[j]) <= 0) ? a[i++] : b[j++]);
  return out;
}

/** grep_docs: the same matcher over each file's generated documentation (or, until it exists, its description and doc comments). */
export async function grepDocs(q: GrepQuery, ctx: GrepContext): Promise<GrepRun> {
  let started = performance.now();
  const files = ctx.allowed ? [...ctx.allowed.values()] : await ctx.store.files(ctx.repoIds);
  const fallback = new Map((await ctx.store.docSources(files.map((f) => f.id))).map((d) => [d.fileId, d]));
  // Every file's documentation asked for at once and awaited together (one await, not one per file).
  const docs = ctx.docs;
  const markdown = docs ? await Promise.all(files.map((f) => docs.markdown(f.repoId, f.path, 'full'))) : null;
  const tasks: GrepTask[] = [];
  files.forEach((f, key) => {
    let text = markdown?.[key] ?? null;
    if (text === null) {
      const d = fallback.get(f.id);
      text = [d?.description, d?.docs].filter(Boolean).join('\n');
    }
    if (text) tasks.push({ key, text });
  });
  const candidatesMs = performance.now() - started;
  started = performance.now();
  const found = await ctx.pool.scan(q.matcher, tasks, MAX_LINES_PER_FILE, ctx.budgetMs);
  return { ...collect(files, found, ctx.maxMatches), candidateFiles: files.length, scannedFiles: tasks.length, timings: { candidatesMs, scanMs: performance.now() - started } };
}

function collect(files: SearchFileRow[], found: Map<number, GrepLine[]>, maxMatches: number): { matches: GrepFileMatch[]; truncated: boolean } {
  const matches: GrepFileMatch[] = [];
  for (const [key, lines] of found) matches.push({ file: files[key], lines });
  matches.sort((a, b) => (a.file.repoId === b.file.repoId ? 0 : a.file.repoId < b.file.repoId ? -1 : 1) || (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0));
  let count = 0;
  let truncated = false;
  const kept: GrepFileMatch[] = [];
  for (const m of matches) {
    if (count + m.lines.length > maxMatches) {
      const rest = maxMatches - count;
      if (rest > 0) kept.push({ file: m.file, lines: m.lines.slice(0, rest) });
      truncated = true;
      break;
    }
    kept.push(m);
    count += m.lines.length;
  }
  return { matches: kept, truncated };
}

/** Grep hits for a scope: lines as code hits; files, enclosing functions and repositories ranked by how many lines matched. */
export async function grepHits(
  scope: SearchScope, run: GrepRun, ctx: GrepContext, docs: boolean,
): Promise<{ hits: SearchHit[]; totals: Partial<Record<SearchHit['type'], number>> }> {
  // One read of the matched files' symbols, before any hit is made (none when no function hits are asked for).
  const fileSymbols = wantsFunctions(scope) ? await ctx.store.symbols(run.matches.map((m) => m.file.id)) : [];
  const repoName = (id: string) => ctx.repos.get(id)?.name ?? id;
  const lineHit = (m: GrepFileMatch, l: GrepLine): SearchHit => ({
    type: 'code', repoId: m.file.repoId, repoName: repoName(m.file.repoId), filePath: m.file.path, score: 1,
    startLine: l.line, endLine: l.line, language: docs ? 'markdown' : m.file.language,
    snippet: { startLine: l.line, text: l.text, highlights: l.ranges.map(([start, end]) => ({ line: l.line, start, end })) },
  });
  const code = () => run.matches.flatMap((m) => m.lines.map((l) => lineHit(m, l)));
  const files = () => {
    const most = Math.max(1, ...run.matches.map((m) => m.lines.length));
    return [...run.matches].sort((a, b) => b.lines.length - a.lines.length).map((m): SearchHit => {
      const first = m.lines[0];
      const window = m.lines.slice(0, 5);
      return {
        type: 'file', repoId: m.file.repoId, repoName: repoName(m.file.repoId), filePath: m.file.path,
        score: Math.round((m.lines.length / most) * 1e4) / 1e4, language: m.file.language, matches: m.lines.length,
        startLine: first.line, endLine: window[window.length - 1].line,
        snippet: {
          startLine: first.line, text: window.map((l) => l.text).join('\n'),
          highlights: window.flatMap((l) => l.ranges.map(([start, end]) => ({ line: l.line, start, end }))),
        },
      };
    });
  };
  const functions = () => {
    const symbols = fileSymbols.filter((s) => (s.kind === 'function' || s.kind === 'method')
      && visible(s, ctx.visibility) && (!ctx.functionNames?.length || ctx.functionNames.some((n) => n.toLowerCase() === s.name.toLowerCase())));
    const byFile = new Map<number, SymbolRow[]>();
    for (const s of symbols) byFile.set(s.fileId, [...(byFile.get(s.fileId) ?? []), s]);
    const hits = new Map<number, { s: SymbolRow; m: GrepFileMatch; lines: GrepLine[] }>();
    for (const m of run.matches) {
      const own = byFile.get(m.file.id) ?? [];
      for (const l of m.lines) {
        // The innermost function around the line.
        const inner = innermostAround(own, l.line);
        if (!inner) continue;
        const e = hits.get(inner.id) ?? { s: inner, m, lines: [] };
        e.lines.push(l);
        hits.set(inner.id, e);
      }
    }
    const most = Math.max(1, ...[...hits.values()].map((h) => h.lines.length));
    return [...hits.values()].sort((a, b) => b.lines.length - a.lines.length).map(({ s, m, lines }): SearchHit => ({
      type: 'function', repoId: m.file.repoId, repoName: repoName(m.file.repoId), filePath: m.file.path,
      score: Math.round((lines.length / most) * 1e4) / 1e4, startLine: s.startLine, endLine: s.endLine, language: m.file.language,
      name: s.parent ? `${s.parent}.${s.name}` : s.name, kind: s.kind, signature: s.signature, exported: s.exported, matches: lines.length,
      snippet: {
        startLine: lines[0].line, text: lines.slice(0, 5).map((l) => l.text).join('\n'),
        highlights: lines.slice(0, 5).flatMap((l) => l.ranges.map(([start, end]) => ({ line: l.line, start, end }))),
      },
    }));
  };
  const repos = () => {
    const byRepo = new Map<string, number>();
    for (const m of run.matches) byRepo.set(m.file.repoId, (byRepo.get(m.file.repoId) ?? 0) + m.lines.length);
    const most = Math.max(1, ...byRepo.values());
    return [...byRepo].sort((a, b) => b[1] - a[1]).map(([id, n]): SearchHit => ({
      type: 'repo', repoId: id, repoName: repoName(id), filePath: null, score: Math.round((n / most) * 1e4) / 1e4, matches: n,
    }));
  };
  return assemble(scope, { code, files, functions, repos }, ctx.limit, ctx.offset);
}
