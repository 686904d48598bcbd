import type { Logger } from '../log';
import type { DerivedIndex, IndexProgress } from '../indexer/derived-index';
import type { IndexWriter, VectorWriter } from '../indexer/index-writer';
import type { EmbeddingModelRow, VectorsStore } from '../store/vectors-store';
import type { Async } from '../store/surface';
import { asyncStore } from '../store/async-store';
import type { Embedder, EmbedderConfig } from './embedder';
import { HashedEmbedder } from './hashed-embedder';
import { CorpusEmbedder } from './corpus-embedder';
import { deserializeModel } from './corpus-model';
import { trainSerializedOffThread } from './train-off-thread';
import type { EmbedAheadRequest, EmbeddedAhead } from './train-worker';
import { createEmbedder } from './providers';
import { LoupeError } from '../errors';
import { documentText, VectorWrites, type CorpusModelRef, type EmbedStep } from './vector-writes';

export { documentText };

export interface VectorIndexOptions {
  /** The corpus model is trained once this many chunks are indexed; before that, hashed features. */
  minTrainChunks: number;
  /** Retrain when the index has grown this many times past the chunks the model was trained on. */
  retrainGrowth: number;
  corpusDims: number;
  batchSize: number;
  maxTrainDocs: number;
  /**
   * Vectors kept in memory up to this many floats (32 MB); larger indexes use the store's KNN. 0 keeps none
   * (a search over another backend's reads, whose vectors this process does not write).
   */
  memoryFloats: number;
}

export const DEFAULT_VECTOR_OPTIONS: VectorIndexOptions = {
  minTrainChunks: 200, retrainGrowth: 2, corpusDims: 128, batchSize: 256, maxTrainDocs: 8000, memoryFloats: 8_000_000,
};

/** How long one embedding batch (embed + write) may hold the thread that answers requests. */
const EMBED_SLICE_MS = 10;
/**
 * One slice of the corpus model's embedding in the index writer's thread: it holds no thread that
 * answers, but an edit's write waits behind it.
 */
const WRITER_SLICE_MS = 25;

/** How far below the highest embedded chunk id an edit's chunks are looked for first (re-used ids). */
const NEWEST_WINDOW = 512;
/** Vectors embedded ahead go to the writer this many per transaction (~10 ms of vec0 inserts). */
const AHEAD_SLICE = 2048;

export interface ActiveModel { id: number; embedder: Embedder; row: EmbeddingModelRow }

/**
 * Locks that several processes writing one index take around a vector update (the team server's
 * workers: PostgreSQL advisory locks). `shared` is held while one repository's chunks are embedded into
 * the active model (other holders embed other repositories at the same time); `exclusive` while a model
 * is chosen, trained, filled for every repository, activated or retired. Each resolves to its release,
 * or null when the signal aborted the wait.
 */
export interface VectorLocks {
  shared(signal: AbortSignal): Promise<(() => Promise<void>) | null>;
  exclusive(signal: AbortSignal): Promise<(() => Promise<void>) | null>;
}

/**
 * A store whose KNN runs on an index of its own (pgvector's HNSW) for a model: a search asks it, and
 * nothing of that model is held in memory (PgVectorsStore.indexedKnn).
 */
interface IndexedKnn { indexedKnn(modelId: number): Promise<boolean> }
const indexedKnnOf = (reads: object): IndexedKnn | null =>
  typeof (reads as Partial<IndexedKnn>).indexedKnn === 'function' ? reads as IndexedKnn : null;

/**
 * A corpus model trained for `chunks` chunks (its serialized data; null when there was too little text), and
 * when it began; begun early, with the repository's chunks embedded by the training worker (`embedded`), read
 * when the writer had made `chunkWrites` calls that change chunks.
 */
interface Trained { chunks: number; model: { data: Buffer; terms: number; threads: number; embedded: EmbeddedAhead | null } | null; started: number; chunkWrites?: number }
/** Vectors the training worker embedded, for the model `modelId` once it is registered. */
interface Ahead { modelId: number; embedded: EmbeddedAhead }

/**
 * Chunk vectors as a DerivedIndex. After each index update it embeds the chunks that have no vector
 * in the current model (so a killed process resumes), in batches committed one by one. A new model
 * (a retrained corpus model, or another provider) is filled in the background while search keeps
 * using the active one; it becomes active only when every chunk has its vector.
 */
