/**
 * Worker thread: trains the corpus embedding model (seconds of dense linear algebra) away from the
 * thread that answers HTTP and LSP requests (on two cores, from 1,000 texts, with a helper thread that computes
 * half of each product: kernel-threads.ts). One worker per training; it posts the serialized model
 * (or null when the texts are too few) and exits. Asked to (`ahead`), it then embeds a repository's
 * chunks with the new model on a read-only connection of its own, beside the index writer's last
 * steps, and posts the vectors with the model for the writer to store (see VectorIndex.prepare).
 */
import Database from 'better-sqlite3';
import os from 'node:os';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { deserializeModel, serializeModel, trainCorpusModel, type CorpusModel, type TrainOptions } from './corpus-model';
import { CorpusEmbedder } from './corpus-embedder';
import { documentText } from './vector-writes';
import { chunkIdsFrom, chunksBetween, chunksOf } from '../store/vectors-store';
import { lowerThreadPriority } from '../util/background-thread';
import { serveKernels, TwoThreadKernels } from './kernel-threads';

/**
 * The texts, or the UTF-8 of a JSON array of them (moved here from the index writer without a copy);
 * `trainedChunks`: the index's chunk count, recorded in the model (else the number of texts).
 */
export interface TrainRequest { texts: string[] | Uint8Array; options: TrainOptions; trainedChunks?: number; ahead?: EmbedAheadRequest }
/** Embed the first `maxChunks` chunks of `repoId` (by id) in the index file `file` once trained. */
export interface EmbedAheadRequest { file: string; repoId: string; maxChunks: number }
/**
 * A repository's chunks embedded by the training worker: ids in ascending order, `dims` floats per id
 * (zeros where `empty` is 1: a chunk with nothing to embed).
 */
export interface EmbeddedAhead { repoId: string; dims: number; ids: Int32Array; vectors: Float32Array; empty: Uint8Array }
export type TrainResponse =
  /** `threads`: the threads the training's products ran on. */
  | { type: 'trained'; model: Uint8Array | null; terms: number; threads: number; embedded: EmbeddedAhead | null }
  | { type: 'failed'; message: string };

/**
 * A repository's chunks from this many on are embedded by a second thread beside this one: on payload
 * (32,009 chunks) embedding was the last ~5 s of a cold index on one core while the other idled, the
 * index writer done. Below it the second thread's start (~50 ms) is not worth it. (Phaser's src, 6,206
 * chunks, is split: test/engine/index-writer.test.ts checks its vectors against this thread's.)
 */
const SPLIT_CHUNKS = 4096;

/**
 * The two threads take blocks of this many chunks in turn (a shared counter), not a half each: chunks differ
 * in size by the file they come from, and on payload the first half by id took 2.5 s against the second's 1.1 s.
 */
const BLOCK_CHUNKS = 512;

/**
 * What a second embedding thread is given: the model's bytes, the blocks' first chunk ids (one more at the end:
 * past the last block) and the counter of blocks taken.
 */
interface EmbedPart { model: Uint8Array; ahead: EmbedAheadRequest; starts: Int32Array; taken: SharedArrayBuffer }

/** Blocks embedded by one thread: each block's index and its chunks. */
type EmbeddedBlocks = { block: number; embedded: EmbeddedAhead }[];

/**
 * A sample of this many texts or more is trained on two threads (kernel-threads.ts) when the machine has two
 * cores: below it training takes tens of milliseconds, less than a thread's start.
 */
const TWO_THREAD_TEXTS = 1000;

// Training and embedding are background work: below the main thread, which answers requests, and the index
// writer, which writes the user's edits (as the parse processes run).
lowerThreadPriority();

