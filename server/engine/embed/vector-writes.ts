import type { ChunkToEmbed, VectorsStore } from '../store/vectors-store';
import type { Embedder } from './embedder';
import { CorpusEmbedder } from './corpus-embedder';
import { deserializeModel } from './corpus-model';
import { HashedEmbedder } from './hashed-embedder';
import { LoupeError } from '../errors';

/** A corpus model (`lsa` or `hashed`) as a thread that did not create it names it: its row's identity. */
export interface CorpusModelRef { id: number; name: string; dims: number; createdAt: string; trainedChunks: number }

/** What one slice of embedding did: chunks handled (vector or none), the last id read, the highest id written. */
export interface EmbedStep { count: number; last: number; top: number }

export interface PackedVectors { ids: Int32Array; data: Float32Array; repoList: string[]; repoIndex: Uint32Array }

/** Chunks read per query at first; the size then follows the measured time per chunk. */
const FIRST_BATCH = 64;
const MAX_BATCH = 256;

/**
 * Embeds chunks with the corpus model and writes their vectors, on one connection: in the index
 * writer's thread (write-worker.ts) when the index is a file, so that neither the chunks' reads, the
 * embedding nor the vector writes hold the thread that answers HTTP and LSP; on the calling thread
 * otherwise (an in-memory index, tests). Both run this code, so both write the same vectors.
 */
export class VectorWrites {
  private readonly embedders = new Map<string, Embedder & { embedOne(text: string): Float32Array | null }>();
  private batch = FIRST_BATCH;

  constructor(private readonly store: VectorsStore) {}

  /**
   * Reads the chunks missing in `model` after chunk id `after` (of one repository, or all) and embeds
   * and writes them, one committed batch after another, for about `sliceMs` (at least one batch).
   * `count` 0: nothing is missing after `after`.
   */
  embedSlice(model: CorpusModelRef, repoId: string | null, after: number, sliceMs: number): EmbedStep {
    const embedder = this.embedder(model);
    const started = performance.now();
    const step: EmbedStep = { count: 0, last: after, top: 0 };
    for (;;) {
      const t0 = performance.now();
      const chunks = this.store.missing(model.id, repoId, this.batch, step.last);
      if (!chunks.length) break;
      this.store.put(model.id, chunks.map((c) => ({ chunkId: c.id, repoId: c.repoId, vector: embedder.embedOne(documentText(c)) })));
      step.count += chunks.length;
      step.last = chunks[chunks.length - 1].id;
      for (const c of chunks) if (c.id > step.top) step.top = c.id;
      const now = performance.now();
      const msPerChunk = Math.max(0.005, (now - t0) / chunks.length);
      this.batch = Math.max(8, Math.min(MAX_BATCH, Math.floor(sliceMs / msPerChunk)));
      if (now - started + (now - t0) > sliceMs) break;
    }
    return step;
  }

  /** Registers a model (see VectorsStore.addModel); its serialized data may come as a plain Uint8Array (from another thread). */
  addModel(provider: string, name: string, dims: number, data: Uint8Array | null, trainedChunks: number): number {
    const bytes = data && !Buffer.isBuffer(data) ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : data;
    return this.store.addModel(provider, name, dims, bytes, trainedChunks);
  }

  /** Stores vectors embedded elsewhere (the training worker's) for chunks of `repoId`, in one transaction. */
  putVectors(modelId: number, repoId: string, ahead: { ids: Int32Array; vectors: Float32Array; empty: Uint8Array; dims: number }): void {
    const { ids, vectors, empty, dims } = ahead;
    this.store.put(modelId, Array.from(ids, (chunkId, i) => ({ chunkId, repoId, vector: empty[i] ? null : vectors.subarray(i * dims, (i + 1) * dims) })));
  }

  /**
   * A model's vectors packed for the in-memory scan, to be moved to another thread (ids, floats and a
   * repository index in typed arrays; the repository ids once each); null above `maxFloats` floats.
   */
  packed(modelId: number, dims: number, maxFloats: number): PackedVectors | null {
    if (this.store.chunkCount() * dims > maxFloats) return null;
    const { ids, repos, data } = this.store.all(modelId, dims);
    const repoList: string[] = [];
    const index = new Map<string, number>();
    const repoIndex = new Uint32Array(repos.length);
    repos.forEach((r, i) => {
      let j = index.get(r);
      if (j === undefined) { j = repoList.length; index.set(r, j); repoList.push(r); }
      repoIndex[i] = j;
    });
    return { ids, data, repoList, repoIndex };
  }

  chunkCount(): number {
    return this.store.chunkCount();
  }

  countMissing(modelId: number, repoId: string | null): number {
    return this.store.countMissing(modelId, repoId);
  }

  /**
   * About `max` chunk texts spread over the index, to train a corpus model from, as the UTF-8 of a
   * JSON array: one buffer that is handed on to the training worker without being copied or parsed
   * by the thread between.
   */
  sampleTexts(max: number): Uint8Array {
    return new TextEncoder().encode(JSON.stringify(this.store.sampleTexts(max)));
  }

  private embedder(model: CorpusModelRef): Embedder & { embedOne(text: string): Float32Array | null } {
    // Ids of dropped models are reused: the row's creation time tells two of the same id apart.
    const key = `${model.id}/${model.createdAt}/${model.name}/${model.trainedChunks}`;
    let e = this.embedders.get(key);
    if (e) return e;
    if (model.name === 'lsa') {
      const data = this.store.modelData(model.id);
      if (!data) throw new LoupeError('NOT_FOUND', `the corpus model ${model.id} is gone`);
      e = new CorpusEmbedder(`corpus-lsa-${model.id}`, deserializeModel(data));
    } else {
      e = new HashedEmbedder(model.dims);
    }
    this.embedders.clear(); // one model is filled at a time: the previous one's memory goes
    this.embedders.set(key, e);
    return e;
  }
}

/** What a chunk's vector describes: where it lives, what it defines, what it says. */
export const documentText = (c: ChunkToEmbed) => `${c.path}\n${c.symbols ?? ''}\n${c.content}`;
