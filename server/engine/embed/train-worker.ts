/**
 * Worker thread: trains the corpus embedding model (seconds of dense linear algebra) away from the
 * thread that answers HTTP and LSP requests. One worker per training; it posts the serialized model
 * (or null when the texts are too few) and exits. Asked to (`ahead`), it then embeds a repository's
 * chunks with the new model on a read-only connection of its own, beside the index writer's last
 * steps, and posts the vectors with the model for the writer to store (see VectorIndex.prepare).
 */
import Database from 'better-sqlite3';
import { parentPort } from 'node:worker_threads';
import { deserializeModel, serializeModel, trainCorpusModel, type CorpusModel, type TrainOptions } from './corpus-model';
import { CorpusEmbedder } from './corpus-embedder';
import { documentText } from './vector-writes';
import { chunksOf } from '../store/vectors-store';

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

parentPort?.once('message', ({ texts, options, trainedChunks, ahead }: TrainRequest) => {
  try {
    const model = trainCorpusModel(texts instanceof Uint8Array ? JSON.parse(new TextDecoder().decode(texts)) as string[] : texts, options);
    if (model && trainedChunks !== undefined) model.trainedChunks = trainedChunks;
    const bytes = model ? new Uint8Array(serializeModel(model)) : null;
    // From the stored bytes, as the writer's thread will read the model: the same vectors to the bit.
    const embedded = bytes && ahead ? embedAhead(deserializeModel(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)), ahead) : null;
    const transfer = [...(bytes ? [bytes.buffer] : []), ...(embedded ? [embedded.ids.buffer, embedded.vectors.buffer, embedded.empty.buffer] : [])];
    parentPort!.postMessage({ type: 'trained', model: bytes, terms: model?.terms.length ?? 0, embedded } satisfies TrainResponse, transfer as ArrayBuffer[]);
  } catch (error) {
    parentPort!.postMessage({ type: 'failed', message: (error as Error).message } satisfies TrainResponse);
  }
});

/** The repository's chunks embedded with `model`; null when the index cannot be read (the writer then embeds them as before). */
function embedAhead(model: CorpusModel, { file, repoId, maxChunks }: EmbedAheadRequest): EmbeddedAhead | null {
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    const embedder = new CorpusEmbedder('ahead', model);
    const dims = model.dims;
    let ids = new Int32Array(4096);
    let vectors = new Float32Array(ids.length * dims);
    let empty = new Uint8Array(ids.length);
    let n = 0;
    for (const chunk of chunksOf(db, repoId)) {
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
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

function grow<T extends Int32Array | Float32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
