import { request } from 'undici';
import { type Embedder, normalize } from './embedder';
import { LoupeError } from '../errors';

export interface OpenAIEmbedderConfig {
  /** e.g. http://127.0.0.1:11434/v1 (Ollama), http://127.0.0.1:1234/v1 (LM Studio), https://api.openai.com/v1 */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Width of the vectors; asked of the server once when not given. */
  dims?: number;
  batchSize?: number;
  timeoutMs?: number;
}

/**
 * Any server speaking OpenAI's `POST /v1/embeddings` (OpenAI, Ollama, LM Studio, vLLM, llama.cpp).
 * Vectors are re-normalized here: not every server returns unit vectors.
 */
export class OpenAIEmbedder implements Embedder {
  readonly id: string;
  dims: number;

  constructor(private readonly config: OpenAIEmbedderConfig) {
    this.id = `openai:${config.model}@${config.baseUrl.replace(/\/+$/, '')}`;
    this.dims = config.dims ?? 0;
  }

  /** Learns the vector width from the server when the configuration did not give it. */
  async init(): Promise<this> {
    if (!this.dims) this.dims = (await this.call(['dimension probe']))[0].length;
    return this;
  }

  async embed(texts: string[], _kind: 'document' | 'query', signal?: AbortSignal): Promise<(Float32Array | null)[]> {
    const out: (Float32Array | null)[] = [];
    const size = this.config.batchSize ?? 64;
    for (let i = 0; i < texts.length; i += size) {
      const batch = texts.slice(i, i + size);
      // Empty input is rejected by some servers; it has no meaning anyway.
      const idx = batch.map((t, j) => (t.trim() ? j : -1)).filter((j) => j >= 0);
      const vectors = idx.length ? await this.call(idx.map((j) => batch[j].slice(0, 8000)), signal) : [];
      const row: (Float32Array | null)[] = batch.map(() => null);
      idx.forEach((j, k) => { row[j] = normalize(vectors[k]); });
      out.push(...row);
    }
    return out;
  }

  private async call(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const url = `${this.config.baseUrl.replace(/\/+$/, '')}/embeddings`;
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}) },
      body: JSON.stringify({ model: this.config.model, input, encoding_format: 'float' }),
      signal,
      headersTimeout: this.config.timeoutMs ?? 60000,
      bodyTimeout: this.config.timeoutMs ?? 60000,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new LoupeError('SERVICE_UNAVAILABLE', `embeddings server answered ${res.statusCode}: ${text.slice(0, 200)}`);
    const body = JSON.parse(text) as { data?: { index: number; embedding: number[] }[] };
    if (!Array.isArray(body.data) || body.data.length !== input.length) throw new LoupeError('SERVICE_UNAVAILABLE', 'embeddings server returned a malformed answer');
    const sorted = [...body.data].sort((a, b) => a.index - b.index);
    return sorted.map((d) => {
      if (!Array.isArray(d.embedding) || (this.dims && d.embedding.length !== this.dims)) {
        throw new LoupeError('SERVICE_UNAVAILABLE', `embeddings server returned a vector of width ${d.embedding?.length}, expected ${this.dims}`);
      }
      return Float32Array.from(d.embedding);
    });
  }
}