const part = (workerData as { part?: EmbedPart } | null)?.part;
if ((workerData as { kernels?: boolean } | null)?.kernels) {
  // The helper of a training on two threads.
  serveKernels(parentPort!);
} else if (part) {
  // The second thread: the blocks it took, posted back to the training thread.
  const blocks = embedBlocks(modelOf(part.model), part.ahead, part.starts, new Int32Array(part.taken));
  parentPort!.postMessage(blocks, blocks ? blocks.flatMap(({ embedded: e }) => [e.ids.buffer, e.vectors.buffer, e.empty.buffer]) as ArrayBuffer[] : []);
} else {
  parentPort?.once('message', ({ texts, options, trainedChunks, ahead }: TrainRequest) => {
    void (async () => {
      try {
        const list = texts instanceof Uint8Array ? JSON.parse(new TextDecoder().decode(texts)) as string[] : texts;
        const kernels = list.length >= TWO_THREAD_TEXTS && os.availableParallelism() > 1 ? TwoThreadKernels.start(__filename, { kernels: true }) : undefined;
        let model: CorpusModel | null;
        try {
          model = trainCorpusModel(list, options, kernels);
        } finally {
          void kernels?.close();
        }
        if (model && trainedChunks !== undefined) model.trainedChunks = trainedChunks;
        const bytes = model ? new Uint8Array(serializeModel(model)) : null;
        const embedded = bytes && ahead ? await embedInTwo(bytes, ahead, trainedChunks ?? 0) : null;
        const transfer = [...(bytes ? [bytes.buffer] : []), ...(embedded ? [embedded.ids.buffer, embedded.vectors.buffer, embedded.empty.buffer] : [])];
        const threads = kernels?.helped ? 2 : 1;
        parentPort!.postMessage({ type: 'trained', model: bytes, terms: model?.terms.length ?? 0, threads, embedded } satisfies TrainResponse, transfer as ArrayBuffer[]);
      } catch (error) {
        parentPort!.postMessage({ type: 'failed', message: (error as Error).message } satisfies TrainResponse);
      }
    })();
  });
}

