import type { AnalysisStore, RepoSymbolRow } from '../store/analysis-store';
import type { Logger } from '../log';
import { CoChangeHistory } from './co-change';
import { findEntryPoints, type EntryPoint } from './entry-points';
import { GraphCache, type ImportGraph } from './import-graph';
import { findUsages, type Usage } from './references';
import type { PullRequestConfig } from './pull-requests';
import { computeFacts, type RepoFacts } from './repo-facts';

const USAGE_CACHE_SIZE = 20_000;
/** Background parsing yields to other work after this long. */
const WARM_SLICE_MS = 10;

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
  /** Parsed usages by file hash and the specifiers asked about; file content never changes under a hash. */
  private readonly usages = new Map<string, Usage[]>();

  constructor(readonly store: AnalysisStore, readonly log: Logger, readonly pullRequests: PullRequestConfig) {
    this.graphs = new GraphCache(store);
  }

  graph(repoId: string): ImportGraph {
    return this.graphs.get(repoId);
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
   * Parses the given files' usages off the request path, a few at a time between other work, so a
   * radius answer cut short by its time budget is complete on the next call.
   */
  warmUsages(repoId: string, graph: ImportGraph, jobs: { user: number; specifiers: Set<string> }[]): void {
    const queue = jobs.filter((j) => {
      const key = this.usageKey(graph, j.user, j.specifiers);
      if (this.warming.has(key)) return false;
      this.warming.add(key);
      return true;
    });
    if (!queue.length) return;
    const step = () => {
      const until = performance.now() + WARM_SLICE_MS;
      while (queue.length && performance.now() < until) {
        const job = queue.shift()!;
        try { this.usagesIn(repoId, graph, job.user, job.specifiers); } catch (error) { this.log.debug(`usages of ${graph.path(job.user)}: ${(error as Error).message}`); }
        this.warming.delete(this.usageKey(graph, job.user, job.specifiers));
      }
      if (queue.length) setImmediate(step);
    };
    setImmediate(step);
  }
}
