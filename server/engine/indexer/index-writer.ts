import { Worker } from 'node:worker_threads';
import path from 'node:path';
import type { SkippedFile } from '../store/files-store';
import type { ParsedFile } from '../types';
import type { EditOutcome, IndexWrites, NameChanges, Progress, Scan, WriteOptions } from './index-writes';
import type { WriterRequest, WriterResponse } from './write-worker';
import { LoupeError, type ErrorCode } from '../errors';
import { shareWriteTurns, WriteTurns, type Db } from '../store/db';
import type { CorpusModelRef, EmbedStep, PackedVectors } from '../embed/vector-writes';
import { parsedFiles, type ParsedBatch } from './parsed-batch';
import { transferables } from '../util/transfer';

/**
 * What the indexer asks of the thread that writes the index (see IndexWrites). Every call is async:
 * the writes run in a worker thread on a connection of its own, so that the event loop that answers
 * HTTP and LSP never holds a write transaction, an FTS5 merge or a commit.
 */
export interface IndexWriter {
  scan(repoId: string, root: string): Promise<Scan>;
  /** Writes parsed files in committed slices; `onCommitted(n)` follows each commit. */
  writeFiles(repoId: string, files: ParsedFile[], progress: Progress, onCommitted: (n: number) => void): Promise<void>;
  /**
   * writeFiles() for files that come as the parse workers' bytes (parsed-batch.ts), read where they
   * are written; absent, the indexer reads them itself and calls writeFiles().
   */
  writeSerialized?(repoId: string, batches: ParsedBatch[], progress: Progress, onCommitted: (n: number) => void): Promise<void>;
  stamp(repoId: string, touch: { path: string; mtimeMs: number; size: number }[], skip: SkippedFile[], progress: Progress): Promise<void>;
  deletePaths(repoId: string, paths: string[]): Promise<void>;
  setProgress(repoId: string, progress: Progress): Promise<void>;
  /** Resolves the stale imports again (but those of the files this run `parsed`), and all imports of `languages` (resolution-config.ts). */
  relink(repoId: string, root: string, languages?: readonly string[], parsed?: readonly string[]): Promise<void>;
  refreshNames(repoId: string, root: string, names: NameChanges, skip: string[]): Promise<void>;
  edit(repo: { id: string; rootPath: string }, relPaths: string[], contents: Map<string, string>): Promise<EditOutcome>;
  /**
   * A large run: the words index rows of the chunks written from now on are added in bulk after each batch
   * and by fillTrigram() (SQLite, migration 016); absent, the writer keeps them as it writes.
   */
  deferWordsIndex?(): Promise<void>;
  /** Fills the trigram backlog (a deferred run's, or one a killed run left), in short transactions. */
  fillTrigram?(): Promise<void>;
  /** Lets the worker go (its connection, parsers and TypeScript compiler); the next call starts another. */
  release(): Promise<void>;
  /** Starts the writer's thread now (its bundle and connection), for a run about to begin. */
  warm?(): void;
  /**
   * The corpus model's vectors, written off the thread that answers (VectorWrites in the writer's
   * thread); absent when the writer is the calling thread, which then embeds as before.
   */
  readonly vectors?: VectorWriter;
}

/** The vector work the writer's thread does for the VectorIndex (see VectorWrites). */
export interface VectorWriter {
  embedSlice(model: CorpusModelRef, repoId: string | null, after: number, sliceMs: number): Promise<EmbedStep>;
  countMissing(modelId: number, repoId: string | null): Promise<number>;
  chunkCount(): Promise<number>;
  /** A model's vectors for the in-memory scan, moved here (null when too many). */
  packed(modelId: number, dims: number, maxFloats: number): Promise<PackedVectors | null>;
  /** The training sample as the UTF-8 of a JSON array of texts (handed on to the training worker as is). */
  sampleTexts(max: number): Promise<Uint8Array>;
  /** Registers a model with its serialized data (moved to the writer's thread, not copied); answers its id. */
  addModel(provider: string, name: string, dims: number, data: Buffer, trainedChunks: number): Promise<number>;
  /**
   * Stores vectors embedded elsewhere (the training worker's, see EmbeddedAhead) for chunks of `repoId`, in one
   * transaction; arrays that own their buffers are moved to the writer's thread, not copied.
   */
  putVectors(modelId: number, repoId: string, ahead: { ids: Int32Array; vectors: Float32Array; empty: Uint8Array; dims: number }): Promise<void>;
  /** The index file, for a reader on another thread. */
  file(): string;
  /** Calls so far that may have changed chunks (files written or deleted, edits): vectors embedded from an earlier read are stale once it moves. */
  chunkWrites(): number;
}

