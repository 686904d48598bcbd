import type { AnalysisStore, RepoSymbolRow } from '../store/analysis-store';
import type { Logger } from '../log';
import type { Async } from '../store/surface';
import { CoChangeHistory } from './co-change';
import { findEntryPoints, MAIN_LANGUAGES, type EntryPoint } from './entry-points';
import { GraphCache, type ImportGraph } from './import-graph';
import { findUsages, type Usage } from './references';
import { findNameUses, usesByName } from './name-usages';
import type { PullRequestConfig } from './pull-requests';
import { computeFacts, type RepoFacts } from './repo-facts';
import { measureConventions } from './conventions';
import { nameUsers, sameGoPackage } from './name-users';
import { innermostAround } from '../util/innermost';
import { bindsModule } from './python-packages';

const USAGE_CACHE_SIZE = 20_000;
/** Background parsing yields to other work after this long. */
const WARM_SLICE_MS = 5;
/** Background parsing starts only after this long without an analysis call. */
const QUIET_MS = 50;

/**
 * What every analysis shares: the graph cache, git history, and per-graph derived facts (entry
 * points, symbols) cached on the graph object so they die with it when the index changes.
 */
export class AnalysisContext {
  readonly graphs: GraphCache;
  readonly history = new CoChangeHistory();
  private readonly entryPoints = new WeakMap<ImportGraph, EntryPoint[]>();
  private readonly factsByGraph = new WeakMap<ImportGraph, RepoFacts>();
  private readonly symbolsByGraph = new WeakMap<ImportGraph, Map<number, RepoSymbolRow[]>>();
  private readonly fileSymbolsByGraph = new WeakMap<ImportGraph, Map<number, RepoSymbolRow[]>>();
  private readonly exportedByGraph = new WeakMap<ImportGraph, Map<number, RepoSymbolRow[]>>();
  private readonly nameUsersByGraph = new WeakMap<ImportGraph, Promise<Map<string, Set<number>>>>();
  /** Usage keys queued for background parsing, so repeated calls do not queue the same file twice. */
  private readonly warming = new Set<string>();
  private readonly seenGraphs = new WeakSet<ImportGraph>();
  private readonly warmQueue: { key: string; run: () => Promise<void>; what: string }[] = [];
  private warmRunning = false;
  private warmTimer: NodeJS.Timeout | null = null;
  private lastBusy = 0;
  /** Parsed usages by file hash and the specifiers asked about; file content never changes under a hash. */
  private readonly usages = new Map<string, Usage[]>();

  constructor(readonly store: Async<AnalysisStore>, readonly log: Logger, readonly pullRequests: PullRequestConfig) {
    this.graphs = new GraphCache(store);
  }

  /** The repository's import graph at its current generation (cached in memory until the generation moves). */
  async graph(repoId: string): Promise<ImportGraph> {
    const graph = await this.graphs.get(repoId);
    if (!this.seenGraphs.has(graph)) {
      // A new index generation: prepare what the blueprint and docs read, in a quiet moment.
      this.seenGraphs.add(graph);
      const key = `facts\0${repoId}\0${graph.generation}`;
      this.warming.add(key);
      this.warmQueue.push({ key, what: `repository ${repoId}`, run: async () => {
        if (this.graphs.peek(repoId) !== graph) return; // superseded by a newer generation
        await this.entries(repoId, graph);
        await this.facts(repoId, graph);
        await this.exportedSymbols(repoId, graph);
        await this.exportedNameUsers(repoId, graph);
        await measureConventions(this, { id: repoId }, graph, null);
      } });
      this.scheduleWarm(QUIET_MS);
    }
    return graph;
  }

  async entries(repoId: string, graph: ImportGraph): Promise<EntryPoint[]> {
    let list = this.entryPoints.get(graph);
    if (!list) {
      // C and C++ programs start at a `main` defined in any file (lua.c): the symbols say which.
      const mains = new Set<number>();
      for (const [i, symbols] of await this.exportedSymbols(repoId, graph)) {
        if (MAIN_LANGUAGES.has(graph.files[i].language ?? '') && symbols.some((s) => s.name === 'main' && s.kind === 'function')) mains.add(i);
      }
      list = await this.withTexts(repoId, (read) => findEntryPoints(graph, read, mains));
      this.entryPoints.set(graph, list);
    }
    return list;
  }

  /** The entry points already found for this graph, without reading anything. */
  cachedEntries(graph: ImportGraph): EntryPoint[] | undefined {
    return this.entryPoints.get(graph);
  }

  async facts(repoId: string, graph: ImportGraph): Promise<RepoFacts> {
    let facts = this.factsByGraph.get(graph);
    if (!facts) {
      facts = await this.withTexts(repoId, (read) => computeFacts(graph, read));
      this.factsByGraph.set(graph, facts);
    }
    return facts;
  }

