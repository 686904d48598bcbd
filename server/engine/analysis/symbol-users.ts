import type { AnalysisContext } from './context';
import type { ImportGraph } from './import-graph';
import type { Usage } from './references';
import { COMPONENT_FILE } from '../indexer/parse-component';
import { NUXT_USER_LANGUAGES } from '../indexer/nuxt-auto-imports';
import type { RepoSymbolRow } from '../store/analysis-store';

const MAX_CONSUMERS = 400;
/** Rough cost of parsing and walking one line of source (measured on phaser here: 5–20 µs). */
const PARSE_MS_PER_LINE = 0.015;

/** The target file and every barrel that re-exports it (`export … from`), transitively. */
export function reexportClosure(graph: ImportGraph, index: number): Set<number> {
  const seen = new Set([index]);
  const queue = [index];
  for (let head = 0; head < queue.length; head++) {
    for (const e of graph.in[queue[head]]) {
      if (e.reexport && !seen.has(e.from)) { seen.add(e.from); queue.push(e.from); }
    }
  }
  return seen;
}

/**
 * Every use of the target's exports in other files: files that import the target itself or a
 * barrel re-exporting it, parsed for the bindings they import from those modules. Through a
 * barrel only names the target itself declares count.
 */
export async function usersOfFile(ctx: AnalysisContext, repoId: string, graph: ImportGraph, index: number): Promise<{ user: number; usage: Usage }[]> {
  return (await usersWithin(ctx, repoId, graph, index, Infinity)).uses;
}

/**
 * usersOfFile within a time budget: consumers not parsed before `deadline` (and not cached) come
 * back as `pending`, for the caller to report and to parse in the background.
 */
export async function usersWithin(ctx: AnalysisContext, repoId: string, graph: ImportGraph, index: number, deadline: number):
  Promise<{ uses: { user: number; usage: Usage }[]; pending: { user: number; specifiers: Set<string>; target: number }[] }> {
  const closure = reexportClosure(graph, index);
  const symbols = await ctx.fileSymbols(graph, index);
  for (const header of await declaringHeaders(ctx, graph, index, symbols)) closure.add(header);
  const targetPaths = new Map([...closure].map((i) => [graph.path(i), i]));
  const modules = new Set(symbols.filter((s) => s.kind === 'module').map((s) => s.name));
  const own = new Set(symbols.filter((s) => s.parent === null || modules.has(s.parent)).map((s) => s.name));
  const single = singleExport(symbols);
  const consumers = new Set<number>();
  for (const r of closure) for (const e of graph.in[r]) consumers.add(e.from);
  consumers.delete(index);
  const found: { user: number; direct: Set<string>; usages: Usage[] }[] = [];
  const pending: { user: number; specifiers: Set<string>; target: number }[] = [];
  let parsed = 0;
  for (const user of [...consumers].sort((a, b) => a - b)) {
    if (parsed++ >= MAX_CONSUMERS) break;
    const direct = new Set<string>();
    const viaBarrel = new Set<string>();
    // Python binds only what a statement names: a package it merely runs on the way (`from django.db.models import Q`
    // runs django/db/__init__.py) gives the file no name to use it by.
    const python = graph.files[user].language === 'python';
    const byName: Usage[] = [];
    for (const s of graph.statements[user]) {
      const hit = s.targetPath === null ? undefined : targetPaths.get(s.targetPath);
      if (hit === undefined || (python && !s.names.length)) continue;
      // A name Nuxt auto-imports (nuxt-auto-imports.ts): the edge is the use, at its first place; a component is
      // its file's one export.
      if (s.kind === 'reference' && hit === index && NUXT_USER_LANGUAGES.has(graph.files[user].language ?? '')) {
        direct.add(s.specifier);
        byName.push({ specifier: s.specifier, importedName: COMPONENT_FILE.test(graph.path(index)) ? 'default' : s.specifier, line: s.line, kind: 'call', enclosing: null });
        continue;
      }
      (hit === index ? direct : viaBarrel).add(s.specifier);
    }
    if (byName.length) found.push({ user, direct: new Set(byName.map((u) => u.specifier)), usages: byName });
    const specifiers = new Set([...direct, ...viaBarrel].filter((sp) => !byName.some((u) => u.specifier === sp)));
    if (byName.length && !specifiers.size) continue;
    if (python && !specifiers.size) continue;
    // Parse now only what fits in the budget, judged by the file's length: one big importer must
    // not hold the answer up (it is parsed in the background instead).
    const fits = deadline === Infinity || performance.now() + graph.files[user].lines * PARSE_MS_PER_LINE < deadline;
    // A cached file answers without an await; only a file read and parsed now awaits its text.
    const usages = ctx.cachedUsages(graph, user, specifiers, index) ?? (fits ? await ctx.usagesIn(repoId, graph, user, specifiers, index) : undefined);
    if (!usages) { pending.push({ user, specifiers, target: index }); continue; }
    found.push({ user, direct, usages });
  }
  const renamed = barrelRenames(graph, index, targetPaths, found);
  const out: { user: number; usage: Usage }[] = [];
  for (const { user, direct, usages } of found) {
    for (const each of usages) {
      const isDirect = direct.has(each.specifier);
      const usage = named(isDirect ? each : renamed(user, each), own, single, isDirect);
      if (!isDirect && !own.has(usage.importedName)) continue;
      out.push({ user, usage });
    }
  }
  return { uses: out, pending };
}

