import type { Static } from 'typebox';
import type { ScopeResult as ScopeSchema } from '../../../protocol/api/analysis';
import { invalid } from '../errors';
import type { RepoSymbolRow } from '../store/analysis-store';
import type { RepoRecord } from '../types';
import type { AnalysisContext } from './context';
import type { ImportGraph } from './import-graph';
import type { DependencyKind, RepoFacts } from './repo-facts';
import { usersOfFile } from './symbol-users';

export type ScopeKind = 'dependencies' | 'functions' | 'variables';

/** A repository named in compare_repos: resolved for the caller, or why not. */
export interface CompareRepo { id: string; repo: RepoRecord | null; reason?: string }

export interface ScopeOptions {
  include: ScopeKind[];
  name?: string;
  type?: DependencyKind;
  expand?: 'files' | 'functions';
  compare: CompareRepo[];
  limit: number;
  offset: number;
  order: 'usage' | 'name';
}

interface SymbolAggregate { name: string; kind: string; files: number; usage: number; defined_in: string[]; definitions: { index: number; line: number }[] }

/** The answer of POST /v2/repos/{repo_id}/scope, as its schema declares it. */
export type ScopeResult = Static<typeof ScopeSchema>;

const EXPAND_LIMIT = 500;
const COMPARE_LIST_LIMIT = 200;

/** Dependencies, functions and variables of a repository, aggregated by name, with drill-down and comparison. */
export async function scope(ctx: AnalysisContext, repo: RepoRecord, o: ScopeOptions): Promise<ScopeResult> {
  if (o.expand && !o.name) throw invalid('expand', 'requires name (the dependency, function or variable to drill into)');
  const graph = await ctx.graph(repo.id);
  const facts = await ctx.facts(repo.id, graph);
  const needle = o.name?.toLowerCase();
  const matches = (n: string) => !needle || n.toLowerCase().includes(needle);

  const deps = [...facts.dependencies.values()].filter((d) => (!o.type || d.type === o.type) && matches(d.name))
    .map((d) => ({ name: d.name, type: d.type, version: d.version, files: d.files.size, usage: d.usage }));
  const { functions, variables } = aggregateSymbols(graph, facts, await ctx.symbols(repo.id, graph));
  const fns = functions.filter((s) => matches(s.name));
  const vars = variables.filter((s) => matches(s.name));
  const sort = <T extends { name: string; usage: number; files: number }>(list: T[]) =>
    list.sort(o.order === 'name' ? (a, b) => a.name.localeCompare(b.name) : (a, b) => b.usage - a.usage || b.files - a.files || a.name.localeCompare(b.name));
  const pageOf = <T>(list: T[]) => ({
    items: list.slice(o.offset, o.offset + o.limit),
    pagination: { total: list.length, limit: o.limit, offset: o.offset, has_more: o.offset + o.limit < list.length },
  });
  const strip = (s: SymbolAggregate) => ({ name: s.name, kind: s.kind, files: s.files, usage: s.usage, defined_in: s.defined_in });
  const result: ScopeResult = {
    repo: { repo_id: repo.id, name: repo.name },
    summary: { dependencies: deps.length, functions: fns.length, variables: vars.length, files: graph.files.length },
    scope: {},
  };
  if (o.include.includes('dependencies')) result.scope.dependencies = pageOf(sort(deps));
  if (o.include.includes('functions')) result.scope.functions = pageOf(sort(fns).map(strip));
  if (o.include.includes('variables')) result.scope.variables = pageOf(sort(vars).map(strip));
  if (o.expand && o.name) result.expanded = await expand(ctx, repo, graph, facts, o.name, o.expand, [...functions, ...variables]);
  if (o.compare.length) result.comparison = await compare(ctx, facts, o.compare);
  return result;
}

