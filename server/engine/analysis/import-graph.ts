import type { AnalysisStore, GraphEdgeRow, GraphFileRow } from '../store/analysis-store';
import type { Async } from '../store/surface';
import { GoPackages } from './go-packages';

/** One import relation between two indexed files (several statements between the same pair are merged). */
export interface FileEdge {
  from: number;
  to: number;
  /** True only when every statement of the pair is type-only (erased at run time). */
  typeOnly: boolean;
  /** True when one of the statements re-exports (`export … from`, `export * from`). */
  reexport: boolean;
  /**
   * True only when every statement of the pair is written in test code (kind `test-use`): the importer depends
   * on the target, but its own users do not through this edge (a leaf of the reverse walk).
   */
  testOnly: boolean;
}

export interface Dependent {
  file: number;
  /** 1 = imports a target directly. */
  depth: number;
  /** File indexes from the dependent to the target it reaches (a shortest path). */
  via: number[];
  /** True when no chain of run-time imports reaches a target: only types flow. */
  typeOnly: boolean;
}

/**
 * Rust's `mod x;` (kind `import`; `include` with a `#[path]`) declares a module of the crate; it uses nothing.
 * Code that uses x names it in a `use` (resolved to x's own file), and a `pub use self::x::*` is its own
 * re-export edge. As an edge it made every importer of lib.rs a dependent of every module, and lib.rs's
 * tests reach all of them; it stays a statement (scope, symbol users), not an edge.
 */
function declaresModule(file: GraphFileRow, e: GraphEdgeRow): boolean {
  return file.language === 'rust' && (e.kind === 'import' || e.kind === 'include');
}

/**
 * A repository's import graph in memory: files by dense index, forward and reverse adjacency, and
 * the package imports. Built once from two queries and reused until the repository's generation
 * counter moves, so a radius query is a breadth-first walk over arrays, not SQL.
 */
export class ImportGraph {
  readonly files: GraphFileRow[];
  readonly edges: GraphEdgeRow[];
  readonly indexOfPath = new Map<string, number>();
  readonly indexOfFileId = new Map<number, number>();
  readonly out: FileEdge[][];
  readonly in: FileEdge[][];
  /** Raw import statements of each file, by file index. */
  readonly statements: GraphEdgeRow[][];
  /** package or import name → files importing it */
  readonly packageImporters = new Map<string, Set<number>>();
  private readonly depth: Int32Array;
  private readonly parent: Int32Array;
  /** Depth and parent along ordinary edges only: the path a node's own dependents are reached by. */
  private readonly walkDepth: Int32Array;
  private readonly walkParent: Int32Array;
  /** Bit 1: reached through run-time edges; bit 2: expanded (reached through ordinary run-time edges). */
  private readonly runtime: Uint8Array;