/**
 * The target's own name of a name used through a barrel, where a barrel on the way renames it
 * (`export { callProcedure as callTRPCProcedure } from './router'`): a use of `callTRPCProcedure` is one of
 * `callProcedure`. Read from the barrels' own re-export statements (each barrel is among the consumers).
 */
function barrelRenames(graph: ImportGraph, index: number, targetPaths: Map<string, number>, found: { user: number; usages: Usage[] }[]):
  (user: number, usage: Usage) => Usage {
  const reexports = new Map<number, Usage[]>();
  for (const { user, usages } of found) {
    const own = usages.filter((u) => u.kind === 'reexport');
    if (own.length && targetPaths.has(graph.path(user))) reexports.set(user, own);
  }
  /** The closure file a file's specifier leads to. */
  const leadsTo = (file: number, specifier: string): number | undefined => {
    const s = graph.statements[file].find((st) => st.specifier === specifier && st.targetPath !== null);
    return s ? targetPaths.get(s.targetPath!) : undefined;
  };
  /** `name` exported by closure file `file`, as the target names it (the name itself when no barrel renames it). */
  const ownName = (file: number, name: string, seen: Set<number>): string => {
    if (file === index || seen.has(file)) return name;
    seen.add(file);
    for (const r of reexports.get(file) ?? []) {
      const to = leadsTo(file, r.specifier);
      if (to === undefined) continue;
      if (r.exportedAs === name) return ownName(to, r.importedName, seen);
      if (r.exportedAs === undefined && (r.importedName === name || r.importedName === '*')) {
        const inner = ownName(to, name, seen);
        if (inner !== name) return inner;
      }
    }
    return name;
  };
  return (user, usage) => {
    if (!reexports.size || usage.importedName === '*') return usage;
    const via = leadsTo(user, usage.specifier);
    if (via === undefined) return usage;
    const name = ownName(via, usage.importedName, new Set());
    // A namespace of the target under a name (`export * as util from './util'`): `util.Mask` uses Mask.
    if (name === '*' && usage.member) return { ...usage, importedName: usage.member, kind: usage.memberKind ?? usage.kind };
    return name === usage.importedName ? usage : { ...usage, importedName: name };
  };
}

const C_FAMILY = new Set(['c', 'cpp']);

/**
 * A C or C++ source file's functions are called through the headers that declare them: the headers it
 * includes that declare one of its names (ldo.c defines luaD_throw, ldo.h declares it, llex.c includes
 * ldo.h). Their includers are the source file's consumers.
 */
async function declaringHeaders(ctx: AnalysisContext, graph: ImportGraph, index: number, symbols: RepoSymbolRow[]): Promise<number[]> {
  if (!C_FAMILY.has(graph.files[index].language ?? '')) return [];
  // A namespace is opened by many files that declare nothing of each other's.
  const names = new Set(symbols.filter((s) => s.parent === null && s.kind !== 'namespace').map((s) => s.name));
  const out: number[] = [];
  for (const e of graph.out[index]) {
    if (!C_FAMILY.has(graph.files[e.to].language ?? '') || !/\.(h|hh|hpp|hxx|h\+\+|inc)$/i.test(graph.path(e.to))) continue;
    if ((await ctx.fileSymbols(graph, e.to)).some((s) => s.parent === null && s.kind !== 'namespace' && names.has(s.name))) out.push(e.to);
  }
  return out;
}

/**
 * The target's one export when it has exactly one (a class, function or value): what a default import
 * or a CommonJS `require` of the module stands for.
 */
export function singleExport(symbols: RepoSymbolRow[]): string | null {
  const single = symbols.filter((s) => s.parent === null && s.exported
    && (s.kind === 'class' || s.kind === 'function' || s.kind === 'constant' || s.kind === 'variable'));
  return single.length === 1 ? single[0].name : null;
}

/**
 * A use named by the target's symbol it reaches: `utils.merge` through a default import is `merge` when
 * the target declares `merge` (a default-exported object's member); a default import or a whole
 * CommonJS module is the target's one export when it has one.
 */
function named(usage: Usage, own: Set<string>, single: string | null, direct: boolean): Usage {
  if (usage.importedName !== 'default' && usage.importedName !== '*') return usage;
  // A barrel's namespace object used whole (`export const operators = _operators`) is not the target's one export.
  if (usage.importedName === '*' && !direct) return usage;
  if (usage.member && own.has(usage.member)) return { ...usage, importedName: usage.member };
  return single ? { ...usage, importedName: single } : usage;
}

/** Files that use `symbol` of the target (not merely re-export it); true when they use it only as a type. */
export async function symbolUsers(ctx: AnalysisContext, repoId: string, graph: ImportGraph, index: number, symbol: string): Promise<Map<number, boolean>> {
  const users = new Map<number, boolean>();
  for (const { user, usage } of await usersOfFile(ctx, repoId, graph, index)) {
    if (usage.kind === 'reexport' || usage.importedName !== symbol) continue;
    users.set(user, (users.get(user) ?? true) && usage.kind === 'type');
  }
  return users;
}