/** From the stored bytes, as the writer's thread will read the model: the same vectors to the bit. */
function modelOf(bytes: Uint8Array): CorpusModel {
  return deserializeModel(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

/**
 * The repository's chunks embedded, by this thread and a second one when they are many (SPLIT_CHUNKS), each
 * taking the next block of BLOCK_CHUNKS chunks until none is left; null when the index cannot be read. The
 * blocks join in id order; should the second thread fail, this one embeds the blocks it took too.
 */
async function embedInTwo(bytes: Uint8Array, ahead: EmbedAheadRequest, chunks: number): Promise<EmbeddedAhead | null> {
  const model = modelOf(bytes);
  const count = Math.min(chunks, ahead.maxChunks);
  const starts = count >= SPLIT_CHUNKS ? readIndex(ahead.file, (db) => blockStarts(db, ahead.repoId, count)) : null;
  if (!starts) return embedAhead(model, ahead);
  const taken = new SharedArrayBuffer(4);
  const second = new Promise<EmbeddedBlocks | null>((resolve) => {
    const worker = new Worker(__filename, { workerData: { part: { model: bytes, ahead, starts, taken } satisfies EmbedPart } });
    worker.once('message', (blocks: EmbeddedBlocks | null) => { resolve(blocks); void worker.terminate(); });
    worker.once('error', () => resolve(null));
    worker.once('exit', () => resolve(null)); // no-op once settled
  });
  const mine = embedBlocks(model, ahead, starts, new Int32Array(taken));
  const theirs = await second;
  if (!mine) return null;
  const byBlock = new Map([...mine, ...(theirs ?? [])].map(({ block, embedded }) => [block, embedded]));
  const parts: EmbeddedAhead[] = [];
  for (let block = 0; block < starts.length - 1; block++) {
    const embedded = byBlock.get(block) ?? embedAhead(model, { ...ahead, maxChunks: Number.MAX_SAFE_INTEGER }, starts[block], starts[block + 1]);
    if (!embedded) return null;
    parts.push(embedded);
  }
  const join = <T extends Int32Array | Float32Array | Uint8Array>(pick: (e: EmbeddedAhead) => T, into: T): T => {
    let at = 0;
    for (const e of parts) { into.set(pick(e), at); at += pick(e).length; }
    return into;
  };
  const n = parts.reduce((sum, e) => sum + e.ids.length, 0);
  return {
    repoId: ahead.repoId, dims: model.dims,
    ids: join((e) => e.ids, new Int32Array(n)),
    vectors: join((e) => e.vectors, new Float32Array(n * model.dims)),
    empty: join((e) => e.empty, new Uint8Array(n)),
  };
}

/**
 * The first chunk id of each block of BLOCK_CHUNKS among the repository's first `count` chunks (by id), and one
 * past the last of them; null when there are none.
 */
function blockStarts(db: Database.Database, repoId: string, count: number): Int32Array | null {
  const ids = chunkIdsFrom(db, repoId, count);
  if (!ids.length) return null;
  const starts: number[] = [];
  for (let i = 0; i < ids.length; i += BLOCK_CHUNKS) starts.push(ids[i]);
  starts.push(ids[ids.length - 1] + 1);
  return Int32Array.from(starts);
}

/** The blocks this thread took (the next untaken one each time, `taken` shared with the other thread), embedded. */
function embedBlocks(model: CorpusModel, ahead: EmbedAheadRequest, starts: Int32Array, taken: Int32Array): EmbeddedBlocks | null {
  const blocks: EmbeddedBlocks = [];
  return readIndex(ahead.file, (db) => {
    const embedder = new CorpusEmbedder('ahead', model);
    for (let block = Atomics.add(taken, 0, 1); block < starts.length - 1; block = Atomics.add(taken, 0, 1)) {
      blocks.push({ block, embedded: embedChunks(db, embedder, model.dims, ahead.repoId, Number.MAX_SAFE_INTEGER, starts[block], starts[block + 1]) });
    }
    return blocks;
  });
}

function readIndex<T>(file: string, read: (db: Database.Database) => T): T | null {
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    return read(db);
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

/**
 * The repository's first `maxChunks` chunks with ids from `fromId` up to `toId` (excluded), embedded with
 * `model`; null when the index cannot be read (the writer then embeds them as before).
 */
function embedAhead(model: CorpusModel, { file, repoId, maxChunks }: EmbedAheadRequest, fromId = 0, toId = Number.MAX_SAFE_INTEGER): EmbeddedAhead | null {
  return readIndex(file, (db) => embedChunks(db, new CorpusEmbedder('ahead', model), model.dims, repoId, maxChunks, fromId, toId));
}

function embedChunks(db: Database.Database, embedder: CorpusEmbedder, dims: number, repoId: string, maxChunks: number, fromId: number, toId: number): EmbeddedAhead {
  let ids = new Int32Array(Math.min(4096, maxChunks));
  let vectors = new Float32Array(ids.length * dims);
  let empty = new Uint8Array(ids.length);
  let n = 0;
  // A whole repository's chunks through its files (the index may hold other repositories'), a block through its ids.
  const rows = toId === Number.MAX_SAFE_INTEGER ? chunksOf(db, repoId, fromId) : chunksBetween(db, repoId, fromId, toId);
  for (const chunk of rows) {
    if (n === maxChunks) break;
    if (n === ids.length) {
      ids = grow(ids, new Int32Array(n * 2));
      vectors = grow(vectors, new Float32Array(n * 2 * dims));
      empty = grow(empty, new Uint8Array(n * 2));
    }
    const vector = embedder.embedOne(documentText(chunk));
    ids[n] = chunk.id;
    if (vector) vectors.set(vector, n * dims);
    else empty[n] = 1;
    n++;
  }
  return { repoId, dims, ids: ids.slice(0, n), vectors: vectors.slice(0, n * dims), empty: empty.slice(0, n) };
}

function grow<T extends Int32Array | Float32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