  constructor(readonly generation: number, files: GraphFileRow[], edges: GraphEdgeRow[]) {
    this.files = files;
    this.edges = edges;
    files.forEach((f, i) => { this.indexOfPath.set(f.path, i); this.indexOfFileId.set(f.id, i); });
    const n = files.length;
    this.out = Array.from({ length: n }, () => []);
    this.in = Array.from({ length: n }, () => []);
    this.statements = Array.from({ length: n }, () => []);
    const pair = new Map<number, FileEdge>();
    const link = (from: number, to: number, typeOnly: boolean, reexport: boolean, testOnly = false) => {
      if (to === from) return;
      const key = from * n + to;
      const existing = pair.get(key);
      if (existing) {
        existing.typeOnly &&= typeOnly;
        existing.reexport ||= reexport;
        existing.testOnly &&= testOnly;
        return;
      }
      const edge: FileEdge = { from, to, typeOnly, reexport, testOnly };
      pair.set(key, edge);
      this.out[from].push(edge);
      this.in[to].push(edge);
    };
    const go = files.some((f) => f.language === 'go') ? new GoPackages(files) : null;
    for (const e of edges) {
      const from = this.indexOfFileId.get(e.fileId);
      if (from === undefined) continue;
      this.statements[from].push(e);
      if (e.packageName) {
        let set = this.packageImporters.get(e.packageName);
        if (!set) this.packageImporters.set(e.packageName, (set = new Set()));
        set.add(from);
      }
      if (e.targetPath === null || declaresModule(files[from], e)) continue;
      const to = this.indexOfPath.get(e.targetPath);
      if (to === undefined) continue;
      const reexport = e.kind === 'export' || e.kind === 'export-all';
      // A Go import names a package: an edge to each of its files (a `reference`, a sibling's name, is one file's).
      if (go && files[from].language === 'go' && files[to].language === 'go' && e.kind !== 'reference') {
        for (const member of go.packageOf(to)) link(from, member, e.typeOnly, reexport);
      } else {
        link(from, to, e.typeOnly, reexport, e.kind === 'test-use');
      }
    }
    // A Go test file of a package's own (not `_test`) package is compiled with the package's files.
    if (go) files.forEach((_, i) => { if (go.isInternalTest(i)) for (const member of go.packageOf(i)) link(i, member, false, false); });
    this.depth = new Int32Array(n);
    this.parent = new Int32Array(n);
    this.walkDepth = new Int32Array(n);
    this.walkParent = new Int32Array(n);
    this.runtime = new Uint8Array(n);
  }

  static async load(store: Async<AnalysisStore>, repoId: string): Promise<ImportGraph> {
    const { generation, files, edges } = await store.graph(repoId);
    return new ImportGraph(generation, files, edges);
  }

  path(index: number): string {
    return this.files[index].path;
  }

  /**
   * Every file that reaches one of `targets` through imports (the reverse transitive closure),
   * nearest first. Depth and `via` come from a breadth-first walk over all edges; `typeOnly` from
   * a second walk over run-time edges only. A test-only edge is a leaf: its importer is a dependent
   * (its tests use the target), but the walk goes on from the importer only if an ordinary edge reaches
   * it too, and then from that edge's depth.
   */
  dependents(targets: number[], seedDepth = 0): Dependent[] {
    const { depth, parent, walkDepth, walkParent, runtime } = this;
    depth.fill(-1);
    walkDepth.fill(-1);
    runtime.fill(0);
    const queue: number[] = [];
    const found: number[] = [];
    for (const t of targets) {
      if (depth[t] !== -1) continue;
      depth[t] = walkDepth[t] = seedDepth;
      parent[t] = walkParent[t] = -1;
      queue.push(t);
    }
    // The queue holds the nodes reached through ordinary edges, by their depth along them.
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head];
      const next = walkDepth[node] + 1;
      for (const e of this.in[node]) {
        if (depth[e.from] === -1) {
          depth[e.from] = next;
          parent[e.from] = node;
          found.push(e.from);
        }
        if (e.testOnly || walkDepth[e.from] !== -1) continue;
        walkDepth[e.from] = next;
        walkParent[e.from] = node;
        queue.push(e.from);
      }
    }
    const runtimeQueue = [...new Set(targets)];
    for (const t of runtimeQueue) runtime[t] = 3;
    for (let head = 0; head < runtimeQueue.length; head++) {
      for (const e of this.in[runtimeQueue[head]]) {
        if (e.typeOnly || runtime[e.from] & (e.testOnly ? 1 : 2)) continue;
        runtime[e.from] |= e.testOnly ? 1 : 3;
        if (!e.testOnly) runtimeQueue.push(e.from);
      }
    }
    const out: Dependent[] = [];
    for (const node of found) {
      // The last step may be a test-only edge; the path before it runs along ordinary edges.
      const via = [node];
      for (let at = parent[node]; at !== -1; at = walkParent[at]) via.push(at);
      out.push({ file: node, depth: depth[node], via, typeOnly: runtime[node] === 0 });
    }
    return out;
  }

  /**
   * Files one of `sources` imports, directly or transitively (the forward closure). A test-only edge is
   * followed from a source only: another file's tests are not run by the sources.
   */
  reachableFrom(sources: number[]): Set<number> {
    const seeds = new Set(sources);
    const seen = new Set(seeds);
    const queue = [...seeds];
    for (let head = 0; head < queue.length; head++) {
      const fromSource = seeds.has(queue[head]);
      for (const e of this.out[queue[head]]) {
        if (e.testOnly && !fromSource) continue;
        if (!seen.has(e.to)) { seen.add(e.to); queue.push(e.to); }
      }
    }
    return seen;
  }

  /** Files importing a package or import name (a bare specifier or its package), by index. */
  importersOf(name: string): number[] {
    const byPackage = this.packageImporters.get(name);
    const found = new Set(byPackage ?? []);
    for (let i = 0; i < this.statements.length; i++) {
      if (this.statements[i].some((s) => s.specifier === name)) found.add(i);
    }
    return [...found].sort((a, b) => a - b);
  }
}

