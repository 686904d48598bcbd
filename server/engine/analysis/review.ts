import { LoupeError } from '../errors';
import { git } from '../repos/git';
import type { RepoRecord } from '../types';
import type { AnalysisContext } from './context';
import { headKey } from './co-change';
import { isTestPath } from './entry-points';
import { resolvePullRequest, type ResolvedPullRequest } from './pull-requests';
import { decisionPoints, exportedNames } from './references';
import { librariesOf } from './testing-libraries';

export interface ReviewOptions { files: string[]; pr?: number; base?: string; /** The caller's GitHub token. */ githubToken?: string }

type Risk = 'none' | 'low' | 'medium' | 'high';

export interface ReviewFile {
  file_path: string;
  found: boolean;
  reason?: string;
  risk: Risk;
  score: number;
  signals: {
    dependents: number; direct_dependents: number; entry_points: number; churn: number | null; complexity: number; lines: number;
    tested: boolean; tests: string[]; public_api: { added: string[]; removed: string[]; base: string } | null;
  };
  reasons: string[];
}

export interface ReviewResult {
  source: 'files' | 'pull_request';
  pull_request?: { number: number; source: string; detail: string };
  summary: { files: number; reviewed: number; risk: Risk; max_score: number; untested: number; api_changes: number };
  files: ReviewFile[];
}

const riskOf = (score: number): Risk => (score >= 60 ? 'high' : score >= 30 ? 'medium' : score > 0 ? 'low' : 'none');
/** 0 → 0, `full` → cap, logarithmic between: the tenth dependent matters more than the thousandth. */
const scaled = (value: number, full: number, cap: number) => Math.min(cap, Math.round((Math.log1p(value) / Math.log1p(full)) * cap));

/**
 * Code-review signals for a change (a list of files or a pull request): per file, how far a change
 * reaches (radius, entry points), how often it changes (churn), how complex it is, whether any test
 * reaches it, and which exported names it adds or removes against the base revision.
 */