export class VectorIndex implements DerivedIndex {
  readonly name = 'vectors';
  private readonly options: VectorIndexOptions;
  private readonly embedders = new Map<number, Embedder>();
  private lock: Promise<void> = Promise.resolve();
  private background: Promise<void> | null = null;
  /** A training begun before the update that will want it (prepare). */
  private early: Promise<Trained | null> | null = null;
  /** What that training's worker embedded, until the fill that stores it. */
  private ahead: Ahead | null = null;
  private providerEmbedder: Embedder | null = null;
  /** The active model's vectors in memory, when small enough: a scan in JS beats vec0's without SIMD. */
  private memory: { modelId: number; ids: Int32Array; repos: string[]; data: Float32Array } | null = null;
  /** Bumped whenever vectors change: a copy read before the change is not taken. */
  private generation = 0;
  /** A copy being read by the writer's thread (at most one at a time). */
  private reading: Promise<void> | null = null;
  /** Fills running: vectors change under them, so no copy is read meanwhile. */
  private filling = 0;
  /** The highest chunk id embedded in this process, by model (where an edit's new chunks start). */
  private readonly highest = new Map<number, number>();
  /** The corpus model's embedding on this thread (no writer thread: an in-memory index, tests); null over an async store. */
  private readonly local: VectorWrites | null;
  /** What the derived index writes (models, vectors): the sync store, or the async one (the team server's worker, PostgreSQL). */
  private readonly writes: VectorsStore | Async<VectorsStore>;
  /** The sync store, when this process writes the index it searches (SQLite); null when it reads another backend. */
  private readonly store: VectorsStore | null;
  /**
   * Over another backend (an API node): the active model's vectors of a repository, read once and kept
   * while `trusted()` (every change to the repository is heard: LISTEN/NOTIFY) until `forgetRepository`.
   */
  private readonly repoMemory = new Map<string, { modelId: number; ids: Int32Array; data: Float32Array }>();
  private readonly repoLoading = new Map<string, Promise<void>>();
  /** Bumped when a repository's memory is forgotten: a read started before is not kept. */
  private readonly repoEpochs = new Map<string, number>();
  /** Repositories whose vectors did not fit (until they change). */
  private readonly repoTooLarge = new Set<string>();
  private trusted: () => boolean = () => false;
  /** The index writer's thread, which reads, embeds and writes the corpus model's vectors when there is one. */
  private writer: VectorWriter | null = null;
  /** Cross-process locks around updates (the team server's workers), see `useLocks`. */
  private locks: VectorLocks | null = null;

  /** What a search reads (the model rows, a model's data, KNN) through: the async surface, so it may be PostgreSQL's. */
  private readonly reads: Async<VectorsStore>;

  /**
   * `store` is what this index writes (and reads to write); `reads`, what a search reads through
   * (`EngineCore.reads.vectors`, or PostgreSQL's vectors store), by default `store` seen as async.
   * `store` null: the index is another backend's (`reads`), which it also writes when it is the
   * derived index of that backend's indexer (the team server's worker) and only reads on an API node.
   */
  constructor(
    store: VectorsStore | null,
    private readonly log: Logger,
    private config: EmbedderConfig = { kind: 'corpus' },
    options: Partial<VectorIndexOptions> = {},
    reads?: Async<VectorsStore>,
  ) {
    this.options = { ...DEFAULT_VECTOR_OPTIONS, ...options };
    if (!store && !reads) throw new LoupeError('INTERNAL', 'a vector index needs a store');
    this.store = store;
    this.local = store ? new VectorWrites(store) : null;
    this.reads = reads ?? asyncStore(store!);
    this.writes = store ?? this.reads;
  }

  /**
   * Over another backend: keep repositories' vectors in memory while `trusted()` says every change is
   * heard (team/notify.ts's listener is connected); `forgetRepository` drops one when it changes.
   */
  keepInMemoryWhile(trusted: () => boolean): void {
    this.trusted = trusted;
  }

  /** A repository changed (its chunks, or its vectors): what this process holds of it is read again. */
  forgetRepository(repoId: string): void {
    this.repoEpochs.set(repoId, (this.repoEpochs.get(repoId) ?? 0) + 1);
    this.repoMemory.delete(repoId);
    this.repoTooLarge.delete(repoId);
  }

  /** Everything may have changed (the listener reconnected): drop every repository's vectors. */
  forgetAll(): void {
    for (const repoId of new Set([...this.repoMemory.keys(), ...this.repoEpochs.keys(), ...this.repoLoading.keys()])) this.forgetRepository(repoId);
    this.repoTooLarge.clear();
  }

  /** Floats held in memory for repositories (tests, the API node's log). */
  get repositoryMemory(): { repos: number; floats: number } {
    let floats = 0;
    for (const m of this.repoMemory.values()) floats += m.data.length;
    return { repos: this.repoMemory.size, floats };
  }

  /**
   * Several processes write this index (the team server's workers): an update embeds its repository
   * into the active model under `locks.shared` (workers fill different repositories at once), and takes
   * `locks.exclusive` only to choose, train, build, activate or retire a model.
   */
  useLocks(locks: VectorLocks): void {
    this.locks = locks;
  }

