/**
 * Worker thread: trains the corpus embedding model (seconds of dense linear algebra) away from the
 * thread that answers HTTP and LSP requests. One worker per training; it posts the serialized model
 * (or null when the texts are too few) and exits.
 */
import { parentPort } from 'node:worker_threads';
import { serializeModel, trainCorpusModel, type TrainOptions } from './corpus-model';

/**
 * The texts, or the UTF-8 of a JSON array of them (moved here from the index writer without a copy);
 * `trainedChunks`: the index's chunk count, recorded in the model (else the number of texts).
 */
export interface TrainRequest { texts: string[] | Uint8Array; options: TrainOptions; trainedChunks?: number }
export type TrainResponse = { type: 'trained'; model: Uint8Array | null; terms: number } | { type: 'failed'; message: string };

parentPort?.once('message', ({ texts, options, trainedChunks }: TrainRequest) => {
  try {
    const model = trainCorpusModel(texts instanceof Uint8Array ? JSON.parse(new TextDecoder().decode(texts)) as string[] : texts, options);
    if (model && trainedChunks !== undefined) model.trainedChunks = trainedChunks;
    const bytes = model ? new Uint8Array(serializeModel(model)) : null;
    parentPort!.postMessage({ type: 'trained', model: bytes, terms: model?.terms.length ?? 0 } satisfies TrainResponse, bytes ? [bytes.buffer] : []);
  } catch (error) {
    parentPort!.postMessage({ type: 'failed', message: (error as Error).message } satisfies TrainResponse);
  }
});
