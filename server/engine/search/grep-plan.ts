import type { SearchFileRow } from '../store/search-store';
import type { GrepMatcher } from './grep-scan';
import type { GrepContext } from './grep';
import type { GrepTasks } from './grep-pool';
import type { GrepQuery } from './query';
import { needlesOf } from './regex-plan';

/**
 * How grep_code finds its files: with the trigram index, or by scanning every file in path order.
 *
 * The index is not free: a lookup intersects the doclists of every trigram of its literals, which for
 * a literal in most files costs about a quarter of scanning the files it proposes. So on a large
 * repository a spread-out sample of files is scanned first. It tells, per literal, how many files hold
 * it: each list of literals is looked up by its rarest one alone (one rare literal selects about as
 * well as several, for less work), and the lookups are made only if the files they would spare a full
 * scan cost more than the files they would return. Lines per file in the sample tell how soon a full
 * scan reaches the line cap: a query whose literals are in most files (`@since 3.`) scans from the top.
 */

export interface GrepPlan {
  /** Index lookups (each a list of lower-case literals a chunk must all contain); null: scan every file. */
  lookups: string[][] | null;
  /** The matcher to scan with (its needles may have been chosen from the sample). */
  matcher: GrepMatcher;
}

export type GrepIndexUse = 'auto' | 'always' | 'never';

/** Below this many files the index is used without a sample: at worst it costs a few milliseconds. */
const SAMPLE_MIN_FILES = 2000;
/** Files in a sample. */
const SAMPLE_FILES = 48;
/** What the index costs per file it proposes, relative to scanning that file (measured on phaser ×4). */
const LOOKUP_COST = 0.25;

/**
 * A spread-out sample of the files of each repository set searched lately. It only steers the plan:
 * a stale sample (files renamed or deleted since) makes it less informed, never an answer wrong.
 */
export class GrepSamples {
  private bySet = new Map<string, { files: SearchFileRow[]; total: number }>();
  private listing: { key: string; files: readonly SearchFileRow[] } | null = null;

  /**
   * Every file of a repository set in path order. Listing and sorting 8,000 files takes several
   * milliseconds, a third of a broad grep; the last listing is kept while `version` (the
   * repositories' generations, bumped by every write to their files) is unchanged.
   */
  async ordered(repoIds: string[], version: number[], load: () => Promise<SearchFileRow[]>): Promise<readonly SearchFileRow[]> {
    const key = `${repoIds.join(',')}@${version.join(',')}`;
    if (this.listing?.key === key) return this.listing.files;
    const files = await load();
    this.listing = { key, files };
    return files;
  }

  get(repoIds: string[]) { return this.bySet.get(repoIds.join(',')); }
  remember(repoIds: string[], ordered: SearchFileRow[]): void {
    const key = repoIds.join(',');
    this.bySet.delete(key);
    this.bySet.set(key, { files: spread(ordered, SAMPLE_FILES), total: ordered.length });
    if (this.bySet.size > 32) this.bySet.delete(this.bySet.keys().next().value!);
  }
}

const spread = <T>(items: T[], n: number): T[] => (items.length <= n
  ? items : Array.from({ length: n }, (_, i) => items[Math.floor(((i + 0.5) * items.length) / n)]));

/** The files as worker tasks, made as the pool hands them out; the key of a task is its file's position. */
export function tasksOf(files: SearchFileRow[], ctx: GrepContext): GrepTasks {
  return {
    count: files.length,
    at(key) {
      const f = files[key];
      const repo = ctx.repos.get(f.repoId);
      return repo ? { key, root: repo.rootPath, path: f.path } : null;
    },
  };
}

/** Lines kept per file: a file of a million matching lines must not hold the rest of the search up. */
export const MAX_LINES_PER_FILE = 10000;

export async function planGrep(q: GrepQuery, ctx: GrepContext, everyFile: () => Promise<SearchFileRow[]>): Promise<GrepPlan> {
  const policy = ctx.index ?? 'auto';
  if (!q.literals || policy === 'never') return { lookups: null, matcher: q.matcher };
  const multiline = q.matcher.kind === 'regex' && q.matcher.multiline;
  // A match lies within a line, so within one chunk, and a lookup may ask for several literals at
  // once; in multi-line mode it takes one (each literal lies within a line) and the scan checks the rest.
  const whole = dedupe(q.literals.map((t) => (multiline ? t.slice(0, 1) : t).map((l) => l.toLowerCase())));
  if (policy === 'always') return { lookups: whole, matcher: q.matcher };
  const known = ctx.allowed ? undefined : ctx.samples?.get(ctx.repoIds);
  const total = known?.total ?? (await everyFile()).length;
  if (total < SAMPLE_MIN_FILES) return { lookups: whole, matcher: q.matcher };

  const literals = [...new Set(q.literals.flat().map((l) => l.toLowerCase()))];
  const sample = await ctx.pool.scanOrdered(q.matcher, tasksOf(known?.files ?? spread(await everyFile(), SAMPLE_FILES), ctx),
    { maxLinesPerFile: MAX_LINES_PER_FILE, budgetMs: ctx.budgetMs, literals, oneBatch: true });
  const read = sample.contains.length;
  if (!read) return { lookups: whole, matcher: q.matcher };
  const holding = literals.map(() => 0);
  for (const c of sample.contains) for (const i of c) holding[i]++;
  // Each list by its rarest literal (the longest among equals).
  const rarest = q.literals.map((term) => term.reduce((best, l) => {
    const d = holding[literals.indexOf(l.toLowerCase())] - holding[literals.indexOf(best.toLowerCase())];
    return d < 0 || (d === 0 && l.length > best.length) ? l : best;
  }));
  const chosen = [...new Set(rarest.map((l) => literals.indexOf(l.toLowerCase())))];
  const returned = sample.contains.filter((c) => chosen.some((i) => c.includes(i))).length;
  const proposed = chosen.reduce((n, i) => n + holding[i], 0);
  let lines = 0;
  for (const l of sample.found.values()) lines += l.length;
  // Files a full scan reads before it holds the lines the search keeps (an index scan stops there too).
  const reach = lines > 0 ? Math.min(total, (ctx.maxMatches * read) / lines) : total;
  const lookupCost = LOOKUP_COST * (proposed / read) * total;
  const spared = (1 - returned / read) * reach;
  const matcher: GrepMatcher = q.matcher.kind === 'regex' && q.matcher.needles
    ? { ...q.matcher, needles: needlesOf(rarest.map((l) => [l])) } : q.matcher;
  return { lookups: lookupCost < spared ? chosen.map((i) => [literals[i]]) : null, matcher };
}

function dedupe(lists: string[][]): string[][] {
  const byKey = new Map<string, string[]>();
  for (const list of lists) {
    const sorted = [...new Set(list)].sort();
    byKey.set(sorted.join('\0'), sorted);
  }
  return [...byKey.values()];
}