  /**
   * Runs a synchronous computation that reads files' text through `read`, over texts read from the
   * (async) store: each pass notes the paths it asked for and had not yet, they are read together,
   * and the computation runs again until it asked for nothing new. Its answer is then the one it
   * gives over the real texts (a path it did not ask for on the final pass cannot change it).
   */
  async withTexts<T>(repoId: string, compute: (read: (path: string) => string | null) => T): Promise<T> {
    const texts = new Map<string, string | null>();
    for (;;) {
      const missing = new Set<string>();
      const result = compute((p) => {
        const text = texts.get(p);
        if (text !== undefined) return text;
        missing.add(p);
        return null;
      });
      if (!missing.size) return result;
      const paths = [...missing];
      const read = await Promise.all(paths.map((p) => this.store.fileText(repoId, p)));
      paths.forEach((p, i) => texts.set(p, read[i]));
    }
  }

  /** Symbols of one file, read on first use (radius needs only its target's, not the repository's). */
  async fileSymbols(graph: ImportGraph, index: number): Promise<RepoSymbolRow[]> {
    let perFile = this.fileSymbolsByGraph.get(graph);
    if (!perFile) this.fileSymbolsByGraph.set(graph, (perFile = new Map()));
    let list = perFile.get(index);
    if (!list) perFile.set(index, (list = await this.store.symbolsOf(graph.files[index].id)));
    return list;
  }

  /** Exported top-level symbols, by file index. */
  async exportedSymbols(repoId: string, graph: ImportGraph): Promise<Map<number, RepoSymbolRow[]>> {
    let map = this.exportedByGraph.get(graph);
    if (!map) {
      map = new Map();
      for (const s of await this.store.exportedSymbols(repoId)) {
        const index = graph.indexOfFileId.get(s.fileId);
        if (index === undefined) continue;
        let list = map.get(index);
        if (!list) map.set(index, (list = []));
        list.push(s);
      }
      this.exportedByGraph.set(graph, map);
    }
    return map;
  }

  /**
   * `fileIndex\0name` → files whose code uses that exported name where their import names nothing
   * (Go packages, C headers: name-users.ts), read once per graph generation.
   */
  exportedNameUsers(repoId: string, graph: ImportGraph): Promise<Map<string, Set<number>>> {
    let users = this.nameUsersByGraph.get(graph);
    if (!users) {
      users = this.exportedSymbols(repoId, graph).then((exported) => nameUsers(graph, exported, (p) => this.store.fileText(repoId, p)));
      this.nameUsersByGraph.set(graph, users);
      users.catch(() => this.nameUsersByGraph.delete(graph));
    }
    return users;
  }

  /** Symbols of every file, by file index in the graph. */
  async symbols(repoId: string, graph: ImportGraph): Promise<Map<number, RepoSymbolRow[]>> {
    let map = this.symbolsByGraph.get(graph);
    if (!map) {
      map = new Map();
      for (const s of await this.store.symbols(repoId)) {
        const index = graph.indexOfFileId.get(s.fileId);
        if (index === undefined) continue;
        let list = map.get(index);
        if (!list) map.set(index, (list = []));
        list.push(s);
      }
      this.symbolsByGraph.set(graph, map);
    }
    return map;
  }

  /**
   * Where file `index` uses what it imports through `specifiers`: cached, or read and parsed now.
   * TypeScript and JavaScript are parsed for the bindings of those imports; the other languages have
   * none to follow, so their code is read for the names `target` declares (`names`, default: its
   * top-level ones).
   */
  async usagesIn(repoId: string, graph: ImportGraph, index: number, specifiers: Set<string>, target?: number): Promise<Usage[]> {
    const cached = this.cachedUsages(graph, index, specifiers, target);
    if (cached) return cached;
    const file = graph.files[index];
    const byName = target !== undefined && usesByName(file.language);
    const names = byName ? listedNames(graph, index, specifiers, await this.namesOf(graph, index, target)) : null;
    const text = (await this.store.fileText(repoId, file.path)) ?? '';
    const found = names
      ? await this.nameUsages(graph, index, text, names, specifiers)
      : findUsages(file.path, text, specifiers);
    if (this.usages.size >= USAGE_CACHE_SIZE) this.usages.delete(this.usages.keys().next().value!);
    this.usages.set(this.usageKey(graph, index, specifiers, target), found);
    return found;
  }

  /** Only what is already cached, else undefined (no read, no await). */
  cachedUsages(graph: ImportGraph, index: number, specifiers: Set<string>, target?: number): Usage[] | undefined {
    return this.usages.get(this.usageKey(graph, index, specifiers, target));
  }

  private usageKey(graph: ImportGraph, index: number, specifiers: Set<string>, target?: number): string {
    const file = graph.files[index];
    const key = `${file.hash}\0${file.path}\0${[...specifiers].sort().join('\0')}`;
    if (target === undefined || !usesByName(file.language)) return key;
    const of = graph.files[target];
    return `${key}\0\0${of.path}\0${of.hash}`;
  }

