import type { Static } from 'typebox';
import type { RadiusResult as RadiusResultSchema } from '../../../protocol/api/analysis';
import { LoupeError } from '../errors';
import type { RepoRecord } from '../types';
import type { AnalysisContext } from './context';
import type { Dependent, ImportGraph } from './import-graph';
import { resolvePullRequest, type ResolvedPullRequest } from './pull-requests';
import { workingTreeChanges } from './working-tree';
import { reexportClosure, singleExport, symbolUsers, usersWithin } from './symbol-users';

export const RADIUS_PARTS = ['dependents', 'related_files', 'entry_points', 'call_edges', 'data_flows'] as const;
export type RadiusPart = (typeof RADIUS_PARTS)[number];

export interface RadiusRequest {
  files: string[];
  dependencies: string[];
  pr?: number;
  /** The working tree's changes against HEAD are the targets (when no files, dependencies or pr). */
  uncommitted?: boolean;
  include?: RadiusPart[];
  /** Cap on dependents listed per target (the totals stay exact). */
  limit: number;
  /** The caller's GitHub token, for a pull request through the GitHub API. */
  githubToken?: string;
}

/** The answer of POST /v2/repos/{repo_id}/radius, as its schema declares it (the editor's lens reads it too). */
export type RadiusResult = Static<typeof RadiusResultSchema>;
export type RadiusTarget = RadiusResult['targets'][number];
export type DependentOut = NonNullable<RadiusTarget['dependents']>[number];
export type CallEdgeOut = NonNullable<RadiusTarget['call_edges']>[number];
export type DataFlowOut = NonNullable<RadiusTarget['data_flows']>[number];

const EDGE_LIMIT = 500;
/**
 * Time a radius call may spend parsing importers for call edges and data flows. The dependents
 * themselves are always exact and complete; call sites not parsed in time are reported
 * (`call_graph_complete: false`), parsed in the background, and complete on a later call.
 */
const CALL_SITE_BUDGET_MS = 5;

/**
 * Blast radius: for each target, every file that depends on it (reverse transitive closure of the
 * import graph) with depth, path and type-only flag, plus co-change, entry points, call edges and
 * data flows. Unknown targets are answered per item (`found: false` and why), never as a failure.
 */
export async function radius(ctx: AnalysisContext, repo: RepoRecord, req: RadiusRequest): Promise<RadiusResult> {
  ctx.busy();
  const include = new Set<RadiusPart>(req.include?.length ? req.include : RADIUS_PARTS);
  const graph = await ctx.graph(repo.id);
  const warnings: string[] = [];
  let source: RadiusResult['source'] = 'files';
  let pr: ResolvedPullRequest | undefined;
  let fileTargets = req.files;
  let changed: string[] | undefined;
  if (req.files.length === 0 && req.dependencies.length === 0 && req.pr === undefined && req.uncommitted) {
    changed = await workingTreeChanges(repo);
    source = 'working_tree';
    fileTargets = changed;
  } else if (req.files.length === 0 && req.dependencies.length === 0) {
    if (req.pr === undefined) throw new LoupeError('VALIDATION_FAILED', 'file: give file/files, dependency/dependencies, or pr (or uncommitted: true)', { field: 'file' });
    pr = await resolvePullRequest(repo, req.pr, { ...ctx.pullRequests, githubToken: req.githubToken });
    source = 'pull_request';
    fileTargets = pr.files;
  } else if (req.files.length === 0) source = 'dependencies';

  const targets: RadiusTarget[] = [];
  // Each target's dependents, complete (the listed ones may be capped): the summary is their union.
  const closures: Dependent[][] = [];
  for (const t of fileTargets) {
    const { target, deps } = await fileTarget(ctx, repo, graph, t, include, req.limit, pr ? 'the pull request' : changed ? 'the working tree' : undefined);
    targets.push(target);
    closures.push(deps);
  }
  for (const d of req.dependencies) {
    const { target, deps } = await dependencyTarget(ctx, repo, graph, d, include, req.limit);
    targets.push(target);
    closures.push(deps);
  }

  // A file several targets reach counts once: at its smallest depth, type-only only if it is for every target.
  const union = new Map<number, Dependent>();
  for (const deps of closures) {
    for (const d of deps) {
      const seen = union.get(d.file);
      if (!seen) union.set(d.file, d);
      else union.set(d.file, { ...(d.depth < seen.depth ? d : seen), typeOnly: seen.typeOnly && d.typeOnly });
    }
  }
  const found = targets.filter((t) => t.found);
  const seeds = found.flatMap((t) => seedIndexes(graph, t));
  const entries = await ctx.entries(repo.id, graph);
  const reached = new Set([...union.keys(), ...seeds]);
  const entryHits = entries.filter((e) => reached.has(e.file));
  const total = union.size;
  const summary: RadiusResult['summary'] = {
    targets: targets.length,
    found: found.length,
    unknown: targets.filter((t) => !t.found).map((t) => t.target),
    total_dependents: total,
    direct_dependents: [...union.values()].filter((d) => d.depth === 1).length,
    type_only_dependents: [...union.values()].filter((d) => d.typeOnly).length,
    max_depth: Math.max(0, ...found.map((t) => t.max_depth)),
    entry_points: entryHits.filter((e) => e.kind !== 'test').length,
    tests: entryHits.filter((e) => e.kind === 'test').length,
    files_in_repo: graph.files.length,
    risk: riskOf(total, graph.files.length, entryHits.filter((e) => e.kind !== 'test').length, found.length),
  };
  if (pr && pr.files.length === 0) warnings.push(`pull request #${pr.number} changes no files`);
  if (changed && changed.length === 0) warnings.push('the working tree has no changes against HEAD');
  return {
    source,
    ...(pr ? { pull_request: { number: pr.number, source: pr.source, detail: pr.detail, files: pr.files } } : {}),
    ...(changed ? { working_tree: { files: changed } } : {}),
    summary, targets, warnings,
  };
}