  /** The indexer's writer: with a thread of its own, the corpus model's vectors are made there. */
  useWriter(writer: IndexWriter): void {
    this.writer = writer.vectors ?? null;
  }

  /** The model search should use now, or null before any vector exists. */
  active(): ActiveModel | null {
    const row = this.syncStore().models().find((m) => m.state === 'active');
    if (!row) return null;
    try {
      return { id: row.id, row, embedder: this.embedderFor(row) };
    } catch {
      return null; // a provider not configured in this process: lexical search only until its replacement is built
    }
  }

  /** The model a search uses now, read through the async surface (the request path); null before any vector exists. */
  async activeAsync(): Promise<ActiveModel | null> {
    const row = (await this.reads.models()).find((m) => m.state === 'active');
    if (!row) return null;
    let embedder = this.embedders.get(row.id);
    if (!embedder) {
      // The corpus model's data is read (awaited) only the first time; the rest is embedderFor's.
      const data = row.provider === 'corpus' && row.name === 'lsa' ? await this.reads.modelData(row.id) : null;
      try {
        embedder = this.embedderFor(row, data);
      } catch {
        return null; // a provider not configured in this process: lexical search only until its replacement is built
      }
    }
    return { id: row.id, row, embedder };
  }

  /**
   * nearest() for a search: from memory when this process holds a copy, else the store's KNN read
   * through the async surface (sqlite-vec's vec0, or PostgreSQL's pgvector / bytea scan).
   */
  async nearestAsync(model: ActiveModel, query: Float32Array, repoIds: string[], k: number): Promise<{ chunkId: number; distance: number }[]> {
    if (!this.store) return this.nearestRemote(model, query, repoIds, k);
    const mem = this.loadMemory(model);
    if (!mem) return this.reads.nearest(model.id, query, repoIds, k);
    return this.nearestIn(mem, model, query, repoIds, k);
  }

  /**
   * The chunks nearest to a query vector (cosine distance) in some repositories. Served from memory
   * for indexes up to `memoryFloats` floats, else by sqlite-vec's KNN over the vec0 table.
   */
  nearest(model: ActiveModel, query: Float32Array, repoIds: string[], k: number): { chunkId: number; distance: number }[] {
    const mem = this.loadMemory(model);
    if (!mem) return this.syncStore().nearest(model.id, query, repoIds, k);
    return this.nearestIn(mem, model, query, repoIds, k);
  }

  private syncStore(): VectorsStore {
    if (!this.store) throw new LoupeError('INTERNAL', 'this vector index reads another backend: use activeAsync and nearestAsync');
    return this.store;
  }

  /**
   * Over another backend: the repositories held in memory are scanned here, the others asked of the
   * store (pgvector's HNSW, or the bytea scan) while their vectors are read for the next search.
   */
  private async nearestRemote(model: ActiveModel, query: Float32Array, repoIds: string[], k: number): Promise<{ chunkId: number; distance: number }[]> {
    if (!this.options.memoryFloats || !this.trusted()) return this.reads.nearest(model.id, query, repoIds, k);
    // pgvector: the database answers from its HNSW index; this process holds none of the vectors.
    if (await indexedKnnOf(this.reads)?.indexedKnn(model.id)) return this.reads.nearest(model.id, query, repoIds, k);
    const held: { modelId: number; ids: Int32Array; data: Float32Array }[] = [];
    const rest: string[] = [];
    for (const repoId of repoIds) {
      const mem = this.repoMemory.get(repoId);
      if (mem && mem.modelId === model.id) held.push(mem);
      else {
        rest.push(repoId);
        this.loadRepository(model, repoId);
      }
    }
    const out = rest.length ? await this.reads.nearest(model.id, query, rest, k) : [];
    // The k nearest of the held ones, kept in a bounded heap as they are scored: the same k (by
    // distance, then chunk id) as sorting every chunk, without an object per chunk and a sort of
    // them all (on phaser ×4, 24,825 chunks: most of a hybrid search's time).
    const best = new NearestK(k);
    const dims = model.row.dims;
    for (const mem of held) {
      for (let i = 0; i < mem.ids.length; i++) {
        let dot = 0;
        const o = i * dims;
        for (let d = 0; d < dims; d++) dot += mem.data[o + d] * query[d];
        best.offer(mem.ids[i]!, 1 - dot);
      }
    }
    out.push(...best.items());
    return out.sort((a, b) => a.distance - b.distance || a.chunkId - b.chunkId).slice(0, k);
  }