  /**
   * The names a file of another language may use the target by: its top-level symbols and those of the
   * modules it declares (a Ruby class inside `module Sinatra`). A Go file of another package reaches
   * only the exported ones, written `pkg.Name`.
   */
  private async namesOf(graph: ImportGraph, user: number, target: number): Promise<{ names: Set<string>; qualified: boolean }> {
    const symbols = await this.fileSymbols(graph, target);
    const modules = new Set(symbols.filter((s) => s.kind === 'module').map((s) => s.name));
    const names = new Set(symbols.filter((s) => s.parent === null || modules.has(s.parent)).map((s) => s.name));
    const qualified = graph.files[user].language === 'go' && !sameGoPackage(graph, user, target);
    if (qualified) for (const n of names) if (!/^[A-Z]/.test(n)) names.delete(n);
    return { names, qualified };
  }

  private async nameUsages(graph: ImportGraph, index: number, text: string, of: { names: Set<string>; qualified: boolean }, specifiers: Set<string>): Promise<Usage[]> {
    const uses = findNameUses(graph.files[index].language!, text, of.names, of.qualified);
    if (!uses.length) return [];
    const enclosing = enclosingByLine(await this.fileSymbols(graph, index));
    const specifier = [...specifiers][0] ?? '';
    return uses.map((u) => ({ specifier, importedName: u.name, line: u.line, kind: u.kind, enclosing: enclosing(u.line) }));
  }

  /**
   * Parses the given files' usages off the request path so a radius answer cut short by its time
   * budget is complete on a later call. The work waits for a quiet moment (no analysis call for
   * QUIET_MS) and runs in short slices, so it never sits inside another request's latency.
   */
  warmUsages(repoId: string, graph: ImportGraph, jobs: { user: number; specifiers: Set<string>; target?: number }[]): void {
    for (const j of jobs) {
      const key = this.usageKey(graph, j.user, j.specifiers, j.target);
      if (this.warming.has(key)) continue;
      this.warming.add(key);
      this.warmQueue.push({ key, run: async () => { await this.usagesIn(repoId, graph, j.user, j.specifiers, j.target); }, what: graph.path(j.user) });
    }
    this.scheduleWarm(QUIET_MS);
  }

  /** Files still queued for background parsing (benchmarks wait for 0). */
  pendingWarm(): number {
    return this.warmQueue.length + (this.warmRunning ? 1 : 0);
  }

  /** Marks an analysis call: background parsing steps aside until the calls pause. */
  busy(): void {
    this.lastBusy = performance.now();
  }

  private scheduleWarm(delay: number): void {
    if (this.warmTimer || this.warmRunning || !this.warmQueue.length) return;
    this.warmTimer = setTimeout(() => {
      this.warmTimer = null;
      const quietFor = performance.now() - this.lastBusy;
      if (quietFor < QUIET_MS) { this.scheduleWarm(QUIET_MS - quietFor); return; }
      void this.warmSlice();
    }, delay);
    this.warmTimer.unref();
  }

  /** One slice of background work; jobs run one at a time (each may await its reads). */
  private async warmSlice(): Promise<void> {
    this.warmRunning = true;
    try {
      const until = performance.now() + WARM_SLICE_MS;
      while (this.warmQueue.length && performance.now() < until) {
        const job = this.warmQueue.shift()!;
        try { await job.run(); } catch (error) { this.log.debug(`background analysis of ${job.what}: ${(error as Error).message}`); }
        this.warming.delete(job.key);
      }
    } finally {
      this.warmRunning = false;
    }
    this.scheduleWarm(0);
  }
}

/** The innermost function, method or class around a line (`Class.method`), or null at module level. */
function enclosingByLine(symbols: RepoSymbolRow[]): (line: number) => string | null {
  const holders = symbols.filter((s) => s.kind === 'function' || s.kind === 'method' || s.kind === 'class' || s.kind === 'struct');
  return (line) => {
    const best = innermostAround(holders, line);
    return best ? (best.parent ? `${best.parent}.${best.name}` : best.name) : null;
  };
}

/**
 * A Python `from X import a, b` binds a and b only: where every statement through `specifiers` lists the names it
 * imports (no `*`, no module bound by name: `from django import forms`), the file can use no other name of X, so a
 * `connection` parameter is no use of django.db's `connection` in a file importing `connections`.
 */
function listedNames(graph: ImportGraph, user: number, specifiers: Set<string>, of: { names: Set<string>; qualified: boolean }): { names: Set<string>; qualified: boolean } {
  if (graph.files[user].language !== 'python') return of;
  const statements = graph.statements[user].filter((s) => specifiers.has(s.specifier) && s.names.length);
  const listsNames = (s: { specifier: string; names: string[] }) => !s.names.includes('*') && !bindsModule(s);
  if (!statements.length || !statements.every(listsNames)) return of;
  const listed = new Set(statements.flatMap((s) => s.names));
  return { ...of, names: new Set([...of.names].filter((n) => listed.has(n))) };
}
