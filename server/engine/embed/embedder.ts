/**
 * Turns text into vectors for semantic search. Every provider (the corpus-trained default, ONNX
 * models in a local folder, OpenAI-compatible servers) implements this and passes one conformance
 * suite (test/engine/embedder-conformance.ts).
 */
import { LoupeError } from '../errors';
export type EmbedKind = 'document' | 'query';

export interface Embedder {
  /** Stable identity of the vector space: two embedders with the same id produce comparable vectors. */
  readonly id: string;
  readonly dims: number;
  /**
   * One unit-length vector per text, or null when the text holds nothing the model can represent
   * (search then relies on the lexical side for it).
   */
  embed(texts: string[], kind: EmbedKind, signal?: AbortSignal): Promise<(Float32Array | null)[]>;
}

/** Scales a vector to unit length in place; null when it is all zeros (or not finite). */
export function normalize(v: Float32Array): Float32Array | null {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
  if (!(sum > 0) || !Number.isFinite(sum)) return null;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i] *= inv;
  return v;
}

/** How a provider is chosen in configuration. */
export type EmbedderConfig =
  | { kind: 'corpus'; dims?: number }
  | { kind: 'onnx'; modelDir: string; maxTokens?: number }
  | { kind: 'openai'; baseUrl: string; model: string; apiKey?: string; dims?: number; batchSize?: number };

/**
 * The provider chosen by environment (the CLI and the language server read it):
 * LOUPE_EMBED_ONNX_DIR=<model folder>, or LOUPE_EMBED_URL=<…/v1> with LOUPE_EMBED_MODEL (and LOUPE_EMBED_API_KEY);
 * otherwise the default corpus model.
 */
export function embedderConfigFromEnv(env: NodeJS.ProcessEnv): EmbedderConfig | undefined {
  if (env.LOUPE_EMBED_ONNX_DIR) return { kind: 'onnx', modelDir: env.LOUPE_EMBED_ONNX_DIR };
  if (env.LOUPE_EMBED_URL) {
    if (!env.LOUPE_EMBED_MODEL) throw new LoupeError('VALIDATION_FAILED', 'LOUPE_EMBED_URL needs LOUPE_EMBED_MODEL (the embedding model name)');
    return { kind: 'openai', baseUrl: env.LOUPE_EMBED_URL, model: env.LOUPE_EMBED_MODEL, apiKey: env.LOUPE_EMBED_API_KEY || undefined };
  }
  return undefined;
}
