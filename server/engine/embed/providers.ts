import type { Embedder, EmbedderConfig } from './embedder';
import { OpenAIEmbedder } from './openai-embedder';

/** Builds a configured provider (the corpus provider is built by VectorIndex, which trains it). */
export async function createEmbedder(config: Exclude<EmbedderConfig, { kind: 'corpus' }>): Promise<Embedder> {
  if (config.kind === 'openai') return new OpenAIEmbedder(config).init();
  const { OnnxEmbedder } = await import('./onnx-embedder');
  return OnnxEmbedder.load(config.modelDir, { maxTokens: config.maxTokens });
}