function aggregateSymbols(graph: ImportGraph, facts: RepoFacts, symbols: Map<number, RepoSymbolRow[]>) {
  const fn = new Map<string, SymbolAggregate>();
  const vars = new Map<string, SymbolAggregate>();
  for (const [index, list] of symbols) {
    for (const s of list) {
      const isFn = s.kind === 'function' || s.kind === 'method';
      const isVar = (s.kind === 'variable' || s.kind === 'constant') && s.parent === null;
      if (!isFn && !isVar) continue;
      const name = s.kind === 'method' && s.parent ? `${s.parent}.${s.name}` : s.name;
      const bucket = isFn ? fn : vars;
      let agg = bucket.get(name);
      if (!agg) bucket.set(name, (agg = { name, kind: s.kind, files: 0, usage: 0, defined_in: [], definitions: [] }));
      agg.files++;
      agg.usage += s.parent === null ? facts.importedNames.get(`${index}\0${s.name}`)?.size ?? 0 : 0;
      if (agg.defined_in.length < 5) agg.defined_in.push(graph.path(index));
      agg.definitions.push({ index, line: s.startLine });
    }
  }
  return { functions: [...fn.values()], variables: [...vars.values()] };
}

async function expand(ctx: AnalysisContext, repo: RepoRecord, graph: ImportGraph, facts: RepoFacts, name: string, mode: 'files' | 'functions', symbols: SymbolAggregate[]) {
  const dep = facts.dependencies.get(name);
  const sym = symbols.find((s) => s.name === name);
  if (!dep && !sym) return { name, expand: mode, [mode]: [] };
  if (mode === 'files') {
    const files: { file_path: string; role: string; lines: number[] }[] = [];
    if (dep) {
      for (const i of [...dep.files].sort((a, b) => a - b)) {
        files.push({ file_path: graph.path(i), role: 'imports', lines: graph.statements[i].filter((s) => s.packageName === name || s.specifier === name).map((s) => s.line) });
      }
    }
    if (sym) {
      const short = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : name;
      for (const d of sym.definitions) {
        files.push({ file_path: graph.path(d.index), role: 'defines', lines: [d.line] });
        for (const user of facts.importedNames.get(`${d.index}\0${short}`) ?? []) {
          files.push({ file_path: graph.path(user), role: 'imports', lines: graph.statements[user].filter((s) => s.targetPath === graph.path(d.index) && s.names.includes(short)).map((s) => s.line) });
        }
      }
    }
    return { name, expand: mode, files: files.slice(0, EXPAND_LIMIT) };
  }
  const byFunction = new Map<string, { file_path: string; function: string | null; uses: number; lines: number[] }>();
  const add = (file: number, fn: string | null, line: number) => {
    const key = `${file}\0${fn}`;
    let entry = byFunction.get(key);
    if (!entry) byFunction.set(key, (entry = { file_path: graph.path(file), function: fn, uses: 0, lines: [] }));
    entry.uses++;
    if (entry.lines.length < 20) entry.lines.push(line);
  };
  if (dep) {
    for (const i of dep.files) {
      const specifiers = new Set(graph.statements[i].filter((s) => s.packageName === name || s.specifier === name).map((s) => s.specifier));
      for (const u of await ctx.usagesIn(repo.id, graph, i, specifiers)) if (u.kind !== 'reexport') add(i, u.enclosing, u.line);
    }
  }
  if (sym) {
    const short = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : name;
    for (const d of sym.definitions) {
      for (const { user, usage } of await usersOfFile(ctx, repo.id, graph, d.index)) {
        if (usage.kind !== 'reexport' && usage.importedName === short) add(user, usage.enclosing, usage.line);
      }
    }
  }
  const functions = [...byFunction.values()].sort((a, b) => b.uses - a.uses || a.file_path.localeCompare(b.file_path)).slice(0, EXPAND_LIMIT);
  return { name, expand: mode, functions };
}

async function compare(ctx: AnalysisContext, facts: RepoFacts, others: CompareRepo[]) {
  const external = (f: RepoFacts) => new Set([...f.dependencies.values()].filter((d) => d.type !== 'local' && d.type !== 'builtin').map((d) => d.name));
  const mine = external(facts);
  return Promise.all(others.map(async (o) => {
    if (!o.repo) return { repo_id: o.id, name: null, found: false, reason: o.reason ?? 'repository not found', shared: [], only_in_source: [], only_in_other: [] };
    const theirs = external(await ctx.facts(o.repo.id, await ctx.graph(o.repo.id)));
    const sorted = (s: Iterable<string>) => [...s].sort().slice(0, COMPARE_LIST_LIMIT);
    return {
      repo_id: o.repo.id, name: o.repo.name, found: true,
      shared: sorted([...mine].filter((d) => theirs.has(d))),
      only_in_source: sorted([...mine].filter((d) => !theirs.has(d))),
      only_in_other: sorted([...theirs].filter((d) => !mine.has(d))),
    };
  }));
}