  /** Reads a repository's vectors of the active model in the background, kept unless it changed meanwhile. */
  private loadRepository(model: ActiveModel, repoId: string): void {
    if (this.repoLoading.has(repoId) || this.repoTooLarge.has(repoId)) return;
    const epoch = this.repoEpochs.get(repoId) ?? 0;
    const loading = (async () => {
      const { ids, data } = await this.reads.all(model.id, model.row.dims, repoId);
      if ((this.repoEpochs.get(repoId) ?? 0) !== epoch || !this.trusted()) return;
      // Vectors of other models (a retrained one replaced them) go.
      for (const [r, m] of this.repoMemory) if (m.modelId !== model.id) this.repoMemory.delete(r);
      if (this.repositoryMemory.floats + data.length > this.options.memoryFloats) {
        this.repoTooLarge.add(repoId);
        return;
      }
      // Unit vectors (the store's scan normalizes; these are written normalized): a dot product is the cosine.
      this.repoMemory.set(repoId, { modelId: model.id, ids, data });
    })().catch((error) => this.log.warn(`reading the vectors of ${repoId} into memory failed:`, error as Error))
      .finally(() => { if (this.repoLoading.get(repoId) === loading) this.repoLoading.delete(repoId); });
    this.repoLoading.set(repoId, loading);
  }

  private nearestIn(
    mem: NonNullable<VectorIndex['memory']>, model: ActiveModel, query: Float32Array, repoIds: string[], k: number,
  ): { chunkId: number; distance: number }[] {
    const dims = model.embedder.dims;
    const wanted = new Set(repoIds);
    const n = mem.ids.length;
    // Keep the k best in a simple bounded list (k is small next to n).
    const bestScore = new Float64Array(k).fill(-Infinity);
    const bestIndex = new Int32Array(k).fill(-1);
    let worst = 0;
    for (let i = 0; i < n; i++) {
      let dot = 0;
      const o = i * dims;
      for (let d = 0; d < dims; d++) dot += mem.data[o + d] * query[d];
      if (dot <= bestScore[worst] || !wanted.has(mem.repos[i])) continue;
      bestScore[worst] = dot;
      bestIndex[worst] = i;
      for (let j = 0; j < k; j++) if (bestScore[j] < bestScore[worst]) worst = j;
    }
    const out: { chunkId: number; distance: number }[] = [];
    for (let j = 0; j < k; j++) if (bestIndex[j] >= 0) out.push({ chunkId: mem.ids[bestIndex[j]], distance: 1 - bestScore[j] });
    return out.sort((a, b) => a.distance - b.distance);
  }

  private loadMemory(model: ActiveModel): VectorIndex['memory'] {
    if (this.memory?.modelId === model.id) return this.memory;
    if (!this.options.memoryFloats) return null;
    if (this.writer && model.row.provider === 'corpus') {
      // Read by the writer's thread and moved here as packed arrays (16 MB on phaser ×4: reading it
      // on this thread held it for the first search after every edit); vec0 answers meanwhile.
      this.readMemory(this.writer, model);
      return null;
    }
    if (!this.store || this.store.chunkCount() * model.embedder.dims > this.options.memoryFloats) return null;
    this.memory = { modelId: model.id, ...this.store.all(model.id, model.embedder.dims) };
    return this.memory;
  }

  private readMemory(writer: VectorWriter, model: ActiveModel): void {
    if (this.reading || this.filling) return;
    const generation = this.generation;
    this.reading = writer.packed(model.id, model.row.dims, this.options.memoryFloats).then((packed) => {
      if (!packed || generation !== this.generation) return;
      const repos = packed.repoIndex.length ? Array.from(packed.repoIndex, (i) => packed.repoList[i]) : [];
      this.memory = { modelId: model.id, ids: packed.ids, repos, data: packed.data };
    }).catch((error) => this.log.warn('reading the vectors into memory failed:', error as Error))
      .finally(() => { this.reading = null; });
  }

  /** Switches provider: the new model is filled in the background; search keeps the old one meanwhile. */
  setProvider(config: EmbedderConfig): Promise<void> {
    this.config = config;
    this.providerEmbedder = null;
    return this.refreshAll();
  }

  /** Embeds whatever is missing for every repository (after a provider change, or on start). */
  refreshAll(): Promise<void> {
    const run = this.exclusive(async () => {
      const target = await this.target();
      for await (const progress of this.fill(target, null, new AbortController().signal)) void progress;
      await this.finish(target.id);
    }).catch((error) => this.log.warn('re-embedding failed:', error as Error));
    const tracked: Promise<void> = run.finally(() => { if (this.background === tracked) this.background = null; });
    this.background = tracked;
    return tracked;
  }

