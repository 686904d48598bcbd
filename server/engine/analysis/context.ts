import type { AnalysisStore, RepoSymbolRow } from '../store/analysis-store';
import type { Logger } from '../log';
import { CoChangeHistory } from './co-change';
import { findEntryPoints, type EntryPoint } from './entry-points';
import { GraphCache, type ImportGraph } from './import-graph';
import { findUsages, type Usage } from './references';
import type { PullRequestConfig } from './pull-requests';
import { computeFacts, type RepoFacts } from './repo-facts';
import { measureConventions } from './conventions';

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
  /** Usage keys queued for background parsing, so repeated calls do not queue the same file twice. */
  private readonly warming = new Set<string>();
  private readonly seenGraphs = new WeakSet<ImportGraph>();
  private readonly warmQueue: { key: string; run: () => void; what: string }[] = [];
  private warmTimer: NodeJS.Timeout | null = null;
  private lastBusy = 0;
  /** Parsed usages by file hash and the specifiers asked about; file content never changes under a hash. */
  private readonly usages = new Map<string, Usage[]>();

  constructor(readonly store: AnalysisStore, readonly log: Logger, readonly pullRequests: PullRequestConfig) {
    this.graphs = new GraphCache(store);
  }

  graph(repoId: string): ImportGraph {
    const graph = this.graphs.get(repoId);
    if (!this.seenGraphs.has(graph)) {
      // A new index generation: prepare what the blueprint and docs read, in a quiet moment.
      this.seenGraphs.add(graph);
      const key = `facts\0${repoId}\0${graph.generation}`;
      this.warming.add(key);
      this.warmQueue.push({ key, what: `repository ${repoId}`, run: () => {
        if (this.graphs.get(repoId) !== graph) return; // superseded by a newer generation
        this.entries(repoId, graph);
        this.facts(repoId, graph);
        this.exportedSymbols(repoId, graph);
        measureConventions(this, { id: repoId }, graph, null);
      } });
      this.scheduleWarm(QUIET_MS);
    }
    return graph;
  }

  entries(repoId: string, graph: ImportGraph): EntryPoint[] {
    let list = this.entryPoints.get(graph);
    if (!list) {
      list = findEntryPoints(graph, (p) => this.store.fileText(repoId, p));
      this.entryPoints.set(graph, list);
    }
    return list;
  }

  facts(repoId: string, graph: ImportGraph): RepoFacts {
    let facts = this.factsByGraph.get(graph);
    if (!facts) {
      facts = computeFacts(graph, (p) => this.store.fileText(repoId, p));
      this.factsByGraph.set(graph, facts);
    }
    return facts;
  }

  /** Symbols of one file, read on first use (radius needs only its target's, not the repository's). */
  fileSymbols(graph: ImportGraph, index: number): RepoSymbolRow[] {
    let perFile = this.fileSymbolsByGraph.get(graph);
    if (!perFile) this.fileSymbolsByGraph.set(graph, (perFile = new Map()));
    let list = perFile.get(index);
    if (!list) perFile.set(index, (list = this.store.symbolsOf(graph.files[index].id)));
    return list;
  }

  /** Exported top-level symbols, by file index. */
  exportedSymbols(repoId: string, graph: ImportGraph): Map<number, RepoSymbolRow[]> {
    let map = this.exportedByGraph.get(graph);
    if (!map) {
      map = new Map();
      for (const s of this.store.exportedSymbols(repoId)) {
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

  /** Symbols of every file, by file index in the graph. */
  symbols(repoId: string, graph: ImportGraph): Map<number, RepoSymbolRow[]> {
    let map = this.symbolsByGraph.get(graph);
    if (!map) {
      map = new Map();
      for (const s of this.store.symbols(repoId)) {
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

  /** Where file `index` uses what it imports through `specifiers`. */
  usagesIn(repoId: string, graph: ImportGraph, index: number, specifiers: Set<string>): Usage[];
  /** With `parse` false: only what is already cached, else undefined. */
  usagesIn(repoId: string, graph: ImportGraph, index: number, specifiers: Set<string>, parse: false): Usage[] | undefined;
  usagesIn(repoId: string, graph: ImportGraph, index: number, specifiers: Set<string>, parse = true): Usage[] | undefined {
    const file = graph.files[index];
    const key = this.usageKey(graph, index, specifiers);
    let found = this.usages.get(key);
    if (!found && !parse) return undefined;
    if (!found) {
      const text = this.store.fileText(repoId, file.path) ?? '';
      found = findUsages(file.path, text, specifiers);
      if (this.usages.size >= USAGE_CACHE_SIZE) this.usages.delete(this.usages.keys().next().value!);
      this.usages.set(key, found);
    }
    return found;
  }

  private usageKey(graph: ImportGraph, index: number, specifiers: Set<string>): string {
    const file = graph.files[index];
    return `${file.hash}\0${file.path}\0${[...specifiers].sort().join('\0')}`;
  }

  /**
   * Parses the given files' usages off the request path so a radius answer cut short by its time
   * budget is complete on a later call. The work waits for a quiet moment (no analysis call for
   * QUIET_MS) and runs in short slices, so it never sits inside another request's latency.
   */
  warmUsages(repoId: string, graph: ImportGraph, jobs: { user: number; specifiers: Set<string> }[]): void {
    for (const j of jobs) {
      const key = this.usageKey(graph, j.user, j.specifiers);
      if (this.warming.has(key)) continue;
      this.warming.add(key);
      this.warmQueue.push({ key, run: () => { this.usagesIn(repoId, graph, j.user, j.specifiers); }, what: graph.path(j.user) });
    }
    this.scheduleWarm(QUIET_MS);
  }

  /** Files still queued for background parsing (benchmarks wait for 0). */
  pendingWarm(): number {
    return this.warmQueue.length;
  }

  /** Marks an analysis call: background parsing steps aside until the calls pause. */
  busy(): void {
    this.lastBusy = performance.now();
  }

  private scheduleWarm(delay: number): void {
    if (this.warmTimer || !this.warmQueue.length) return;
    this.warmTimer = setTimeout(() => {
      this.warmTimer = null;
      const quietFor = performance.now() - this.lastBusy;
      if (quietFor < QUIET_MS) { this.scheduleWarm(QUIET_MS - quietFor); return; }
      const until = performance.now() + WARM_SLICE_MS;
      while (this.warmQueue.length && performance.now() < until) {
        const job = this.warmQueue.shift()!;
        try { job.run(); } catch (error) { this.log.debug(`background analysis of ${job.what}: ${(error as Error).message}`); }
        this.warming.delete(job.key);
      }
      this.scheduleWarm(0);
    }, delay);
    this.warmTimer.unref();
  }
}
