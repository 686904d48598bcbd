/**
 * Worker thread: trains the corpus embedding model (seconds of dense linear algebra) away from the
 * thread that answers HTTP and LSP requests. One worker per training; it posts the serialized model
 * (or null when the texts are too few) and exits. Asked to (`ahead`), it then embeds a repository's
 * chunks with the new model on a read-only connection of its own, beside the index writer's last
 * steps, and posts the vectors with the model for the writer to store (see VectorIndex.prepare).
 */
import Database from 'better-sqlite3';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { deserializeModel, serializeModel, trainCorpusModel, type CorpusModel, type TrainOptions } from './corpus-model';
import { CorpusEmbedder } from './corpus-embedder';
import { documentText } from './vector-writes';
import { chunkIdAt, chunksOf } from '../store/vectors-store';
import { lowerThreadPriority } from '../util/background-thread';

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
  | { type: 'trained'; model: Uint8Array | null; terms: number; embedded: EmbeddedAhead | null }
  | { type: 'failed'; message: string };

/**
 * A repository's chunks from this many on are embedded by a second thread beside this one: on payload
 * (32,009 chunks) embedding was the last ~5 s of a cold index on one core while the other idled, the
 * index writer done. Below it the second thread's start (~50 ms) is not worth it. (Phaser's src, 6,206
 * chunks, is split: test/engine/index-writer.test.ts checks its vectors against this thread's.)
 */
const SPLIT_CHUNKS = 4096;

/** What a second embedding thread is given: the model's bytes and the chunks from `fromId` on. */
interface EmbedPart { model: Uint8Array; ahead: EmbedAheadRequest; fromId: number }

// Training and embedding are background work: below the main thread, which answers requests, and the index
// writer, which writes the user's edits (as the parse processes run).
lowerThreadPriority();

const part = (workerData as { part?: EmbedPart } | null)?.part;
if (part) {
  // The second thread: its chunks, posted back to the training thread.
  const embedded = embedAhead(modelOf(part.model), part.ahead, part.fromId);
  parentPort!.postMessage(embedded, embedded ? [embedded.ids.buffer, embedded.vectors.buffer, embedded.empty.buffer] as ArrayBuffer[] : []);
} else {
  parentPort?.once('message', ({ texts, options, trainedChunks, ahead }: TrainRequest) => {
    void (async () => {
      try {
        const model = trainCorpusModel(texts instanceof Uint8Array ? JSON.parse(new TextDecoder().decode(texts)) as string[] : texts, options);
        if (model && trainedChunks !== undefined) model.trainedChunks = trainedChunks;
        const bytes = model ? new Uint8Array(serializeModel(model)) : null;
        const embedded = bytes && ahead ? await embedInTwo(bytes, ahead, trainedChunks ?? 0) : null;
        const transfer = [...(bytes ? [bytes.buffer] : []), ...(embedded ? [embedded.ids.buffer, embedded.vectors.buffer, embedded.empty.buffer] : [])];
        parentPort!.postMessage({ type: 'trained', model: bytes, terms: model?.terms.length ?? 0, embedded } satisfies TrainResponse, transfer as ArrayBuffer[]);
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
 * The repository's chunks embedded, the second half by a second thread when they are many (SPLIT_CHUNKS);
 * null when the index cannot be read. The halves join in id order; should the second thread fail, this one
 * embeds its half too.
 */
async function embedInTwo(bytes: Uint8Array, ahead: EmbedAheadRequest, chunks: number): Promise<EmbeddedAhead | null> {
  const model = modelOf(bytes);
  const half = Math.floor(Math.min(chunks, ahead.maxChunks) / 2);
  const splitId = half >= SPLIT_CHUNKS / 2 ? readIndex(ahead.file, (db) => chunkIdAt(db, ahead.repoId, half)) : null;
  if (splitId === null) return embedAhead(model, ahead);
  const second = new Promise<EmbeddedAhead | null>((resolve) => {
    const worker = new Worker(__filename, { workerData: { part: { model: bytes, ahead: { ...ahead, maxChunks: ahead.maxChunks - half }, fromId: splitId } satisfies EmbedPart } });
    worker.once('message', (embedded: EmbeddedAhead | null) => { resolve(embedded); void worker.terminate(); });
    worker.once('error', () => resolve(null));
    worker.once('exit', () => resolve(null)); // no-op once settled
  });
  const first = embedAhead(model, { ...ahead, maxChunks: half });
  const rest = (await second) ?? embedAhead(model, { ...ahead, maxChunks: ahead.maxChunks - half }, splitId);
  if (!first || !rest) return null;
  const join = <T extends Int32Array | Float32Array | Uint8Array>(a: T, b: T, into: T): T => { into.set(a); into.set(b, a.length); return into; };
  return {
    repoId: ahead.repoId, dims: first.dims,
    ids: join(first.ids, rest.ids, new Int32Array(first.ids.length + rest.ids.length)),
    vectors: join(first.vectors, rest.vectors, new Float32Array(first.vectors.length + rest.vectors.length)),
    empty: join(first.empty, rest.empty, new Uint8Array(first.empty.length + rest.empty.length)),
  };
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
 * The repository's first `maxChunks` chunks from `fromId` on, embedded with `model`; null when the index
 * cannot be read (the writer then embeds them as before).
 */
function embedAhead(model: CorpusModel, { file, repoId, maxChunks }: EmbedAheadRequest, fromId = 0): EmbeddedAhead | null {
  return readIndex(file, (db) => {
    const embedder = new CorpusEmbedder('ahead', model);
    const dims = model.dims;
    let ids = new Int32Array(4096);
    let vectors = new Float32Array(ids.length * dims);
    let empty = new Uint8Array(ids.length);
    let n = 0;
    for (const chunk of chunksOf(db, repoId, fromId)) {
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
  });
}

function grow<T extends Int32Array | Float32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