  /** Resolves when background re-embedding is done (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.background) await this.background;
    await this.lock;
  }

  async *update(repoId: string, signal: AbortSignal): AsyncGenerator<IndexProgress> {
    let release!: () => void;
    const previous = this.lock;
    this.lock = new Promise((r) => { release = r; });
    await previous;
    // The index changed (chunks may be gone, ids reused): the in-memory copy is rebuilt on next use.
    this.memory = null;
    this.generation++;
    try {
      // Announced before the model is (re)trained, which can take seconds before the first batch.
      yield { index: this.name, done: 0, total: 0 };
      if (this.locks) {
        yield* this.updateLocked(this.locks, repoId, signal);
        return;
      }
      yield* this.build(repoId, signal);
    } finally {
      release();
    }
  }

  /** The model to fill (chosen, trained or retrained as needed), filled with the repository's chunks, then finished. */
  private async *build(repoId: string, signal: AbortSignal): AsyncGenerator<IndexProgress> {
    let target: ActiveModel;
    try {
      target = await this.target(signal);
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
    yield* this.fill(target, repoId, signal);
    if (signal.aborted) return;
    // A model still being built needs every repository's chunks before search may use it.
    if (target.row.state === 'building') yield* this.fill(target, null, signal);
    if (!signal.aborted) await this.finish(target.id);
  }

  /**
   * An update beside other processes: under the shared lock, a repository whose model needs no change
   * (the active one, not due for retraining) is filled; anything else (a first model, a retraining, a
   * half-built model, retired ones to drop) is done as without locks, under the exclusive lock.
   */
  private async *updateLocked(locks: VectorLocks, repoId: string, signal: AbortSignal): AsyncGenerator<IndexProgress> {
    const shared = await locks.shared(signal);
    if (!shared) return;
    let filled = false;
    let retired = false;
    try {
      const live = await this.writes.models();
      const target = await this.existingTarget(live.filter((m) => m.state !== 'retired'));
      if (target?.row.state === 'active') {
        yield* this.fill(target, repoId, signal);
        filled = true;
        retired = live.some((m) => m.state === 'retired');
      }
    } finally {
      await shared();
    }
    if (signal.aborted || (filled && !retired)) return;
    const exclusive = await locks.exclusive(signal);
    if (!exclusive) return;
    try {
      yield* this.build(repoId, signal);
    } finally {
      await exclusive();
    }
  }

  private async exclusive(fn: () => Promise<void>): Promise<void> {
    let release!: () => void;
    const previous = this.lock;
    this.lock = new Promise((r) => { release = r; });
    await previous;
    try { await fn(); } finally { release(); }
  }

  private async *fill(target: ActiveModel, repoId: string | null, signal: AbortSignal): AsyncGenerator<IndexProgress> {
    this.filling++;
    try {
      yield* this.fillAll(target, repoId, signal);
    } finally {
      this.filling--;
    }
  }

  private async *fillAll(target: ActiveModel, repoId: string | null, signal: AbortSignal): AsyncGenerator<IndexProgress> {
    const step = this.stepper(target, signal);
    let done = 0;
    const ahead = this.ahead?.modelId === target.id && (repoId === null || repoId === this.ahead.embedded.repoId) ? this.ahead.embedded : null;
    if (ahead) {
      this.ahead = null;
      for await (const p of this.storeAhead(target, ahead, signal)) {
        done = p.done;
        yield p;
      }
    }
    // After an edit the missing chunks are the newest ids (new ones, or the top ids re-used when the
    // last-written file was edited): read on from just below the highest id embedded so far, then
    // the three counts say whether anything is still missing. Looking for them over every chunk
    // (an anti-join against the vec0 table) held the main thread 60–90 ms on phaser, seconds on ×4.
    const seen = this.highest.get(target.id);
    if (seen !== undefined) {
      for (let after = Math.max(0, seen - NEWEST_WINDOW); !signal.aborted;) {
        const s = await step(repoId, after);
        if (!s.count) break;
        after = s.last;
        done += s.count;
        yield* this.stepped(target, s, done, done);
      }
    }
    const total = await this.countMissing(target, repoId);
    if (!total) return;
    // Read on from the last chunk seen; once at the end, a pass from the start catches chunks
    // written meanwhile under a lower (re-used) id.
    let after = 0;
    let fromStart = false;
    while (!signal.aborted) {
      const s = await step(repoId, after);
      if (!s.count) {
        if (fromStart || after === 0) break;
        fromStart = true;
        after = 0;
        continue;
      }
      after = s.last;
      done += s.count;
      yield* this.stepped(target, s, done, total);
    }
  }

  /** Stores what the training worker embedded, AHEAD_SLICE vectors a transaction; on a failure the fill that follows embeds the rest. */
  private async *storeAhead(target: ActiveModel, ahead: EmbeddedAhead, signal: AbortSignal): AsyncGenerator<IndexProgress> {
    const { ids, vectors, empty, dims } = ahead;
    for (let i = 0; i < ids.length && !signal.aborted; i += AHEAD_SLICE) {
      const j = Math.min(ids.length, i + AHEAD_SLICE);
      try {
        // Copies of the slice, each owning its buffer: moved to the writer's thread, not copied again.
        await this.writer!.putVectors(target.id, ahead.repoId, { ids: ids.slice(i, j), vectors: vectors.slice(i * dims, j * dims), empty: empty.slice(i, j), dims });
      } catch (error) {
        this.log.warn('storing the vectors embedded beside training failed:', error as Error);
        return;
      }
      yield* this.stepped(target, { count: j - i, last: ids[j - 1], top: ids[j - 1] }, j, ids.length);
    }
  }

  /** Notes what a slice wrote, reports it, and lets searches and requests run. */
  private async *stepped(target: ActiveModel, s: EmbedStep, done: number, total: number): AsyncGenerator<IndexProgress> {
    this.memory = null;
    this.generation++;
    if (s.top > (this.highest.get(target.id) ?? 0)) this.highest.set(target.id, s.top);
    yield { index: this.name, done, total };
    await new Promise((r) => setImmediate(r));
  }

  private countMissing(target: ActiveModel, repoId: string | null): Promise<number> | number {
    return this.writer && target.row.provider === 'corpus' ? this.writer.countMissing(target.id, repoId) : this.writes.countMissing(target.id, repoId);
  }

  /**
   * One slice of embedding: the corpus model's in the writer's thread when there is one (chunks read,
   * embedded and written there), else on this thread in ~EMBED_SLICE_MS slices; other providers
   * (ONNX, remote) embed outside this thread already, in whole batches.
   */
  private stepper(target: ActiveModel, signal: AbortSignal): (repoId: string | null, after: number) => Promise<EmbedStep> {
    if (target.row.provider === 'corpus') {
      const { name, dims, createdAt, trainedChunks } = target.row;
      const ref: CorpusModelRef = { id: target.id, name, dims, createdAt, trainedChunks };
      const writer = this.writer;
      const local = this.local;
      if (writer) return (repoId, after) => writer.embedSlice(ref, repoId, after, WRITER_SLICE_MS);
      if (local) return async (repoId, after) => local.embedSlice(ref, repoId, after, EMBED_SLICE_MS);
      // Over an async store (the team server's worker): the same corpus embedder, in whole batches
      // (the worker's event loop answers nothing else; each batch is one round trip each way).
    }
    let embedder: Embedder | null = null;
    // The corpus model embeds on this thread: its batches follow the measured time per chunk so that one
    // holds the event loop about WRITER_SLICE_MS (the team server's worker must keep its heartbeat).
    const sliced = target.row.provider === 'corpus';
    let size = sliced ? 32 : this.options.batchSize;
    return async (repoId, after) => {
      const batch = await this.writes.missing(target.id, repoId, size, after);
      if (!batch.length) return { count: 0, last: after, top: 0 };
      embedder ??= await this.embedderAsync(target.row);
      const t0 = performance.now();
      const vectors = await embedder.embed(batch.map(documentText), 'document', signal);
      if (sliced) size = Math.max(8, Math.min(this.options.batchSize, Math.floor(WRITER_SLICE_MS / Math.max(0.005, (performance.now() - t0) / batch.length))));
      await this.writes.put(target.id, batch.map((c, i) => ({ chunkId: c.id, repoId: c.repoId, vector: vectors[i] })));
      return { count: batch.length, last: batch[batch.length - 1].id, top: batch.reduce((m, c) => Math.max(m, c.id), 0) };
    };
  }

  /** A model's embedder, its data read through the store that writes (awaited). */
  private async embedderAsync(row: EmbeddingModelRow): Promise<Embedder> {
    const known = this.embedders.get(row.id);
    if (known) return known;
    const data = row.provider === 'corpus' && row.name === 'lsa' ? await this.writes.modelData(row.id) : null;
    return this.embedderFor(row, data);
  }

  /** Activates a complete model and drops the ones it replaces. */
  private async finish(id: number): Promise<void> {
    const row = (await this.writes.models()).find((m) => m.id === id);
    if (!row || await this.countMissing({ id, row } as ActiveModel, null) > 0) return;
    if (row.state !== 'active') await this.writes.activate(id);
    for (const old of (await this.writes.models()).filter((m) => m.state === 'retired')) {
      await this.writes.dropModel(old.id);
      await this.writes.forget(old.id);
      this.embedders.delete(old.id);
    }
  }

  /** The model new vectors go into: the newest non-retired one of the configured provider, made if needed. */
  private async target(signal?: AbortSignal): Promise<ActiveModel> {
    const live = (await this.writes.models()).filter((m) => m.state !== 'retired');
    if (this.config.kind === 'corpus') return this.corpusTarget(live, signal);
    const embedder = this.providerEmbedder ??= await createEmbedder(this.config);
    const name = embedder.id;
    let row = live.filter((m) => m.provider === this.config.kind && m.name === name).pop();
    if (!row) {
      await this.retireBuilding(live);
      const id = await this.writes.addModel(this.config.kind, name, embedder.dims, null, 0);
      row = (await this.writes.models()).find((m) => m.id === id)!;
    }
    this.embedders.set(row.id, embedder);
    return { id: row.id, row, embedder };
  }

  /**
   * The corpus model new vectors go into when it needs no change (exists, and is not due for training),
   * else null. Other providers: null (their target is made by `target`, which also makes their embedder:
   * their updates take the exclusive lock).
   */
  private async existingTarget(live: EmbeddingModelRow[]): Promise<ActiveModel | null> {
    if (this.config.kind !== 'corpus') return null;
    const current = live.filter((m) => m.provider === 'corpus').pop();
    if (!current) return null;
    const chunks = this.writer ? await this.writer.chunkCount() : await this.writes.chunkCount();
    return this.wantsTraining(chunks, current) ? null : this.lazy(current);
  }

  /** Whether a repository of `chunks` chunks wants the corpus model (re)trained, given the current one. */
  private wantsTraining(chunks: number, current: EmbeddingModelRow | undefined): boolean {
    return chunks >= this.options.minTrainChunks
      && (!current || current.name === 'hashed' || chunks >= current.trainedChunks * this.options.retrainGrowth);
  }

  /**
   * Starts training the corpus model as soon as the core index has its chunks, while the indexer still
   * fills the trigram index and links files (seconds on a large repository, when the training's core
   * was idle); the update that follows takes the model if the chunk count is still the one it was
   * trained for. Resolves once the sample's read is queued on the writer, ahead of the indexer's next
   * writes. Not beside other processes (locks): there the model is chosen under the exclusive lock.
   */
  async prepare(repoId: string, signal: AbortSignal): Promise<void> {
    if (this.config.kind !== 'corpus' || this.locks || this.early) return;
    const started = Date.now();
    const chunks = this.writer ? await this.writer.chunkCount() : await this.writes.chunkCount();
    const current = (await this.writes.models()).filter((m) => m.state !== 'retired' && m.provider === 'corpus').pop();
    if (!this.wantsTraining(chunks, current)) return;
    const sample = this.sample();
    // With a writer thread, the training worker goes on to embed the repository's chunks (read on its own
    // connection, beside the writer's trigram fill and links): the derived phase then only stores them.
    const writer = this.writer;
    const chunkWrites = writer?.chunkWrites();
    // Held by this thread until stored: at most as many floats as the in-memory vectors may take (the rest is embedded as before).
    const ahead = writer ? { file: writer.file(), repoId, maxChunks: Math.floor(this.options.memoryFloats / this.options.corpusDims) } : undefined;
    const early = (async (): Promise<Trained> => ({ chunks, started, chunkWrites, model: await this.train(await sample, chunks, signal, ahead) }))();
    early.catch(() => {}); // a failed or cancelled early training is trained again by the update
    this.early = early;
  }

  /** The early training's result when it was for `chunks` chunks; null otherwise (or when it failed). */
  private async takeEarly(chunks: number): Promise<Trained | null> {
    const early = this.early;
    this.early = null;
    const trained = early ? await early.catch(() => null) : null;
    return trained?.chunks === chunks ? trained : null;
  }

  /** About 8,000 chunk texts to train on, read by the writer's thread when there is one. */
  private sample(): Promise<string[] | Uint8Array> {
    return Promise.resolve(this.writer ? this.writer.sampleTexts(this.options.maxTrainDocs) : this.writes.sampleTexts(this.options.maxTrainDocs));
  }

  /**
   * Trains the corpus model in a worker thread. It comes back serialized: stored as it is (by the
   * writer's thread), parsed here only when a search needs it.
   */
  private train(sample: string[] | Uint8Array, chunks: number, signal?: AbortSignal, ahead?: EmbedAheadRequest): Promise<Trained['model']> {
    return trainSerializedOffThread(sample, { dims: this.options.corpusDims }, chunks, signal, ahead);
  }

  private async corpusTarget(live: EmbeddingModelRow[], signal?: AbortSignal): Promise<ActiveModel> {
    const chunks = this.writer ? await this.writer.chunkCount() : await this.writes.chunkCount();
    const current = live.filter((m) => m.provider === 'corpus').pop();
    const wantsTraining = this.wantsTraining(chunks, current);
    const early = await this.takeEarly(chunks);
    this.ahead = null;
    if (current && !wantsTraining) return this.lazy(current);
    await this.retireBuilding(live);
    let id: number;
    if (wantsTraining) {
      const started = early?.started ?? Date.now();
      const model = early ? early.model : await this.train(await this.sample(), chunks, signal);
      if (model) {
        const dims = this.options.corpusDims;
        id = this.writer ? await this.writer.addModel('corpus', 'lsa', dims, model.data, chunks) : await this.writes.addModel('corpus', 'lsa', dims, model.data, chunks);
        // Embedded from chunks read before any write since: still theirs.
        if (early && model.embedded && early.chunkWrites === this.writer?.chunkWrites()) this.ahead = { modelId: id, embedded: model.embedded };
        const embedded = model.embedded ? `, and embedded ${model.embedded.ids.length} of them,` : '';
        this.log.info(`trained the corpus embedding model on ${chunks} chunks (${model.terms} words${model.threads > 1 ? `, on ${model.threads} threads` : ''})${embedded} in ${Date.now() - started} ms${early ? ' (begun beside the core index\'s last steps)' : ''}`);
      } else if (current) {
        return this.lazy(current);
      } else {
        id = await this.writes.addModel('corpus', 'hashed', new HashedEmbedder().dims, null, 0);
      }
    } else {
      id = await this.writes.addModel('corpus', 'hashed', new HashedEmbedder().dims, null, 0);
    }
    return this.lazy((await this.writes.models()).find((m) => m.id === id)!);
  }

  /** A model whose embedder is made on first use: the writer's thread embeds for the corpus model, this one only for searches. */
  private lazy(row: EmbeddingModelRow): ActiveModel {
    const embedderFor = (r: EmbeddingModelRow) => this.embedderFor(r);
    return { id: row.id, row, get embedder() { return embedderFor(row); } };
  }

  /** A half-built model of another kind is abandoned when a newer target replaces it. */
  private async retireBuilding(live: EmbeddingModelRow[]): Promise<void> {
    for (const m of live.filter((r) => r.state === 'building')) {
      await this.writes.dropModel(m.id);
      await this.writes.forget(m.id);
      this.embedders.delete(m.id);
    }
  }

  /** `data`: the corpus model's serialized data when the caller read it already (through the async reads). */
  private embedderFor(row: EmbeddingModelRow, data?: Buffer | null): Embedder {
    let e = this.embedders.get(row.id);
    if (e) return e;
    if (row.provider === 'corpus' && row.name === 'lsa') e = new CorpusEmbedder(`corpus-lsa-${row.id}`, deserializeModel((data === undefined ? this.syncStore().modelData(row.id) : data)!));
    else if (row.provider === 'corpus') e = new HashedEmbedder(row.dims);
    else if (this.providerEmbedder && this.providerEmbedder.id === row.name) e = this.providerEmbedder;
    else throw new LoupeError('SERVICE_UNAVAILABLE', `the embedding model ${row.provider}:${row.name} is not configured in this process`);
    this.embedders.set(row.id, e);
    return e;
  }
}

/**
 * The k smallest (distance, chunk id) pairs offered, in a binary max-heap of typed arrays: its root
 * is the worst kept, replaced by any better offer. Ties on distance keep the smaller chunk id, so
 * the set kept is exactly the first k of a sort by (distance, chunk id).
 */
export class NearestK {
  private readonly distance: Float64Array;
  private readonly id: Int32Array;
  private size = 0;