function riskOf(dependents: number, files: number, entryPoints: number, found: number): RadiusResult['summary']['risk'] {
  if (found === 0 || dependents === 0) return 'none';
  const share = dependents / Math.max(1, files);
  if (dependents >= 50 || share >= 0.2 || entryPoints >= 5) return 'high';
  if (dependents >= 10 || share >= 0.05 || entryPoints >= 1) return 'medium';
  return 'low';
}

/** The files a found target stands for (a file or a symbol's file; for a dependency, none in the repository). */
function seedIndexes(graph: ImportGraph, t: RadiusTarget): number[] {
  if (t.kind === 'dependency') return [];
  return [graph.indexOfPath.get(splitTarget(t.target)[0])!];
}

/** A path written from the repository's root (`/home/me/app/src/a.ts` → `src/a.ts`); others unchanged. */
function repoRelative(root: string, file: string): string {
  const prefix = `${root.replace(/\\/g, '/').replace(/\/+$/, '')}/`;
  return file.startsWith(prefix) ? file.slice(prefix.length) : file;
}

const splitTarget = (t: string): [string, string | null] => {
  const hash = t.lastIndexOf('#');
  return hash > 0 ? [t.slice(0, hash), t.slice(hash + 1) || null] : [t, null];
};

/** Why a symbol target is not found: a member (`Axios.request`) is named as one, with the target that answers. */
function missingSymbol(file: string, symbol: string, symbols: { name: string; parent: string | null }[]): string {
  const dot = symbol.lastIndexOf('.');
  const [owner, member] = [symbol.slice(0, dot), symbol.slice(dot + 1)];
  if (dot > 0 && symbols.some((s) => s.name === member && s.parent === owner)) {
    return `${symbol} is a member of ${owner}; a symbol target names a top-level symbol: ${file}#${owner} for the files that use ${owner}`;
  }
  return `${file} has no top-level symbol ${symbol}`;
}

const empty = (target: string, kind: RadiusTarget['kind'], reason: string): RadiusTarget => ({
  target, kind, found: false, reason, dependents_total: 0, direct_dependents: 0, type_only_dependents: 0, max_depth: 0, truncated: false,
});

