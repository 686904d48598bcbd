import { Worker } from 'node:worker_threads';
import path from 'node:path';
import { deserializeModel, type CorpusModel, type TrainOptions } from './corpus-model';
import type { EmbedAheadRequest, EmbeddedAhead, TrainRequest, TrainResponse } from './train-worker';
import { LoupeError } from '../errors';

/** In the bundle the worker is dist/train-worker.js beside this code; from source it is the .ts file. */
const workerFile = __filename.endsWith('.ts') ? path.join(__dirname, 'train-worker.ts') : path.join(__dirname, 'train-worker.js');

/**
 * trainCorpusModel in a worker thread, so the event loop keeps answering while it runs. An abort
 * stops the worker at once and rejects with an AbortError.
 */
export async function trainCorpusModelOffThread(texts: string[], options: TrainOptions, signal?: AbortSignal): Promise<CorpusModel | null> {
  const trained = await trainSerializedOffThread(texts, options, undefined, signal);
  return trained ? deserializeModel(trained.data) : null;
}

/**
 * The same, answered as the serialized model (what the embedding_models row stores) and its size: the
 * thread that answers requests neither parses nor copies it. The texts may come as the UTF-8 of a
 * JSON array (read by the index writer), moved to the worker as they are. `trainedChunks` is
 * recorded in the model. `ahead`: the worker also embeds that repository's chunks with the new model
 * (`embedded`, null when it could not read them).
 */
export function trainSerializedOffThread(texts: string[] | Uint8Array, options: TrainOptions, trainedChunks?: number, signal?: AbortSignal, ahead?: EmbedAheadRequest):
  Promise<{ data: Buffer; terms: number; threads: number; embedded: EmbeddedAhead | null } | null> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new DOMException('training was cancelled', 'AbortError'));
    const worker = new Worker(workerFile);
    const onAbort = () => {
      void worker.terminate();
      reject(new DOMException('training was cancelled', 'AbortError'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    worker.once('message', (response: TrainResponse) => {
      done();
      void worker.terminate();
      if (response.type === 'failed') reject(new LoupeError('INTERNAL', `training the corpus model failed: ${response.message}`));
      else resolve(response.model ? { data: Buffer.from(response.model.buffer, response.model.byteOffset, response.model.byteLength), terms: response.terms, threads: response.threads, embedded: response.embedded } : null);
    });
    worker.once('error', (error) => { done(); reject(error); });
    worker.once('exit', (code) => {
      done();
      reject(new LoupeError('INTERNAL', `the training worker exited with code ${code}`)); // no-op once settled
    });
    // A buffer of texts is moved to the worker, not copied.
    worker.postMessage({ texts, options, trainedChunks, ahead } satisfies TrainRequest, texts instanceof Uint8Array ? [texts.buffer as ArrayBuffer] : []);
  });
}
