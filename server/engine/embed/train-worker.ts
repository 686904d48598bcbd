/**
 * Worker thread: trains the corpus embedding model (seconds of dense linear algebra) away from the
 * thread that answers HTTP and LSP requests. One worker per training; it posts the serialized model
 * (or null when the texts are too few) and exits.
 */
import { parentPort } from 'node:worker_threads';
import { serializeModel, trainCorpusModel, type TrainOptions } from './corpus-model';

export interface TrainRequest { texts: string[]; options: TrainOptions }
export type TrainResponse = { type: 'trained'; model: Uint8Array | null } | { type: 'failed'; message: string };

parentPort?.once('message', ({ texts, options }: TrainRequest) => {
  try {
    const model = trainCorpusModel(texts, options);
    const bytes = model ? new Uint8Array(serializeModel(model)) : null;
    parentPort!.postMessage({ type: 'trained', model: bytes } satisfies TrainResponse, bytes ? [bytes.buffer] : []);
  } catch (error) {
    parentPort!.postMessage({ type: 'failed', message: (error as Error).message } satisfies TrainResponse);
  }
});