async function fileTarget(
  ctx: AnalysisContext, repo: RepoRecord, graph: ImportGraph, raw: string, include: Set<RadiusPart>, limit: number, changedBy?: string,
): Promise<{ target: RadiusTarget; deps: Dependent[] }> {
  const [rawFile, symbol] = splitTarget(raw);
  const file = repoRelative(repo.rootPath, rawFile.replace(/\\/g, '/').replace(/^\.\//, ''));
  const index = graph.indexOfPath.get(file);
  const kind = symbol ? 'symbol' : 'file';
  if (index === undefined) {
    return { target: empty(raw, kind, changedBy ? `changed by ${changedBy} but not in the index (deleted, ignored or not source)` : 'no indexed file has this path'), deps: [] };
  }
  let deps: Dependent[];
  if (symbol) {
    const users = await symbolUsers(ctx, repo.id, graph, index, symbol);
    const symbols = await ctx.fileSymbols(graph, index);
    const modules = new Set(symbols.filter((s) => s.kind === 'module').map((s) => s.name));
    const known = symbols.some((s) => s.name === symbol && (s.parent === null || modules.has(s.parent)));
    if (!known && users.size === 0) return { target: empty(raw, 'symbol', missingSymbol(file, symbol, symbols)), deps: [] };
    deps = [...users.entries()].map(([user, typeOnly]) => ({ file: user, depth: 1, via: [user, index], typeOnly }));
    const seen = new Set(users.keys());
    // A user that imports the target's file only in its tests (Rust `test-use`) is a dependent; its users are not.
    const closure = new Set([...reexportClosure(graph, index)].map((i) => graph.path(i)));
    const testOnly = (user: number) => {
      const hits = graph.statements[user].filter((s) => s.targetPath !== null && closure.has(s.targetPath));
      return hits.length > 0 && hits.every((s) => s.kind === 'test-use');
    };
    for (const d of graph.dependents([...users.keys()].filter((u) => !testOnly(u)), 1)) {
      if (seen.has(d.file) || d.file === index) continue;
      seen.add(d.file);
      deps.push({ ...d, via: [...d.via, index], typeOnly: d.typeOnly || [...users.entries()].every(([u, typeOnly]) => typeOnly || !d.via.includes(u)) });
    }
  } else {
    deps = graph.dependents([index]);
  }
  const out: RadiusTarget = {
    target: symbol ? `${file}#${symbol}` : file, kind, found: true,
    dependents_total: deps.length,
    direct_dependents: deps.filter((d) => d.depth === 1).length,
    type_only_dependents: deps.filter((d) => d.typeOnly).length,
    max_depth: deps.reduce((m, d) => Math.max(m, d.depth), 0),
    truncated: deps.length > limit,
  };
  if (include.has('dependents')) out.dependents = deps.slice(0, limit).map((d) => toOut(graph, d));
  if (include.has('related_files')) out.related_files = await related(ctx, repo, graph, file);
  if (include.has('entry_points')) out.entry_points = await entryPointsOf(ctx, repo, graph, [{ file: index, depth: 0, via: [index], typeOnly: false }, ...deps]);
  if (include.has('call_edges') || include.has('data_flows')) {
    const { calls, flows, complete } = await callsAndFlows(ctx, repo, graph, index, symbol);
    if (include.has('call_edges')) out.call_edges = calls;
    if (include.has('data_flows')) out.data_flows = flows;
    out.call_graph_complete = complete;
  }
  return { target: out, deps };
}

async function dependencyTarget(
  ctx: AnalysisContext, repo: RepoRecord, graph: ImportGraph, name: string, include: Set<RadiusPart>, limit: number,
): Promise<{ target: RadiusTarget; deps: Dependent[] }> {
  // A module (a go.mod requirement) is imported through any of its packages: the facts hold its importers.
  const module = (await ctx.facts(repo.id, graph)).dependencies.get(name);
  const importers = [...new Set([...graph.importersOf(name), ...(module?.ecosystem === 'go' ? module.files : [])])].sort((a, b) => a - b);
  if (importers.length === 0) return { target: empty(name, 'dependency', 'no indexed file imports this package or module name'), deps: [] };
  const names = (s: ImportGraph['statements'][number][number]) =>
    s.packageName === name || s.specifier === name || (module?.ecosystem === 'go' && !!s.packageName?.startsWith(`${name}/`));
  const direct: Dependent[] = importers.map((i) => ({
    file: i, depth: 1, via: [i],
    typeOnly: graph.statements[i].filter(names).every((s) => s.typeOnly),
  }));
  const seen = new Set(importers);
  const deps = [...direct];
  for (const d of graph.dependents(importers, 1)) if (!seen.has(d.file)) deps.push(d);
  const out: RadiusTarget = {
    target: name, kind: 'dependency', found: true,
    dependents_total: deps.length,
    direct_dependents: direct.length,
    type_only_dependents: deps.filter((d) => d.typeOnly).length,
    max_depth: deps.reduce((m, d) => Math.max(m, d.depth), 0),
    truncated: deps.length > limit,
  };
  if (include.has('dependents')) out.dependents = deps.slice(0, limit).map((d) => toOut(graph, d));
  if (include.has('related_files')) out.related_files = [];
  if (include.has('entry_points')) out.entry_points = await entryPointsOf(ctx, repo, graph, deps);
  if (include.has('call_edges')) out.call_edges = [];
  if (include.has('data_flows')) out.data_flows = [];
  return { target: out, deps };
}

const toOut = (graph: ImportGraph, d: Dependent): DependentOut => ({
  file_path: graph.path(d.file), depth: d.depth, via: d.via.map((i) => graph.path(i)), type_only: d.typeOnly,
});

async function related(ctx: AnalysisContext, repo: RepoRecord, graph: ImportGraph, file: string) {
  const history = await ctx.history.related(repo.rootPath, file, 25);
  if (!history) return [];
  return history.files.filter((f) => graph.indexOfPath.has(f.path)).slice(0, 10)
    .map((f) => ({ file_path: f.path, co_changes: f.coChanges, ratio: f.ratio }));
}

async function entryPointsOf(ctx: AnalysisContext, repo: RepoRecord, graph: ImportGraph, reached: Dependent[]) {
  const depth = new Map(reached.map((d) => [d.file, d.depth]));
  return (await ctx.entries(repo.id, graph)).filter((e) => depth.has(e.file))
    .map((e) => ({ file_path: graph.path(e.file), kind: e.kind, detail: e.detail, depth: depth.get(e.file)! }))
    .sort((a, b) => a.depth - b.depth || a.file_path.localeCompare(b.file_path));
}

async function callsAndFlows(ctx: AnalysisContext, repo: RepoRecord, graph: ImportGraph, index: number, symbol: string | null) {
  const symbols = await ctx.fileSymbols(graph, index);
  const kindOf = new Map(symbols.filter((s) => s.parent === null).map((s) => [s.name, s.kind]));
  for (const s of symbols) if (!kindOf.has(s.name)) kindOf.set(s.name, s.kind); // a name a module declares (Ruby, namespaces)
  const moduleName = singleExport(symbols);
  const calls: CallEdgeOut[] = [];
  const flows: DataFlowOut[] = [];
  const { uses, pending } = await usersWithin(ctx, repo.id, graph, index, performance.now() + CALL_SITE_BUDGET_MS);
  if (pending.length) ctx.warmUsages(repo.id, graph, pending);
  for (const { user, usage } of uses) {
    if (usage.kind === 'reexport') continue;
    const name = usage.importedName === '*' || usage.importedName === 'default' ? (moduleName ?? usage.importedName) : usage.importedName;
    if (symbol && name !== symbol) continue;
    const kind = kindOf.get(name);
    const isCallable = kind === 'function' || kind === 'class' || kind === 'method' || kind === undefined;
    if ((usage.kind === 'call' || usage.kind === 'new') && isCallable) {
      if (calls.length < EDGE_LIMIT) calls.push({ from_file: graph.path(user), from_symbol: usage.enclosing, line: usage.line, to_symbol: name, kind: usage.kind });
    } else if (kind !== 'function' && kind !== 'interface' && kind !== 'type' && flows.length < EDGE_LIMIT) {
      flows.push({ symbol: name, file_path: graph.path(user), line: usage.line, kind: usage.kind, in: usage.enclosing });
    }
  }
  return { calls, flows, complete: pending.length === 0 };
}
