import { Worker } from 'node:worker_threads';
import path from 'node:path';
import { deserializeModel, type CorpusModel, type TrainOptions } from './corpus-model';
import type { TrainRequest, TrainResponse } from './train-worker';
import { LoupeError } from '../errors';

/** In the bundle the worker is dist/train-worker.js beside this code; from source it is the .ts file. */
const workerFile = __filename.endsWith('.ts') ? path.join(__dirname, 'train-worker.ts') : path.join(__dirname, 'train-worker.js');

/**
 * trainCorpusModel in a worker thread, so the event loop keeps answering while it runs. An abort
 * stops the worker at once and rejects with an AbortError.
 */
export function trainCorpusModelOffThread(texts: string[], options: TrainOptions, signal?: AbortSignal): Promise<CorpusModel | null> {
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
      else resolve(response.model ? deserializeModel(Buffer.from(response.model.buffer, response.model.byteOffset, response.model.byteLength)) : null);
    });
    worker.once('error', (error) => { done(); reject(error); });
    worker.once('exit', (code) => {
      done();
      reject(new LoupeError('INTERNAL', `the training worker exited with code ${code}`)); // no-op once settled
    });
    worker.postMessage({ texts, options } satisfies TrainRequest);
  });
}