/** How long one write transaction may hold the thread that answers requests, when writes run on it. */
const LOCAL_SLICE_MS = 8;
/**
 * A worker's write transactions: a charge on the main connection does not wait for one (WriteTurns),
 * a write to the index there (a vector, a repository's state) does, so they stay short.
 */
const WORKER_SLICE_MS = 20;
/** The calls that may change chunks (VectorWriter.chunkWrites counts them). */
const CHANGES_CHUNKS = new Set<WriterRequest['method']>(['writeFiles', 'writeSerialized', 'deletePaths', 'edit']);
/** A writer not used for this long is let go; a full run lets it go when it is done. */
const IDLE_MS = 30_000;

/** Writes on the calling thread (no database file to open a second connection on). */
export class LocalIndexWriter implements IndexWriter {
  constructor(private readonly writes: IndexWrites) {}

  async scan(repoId: string, root: string): Promise<Scan> { return this.writes.scan(repoId, root); }
  writeFiles(repoId: string, files: ParsedFile[], progress: Progress, onCommitted: (n: number) => void): Promise<void> {
    return this.writes.writeFiles(repoId, files, progress, LOCAL_SLICE_MS, async (n) => {
      onCommitted(n);
      // The event loop turns between two transactions.
      await new Promise((resolve) => setImmediate(resolve));
    });
  }
  writeSerialized(repoId: string, batches: ParsedBatch[], progress: Progress, onCommitted: (n: number) => void): Promise<void> {
    return this.writeFiles(repoId, parsedFiles(batches), progress, onCommitted);
  }
  async stamp(repoId: string, touch: { path: string; mtimeMs: number; size: number }[], skip: SkippedFile[], progress: Progress): Promise<void> {
    this.writes.stamp(repoId, touch, skip, progress);
  }
  async deletePaths(repoId: string, paths: string[]): Promise<void> { this.writes.deletePaths(repoId, paths); }
  async setProgress(repoId: string, progress: Progress): Promise<void> { this.writes.setProgress(repoId, progress); }
  async relink(repoId: string, root: string, languages: readonly string[] = [], parsed: readonly string[] = []): Promise<void> { await this.writes.relink(repoId, root, languages, parsed); }
  refreshNames(repoId: string, root: string, names: NameChanges, skip: string[]): Promise<void> {
    return this.writes.refreshNames(repoId, root, names, skip);
  }
  edit(repo: { id: string; rootPath: string }, relPaths: string[], contents: Map<string, string>): Promise<EditOutcome> {
    return this.writes.edit(repo, relPaths, contents);
  }
  async deferWordsIndex(): Promise<void> { this.writes.deferWordsIndex(); }
  fillTrigram(): Promise<void> {
    return this.writes.fillTrigram(() => new Promise((resolve) => setImmediate(resolve)));
  }
  async release(): Promise<void> {}
}

/** In the bundle the worker is dist/write-worker.js beside this code; from source it is the .ts file. */
const workerFile = __filename.endsWith('.ts') ? path.join(__dirname, 'write-worker.ts') : path.join(__dirname, 'write-worker.js');

interface Pending { worker: Worker; resolve: (value: unknown) => void; reject: (error: Error) => void; onCommitted?: (n: number) => void }

/**
 * The writes in a worker thread with its own connection to the index file (WAL: it writes while the
 * main connection reads). Started on first use, let go after a run and when idle, so its memory (a
 * TypeScript compiler once it parsed an edit) is given back.
 */
export class WorkerIndexWriter implements IndexWriter {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | null = null;

  private readonly turns = new WriteTurns('main');
  private readonly file: string;

  readonly vectors: VectorWriter = {
    embedSlice: (model, repoId, after, sliceMs) => this.call('embedSlice', [model, repoId, after, sliceMs]) as Promise<EmbedStep>,
    countMissing: (modelId, repoId) => this.call('countMissing', [modelId, repoId]) as Promise<number>,
    chunkCount: () => this.call('chunkCount', []) as Promise<number>,
    packed: (modelId, dims, maxFloats) => this.call('packed', [modelId, dims, maxFloats]) as Promise<PackedVectors | null>,
    sampleTexts: (max) => this.call('sampleTexts', [max]) as Promise<Uint8Array>,
    addModel: (provider, name, dims, data, trainedChunks) =>
      // Moved when the bytes own their buffer (as the training worker's do), else copied; so are putVectors' arrays.
      this.call('addModel', [provider, name, dims, data, trainedChunks], undefined, transferables(data)) as Promise<number>,
    putVectors: async (modelId, repoId, ahead) => { await this.call('putVectors', [modelId, repoId, ahead], undefined, transferables(ahead)); },
    file: () => this.file,
    chunkWrites: () => this.chunkWrites,
  };
  private chunkWrites = 0;