export async function review(ctx: AnalysisContext, repo: RepoRecord, o: ReviewOptions): Promise<ReviewResult> {
  let pr: ResolvedPullRequest | undefined;
  // A revision starting with '-' would reach git as an option.
  if (o.base !== undefined && !/^[A-Za-z0-9._/^~][A-Za-z0-9._/^~-]*$/.test(o.base)) {
    throw new LoupeError('VALIDATION_FAILED', 'base: must be a revision (letters, digits, . _ / ^ ~ -, not starting with -)', { field: 'base' });
  }
  let files = o.files;
  if (files.length === 0) {
    if (o.pr === undefined) throw new LoupeError('VALIDATION_FAILED', 'files: give files or pr', { field: 'files' });
    pr = await resolvePullRequest(repo, o.pr, { ...ctx.pullRequests, githubToken: o.githubToken });
    files = pr.files;
  }
  const graph = await ctx.graph(repo.id);
  const entries = await ctx.entries(repo.id, graph);
  const churn = await ctx.history.churn(repo.rootPath);
  const base = pr ? pr.base : (o.base ?? 'HEAD');
  const out: ReviewFile[] = [];
  /** Files a tool wrote (their untested state is not counted). */
  const byTools = new Set<string>();
  for (const raw of [...new Set(files)]) {
    const file = raw.replace(/\\/g, '/').replace(/^\.\//, '');
    const index = graph.indexOfPath.get(file);
    if (index === undefined) {
      out.push({
        file_path: file, found: false, reason: 'not in the index (deleted, ignored or not source)', risk: 'none', score: 0, reasons: [],
        signals: { dependents: 0, direct_dependents: 0, entry_points: 0, churn: churn?.get(file) ?? null, complexity: 0, lines: 0, tested: false, tests: [], public_api: null },
      });
      continue;
    }
    const deps = graph.dependents([index]);
    const reached = new Set([index, ...deps.map((d) => d.file)]);
    const reachingEntries = entries.filter((e) => reached.has(e.file));
    const tests = reachingEntries.filter((e) => e.kind === 'test').map((e) => graph.path(e.file));
    const isTest = isTestPath(file, librariesOf(graph));
    const text = (await ctx.store.fileText(repo.id, file)) ?? '';
    const complexity = decisionPoints(text);
    const api = await publicApiChange(repo.rootPath, file, text, base, pr?.head);
    const signals: ReviewFile['signals'] = {
      dependents: deps.length,
      direct_dependents: deps.filter((d) => d.depth === 1).length,
      entry_points: reachingEntries.filter((e) => e.kind !== 'test').length,
      churn: churn?.get(file) ?? null,
      complexity,
      lines: graph.files[index].lines,
      tested: isTest || tests.length > 0,
      tests: tests.slice(0, 10),
      public_api: api,
    };
    const reasons: string[] = [];
    let score = scaled(signals.dependents, 200, 35) + scaled(signals.entry_points, 10, 10) + scaled(signals.churn ?? 0, 50, 15) + scaled(complexity, 150, 15);
    if (signals.dependents) reasons.push(`${signals.dependents} file(s) depend on it (${signals.direct_dependents} directly)`);
    if (signals.entry_points) reasons.push(`reaches ${signals.entry_points} entry point(s)`);
    if ((signals.churn ?? 0) >= 10) reasons.push(`changed in ${signals.churn} commits`);
    if (complexity >= 40) reasons.push(`${complexity} decision points`);
    // A file a tool wrote is reviewed through its source: that no test reaches it is no risk of its own.
    const generated = graph.files[index].generated;
    if (generated) byTools.add(file);
    if (generated) reasons.push('written by a tool (a generator\'s banner): review the change to what it is generated from');
    else if (!signals.tested) { score += 15; reasons.push('no test reaches it'); }
    if (api && api.removed.length) { score += 10; reasons.push(`removes exported ${api.removed.join(', ')}`); }
    if (api && api.added.length) { score += 5; reasons.push(`adds exported ${api.added.join(', ')}`); }
    score = Math.min(100, score);
    out.push({ file_path: file, found: true, risk: riskOf(score), score, signals, reasons });
  }
  out.sort((a, b) => b.score - a.score || a.file_path.localeCompare(b.file_path));
  const reviewed = out.filter((f) => f.found);
  const maxScore = Math.max(0, ...reviewed.map((f) => f.score));
  return {
    source: pr ? 'pull_request' : 'files',
    ...(pr ? { pull_request: { number: pr.number, source: pr.source, detail: pr.detail } } : {}),
    summary: {
      files: out.length, reviewed: reviewed.length, risk: riskOf(maxScore), max_score: maxScore,
      untested: reviewed.filter((f) => !f.signals.tested && !byTools.has(f.file_path)).length,
      api_changes: reviewed.filter((f) => f.signals.public_api && (f.signals.public_api.added.length || f.signals.public_api.removed.length)).length,
    },
    files: out,
  };
}

/** Exported names added and removed between `base` and `head` (or the indexed text); null when there is no base version to compare. */
async function publicApiChange(root: string, file: string, current: string, base: string | undefined, head: string | undefined) {
  if (!base || !/\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/.test(file) || headKey(root) === null) return null;
  const show = async (rev: string) => {
    try { return (await git(['show', '--end-of-options', `${rev}:./${file}`], { cwd: root, timeoutMs: 10_000 })).stdout; } catch { return null; }
  };
  const before = await show(base);
  const after = head ? await show(head) : current;
  if (after === null) return null;
  const was = before === null ? new Set<string>() : exportedNames(file, before);
  const now = exportedNames(file, after);
  return {
    added: [...now].filter((n) => !was.has(n)).sort(),
    removed: [...was].filter((n) => !now.has(n)).sort(),
    base: before === null ? `${base} (file is new)` : base,
  };
}