  constructor(private readonly k: number) {
    const n = Math.max(0, Math.floor(k));
    this.distance = new Float64Array(n);
    this.id = new Int32Array(n);
  }

  /** Whether (a, ia) comes after (b, ib) in the answer's order. */
  private static worse(a: number, ia: number, b: number, ib: number): boolean {
    return a > b || (a === b && ia > ib);
  }

  offer(chunkId: number, distance: number): void {
    const { distance: dist, id } = this;
    if (this.size < this.k) {
      // Sift up from the end.
      let at = this.size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!NearestK.worse(distance, chunkId, dist[parent]!, id[parent]!)) break;
        dist[at] = dist[parent]!;
        id[at] = id[parent]!;
        at = parent;
      }
      dist[at] = distance;
      id[at] = chunkId;
      return;
    }
    if (this.k <= 0 || !NearestK.worse(dist[0]!, id[0]!, distance, chunkId)) return;
    // Replace the root (the worst kept) and sift down.
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= this.size) break;
      const right = left + 1;
      const child = right < this.size && NearestK.worse(dist[right]!, id[right]!, dist[left]!, id[left]!) ? right : left;
      if (!NearestK.worse(dist[child]!, id[child]!, distance, chunkId)) break;
      dist[at] = dist[child]!;
      id[at] = id[child]!;
      at = child;
    }
    dist[at] = distance;
    id[at] = chunkId;
  }

  /** The pairs kept, in no particular order. */
  items(): { chunkId: number; distance: number }[] {
    const out: { chunkId: number; distance: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ chunkId: this.id[i]!, distance: this.distance[i]! });
    return out;
  }
}