  constructor(private readonly db: Db, private readonly options: WriteOptions) {
    this.file = db.name;
    // The main connection's transactions and the writer's take turns (see WriteTurns).
    shareWriteTurns(db, this.turns);
  }

  scan(repoId: string, root: string): Promise<Scan> { return this.call('scan', [repoId, root]) as Promise<Scan>; }
  async writeFiles(repoId: string, files: ParsedFile[], progress: Progress, onCommitted: (n: number) => void): Promise<void> {
    await this.call('writeFiles', [repoId, files, progress, WORKER_SLICE_MS], onCommitted);
  }
  /** The bytes are moved to the writer's thread (no copy, no structured clone of the files on this thread). */
  async writeSerialized(repoId: string, batches: ParsedBatch[], progress: Progress, onCommitted: (n: number) => void): Promise<void> {
    await this.call('writeSerialized', [repoId, batches, progress, WORKER_SLICE_MS], onCommitted, batches.map((b) => b.files));
  }
  async stamp(repoId: string, touch: { path: string; mtimeMs: number; size: number }[], skip: SkippedFile[], progress: Progress): Promise<void> {
    await this.call('stamp', [repoId, touch, skip, progress]);
  }
  async deletePaths(repoId: string, paths: string[]): Promise<void> { await this.call('deletePaths', [repoId, paths]); }
  async setProgress(repoId: string, progress: Progress): Promise<void> { await this.call('setProgress', [repoId, progress]); }
  async relink(repoId: string, root: string, languages: readonly string[] = [], parsed: readonly string[] = []): Promise<void> { await this.call('relink', [repoId, root, languages, parsed]); }
  async refreshNames(repoId: string, root: string, names: NameChanges, skip: string[]): Promise<void> {
    await this.call('refreshNames', [repoId, root, names, skip]);
  }
  edit(repo: { id: string; rootPath: string }, relPaths: string[], contents: Map<string, string>): Promise<EditOutcome> {
    return this.call('edit', [{ id: repo.id, rootPath: repo.rootPath }, relPaths, contents]) as Promise<EditOutcome>;
  }
  async deferWordsIndex(): Promise<void> { await this.call('deferWordsIndex', []); }
  async fillTrigram(): Promise<void> { await this.call('fillTrigram', []); }

  /** The thread starts loading while the caller goes on (a restart's catch-up run then finds it ready). */
  warm(): void {
    if (this.worker) return;
    this.idle(this.ensure());
  }

  async release(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    this.clearIdle();
    // Calls already sent finish first: the worker handles its messages in order.
    const closed = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    worker.postMessage({ id: 0, method: 'close', args: [] } satisfies WriterRequest);
    await closed;
  }

  private call(method: WriterRequest['method'], args: unknown[], onCommitted?: (n: number) => void, transfer: ArrayBuffer[] = []): Promise<unknown> {
    if (CHANGES_CHUNKS.has(method)) this.chunkWrites++;
    const worker = this.ensure();
    this.clearIdle();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { worker, resolve, reject, onCommitted });
      // Referenced while a call is in flight: a process that awaits a write must not exit under it.
      worker.ref();
      worker.postMessage({ id, method, args } satisfies WriterRequest, transfer);
    });
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(workerFile, {
      workerData: { file: this.file, options: this.options, turns: this.turns.buffer, maxPageCount: this.db.pragma('max_page_count', { simple: true }) },
    });
    this.worker = worker;
    worker.on('message', (msg: WriterResponse) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      if (msg.type === 'committed') { p.onCommitted?.(msg.n); return; }
      this.pending.delete(msg.id);
      if (msg.type === 'done') p.resolve(msg.value);
      else p.reject(msg.code ? new LoupeError(msg.code as ErrorCode, msg.message) : new LoupeError('INTERNAL', msg.message));
      if (this.worker === worker && ![...this.pending.values()].some((q) => q.worker === worker)) this.idle(worker);
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const [id, p] of this.pending) if (p.worker === worker) { p.reject(error); this.pending.delete(id); }
    };
    worker.on('error', fail);
    worker.on('exit', () => this.turns.writerGone());
    worker.on('exit', (code) => fail(new LoupeError('INTERNAL', `the index writer stopped (exit code ${code})`)));
    return worker;
  }

  private idle(worker: Worker): void {
    worker.unref();
    this.clearIdle();
    this.idleTimer = setTimeout(() => void this.release(), IDLE_MS);
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}