/**
 * Keeps one graph per repository and rebuilds it only when the repository's generation counter
 * (bumped by triggers on every index write) has moved. Checking the counter is one indexed read.
 * On a team server's API node, while `trusted()` (its LISTEN connection hears every change, team/notify.ts),
 * a cached graph is used without that read until `forget` says the repository changed.
 */
export class GraphCache {
  private readonly graphs = new Map<string, ImportGraph>();
  /** A load in flight per repository and generation, so concurrent requests read the graph once. */
  private readonly loading = new Map<string, { generation: number; graph: Promise<ImportGraph> }>();
  /** Bumped by `forget`; a graph is trusted without a read only if loaded in the current epoch. */
  private readonly epochs = new Map<string, number>();
  private readonly loadedIn = new WeakMap<ImportGraph, number>();
  private trusted: () => boolean = () => false;

  constructor(private readonly store: Async<AnalysisStore>) {}

  /** Trust cached graphs without reading the generation while `trusted()` (every change is heard and forgotten). */
  trustWhile(trusted: () => boolean): void {
    this.trusted = trusted;
  }

  async get(repoId: string): Promise<ImportGraph> {
    const epoch = this.epochs.get(repoId) ?? 0;
    const known = this.graphs.get(repoId);
    if (known && this.trusted() && this.loadedIn.get(known) === epoch) return known;
    const generation = await this.store.generation(repoId);
    const cached = this.graphs.get(repoId);
    if (cached && cached.generation === generation) {
      if ((this.epochs.get(repoId) ?? 0) === epoch) this.loadedIn.set(cached, epoch);
      return cached;
    }
    const inFlight = this.loading.get(repoId);
    if (inFlight && inFlight.generation === generation) return inFlight.graph;
    const graph = ImportGraph.load(this.store, repoId);
    const entry = { generation, graph };
    this.loading.set(repoId, entry);
    try {
      const loaded = await graph;
      // A newer generation may have been loaded meanwhile: keep whichever is newer.
      const now = this.graphs.get(repoId);
      if (!now || now.generation <= loaded.generation) {
        this.graphs.set(repoId, loaded);
        // Read after the epoch began: trusted until the next change is heard.
        if ((this.epochs.get(repoId) ?? 0) === epoch) this.loadedIn.set(loaded, epoch);
      }
      return loaded;
    } finally {
      if (this.loading.get(repoId) === entry) this.loading.delete(repoId);
    }
  }

  /** The graph last loaded for a repository, without asking the store (undefined before the first load). */
  peek(repoId: string): ImportGraph | undefined {
    return this.graphs.get(repoId);
  }

  forget(repoId: string): void {
    this.epochs.set(repoId, (this.epochs.get(repoId) ?? 0) + 1);
    this.graphs.delete(repoId);
    this.loading.delete(repoId);
  }

  /** Every repository may have changed (the listener reconnected). */
  forgetAll(): void {
    for (const repoId of new Set([...this.graphs.keys(), ...this.loading.keys(), ...this.epochs.keys()])) this.forget(repoId);
  }
}
