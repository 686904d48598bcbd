/**
 * Any server that speaks OpenAI's `/v1/chat/completions` with `stream: true` (OpenAI, Ollama,
 * LM Studio, vLLM, llama.cpp): server-sent events of `choices[0].delta.content`, ending in
 * `data: [DONE]`. Usage comes from the final chunk when the server honours
 * `stream_options.include_usage`, and is estimated from the text otherwise.
 */
import { request as httpRequest, type Dispatcher } from 'undici';
import { LoupeError } from '../../errors';
import { abortError, estimateTokens, type ChatEvent, type ChatModelInfo, type ChatRequest, type ModelProvider } from '../model-provider';

export interface OpenAICompatibleConfig {
  /** Up to and including `/v1`, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  apiKey?: string;
  /** Models offered; each is listed as its own id. Empty: ask the server (`GET /models`). */
  models: string[];
  contextWindow?: number;
  maxOutput?: number;
  creditsPer1kTokens?: number;
  /** Give up when the server sends nothing for this long. */
  idleTimeoutMs?: number;
  dispatcher?: Dispatcher;
}

/**
 * Reads LOUPE_CHAT_BASE_URL, LOUPE_CHAT_API_KEY, LOUPE_CHAT_MODELS (comma-separated; unset: the
 * server's own list), LOUPE_CHAT_CONTEXT_WINDOW, LOUPE_CHAT_MAX_OUTPUT.
 */
export function openAIConfigFromEnv(env: NodeJS.ProcessEnv = process.env): OpenAICompatibleConfig | null {
  const baseUrl = env.LOUPE_CHAT_BASE_URL?.trim();
  const models = (env.LOUPE_CHAT_MODELS ?? env.LOUPE_CHAT_MODEL ?? '').split(',').map((m) => m.trim()).filter(Boolean);
  if (!baseUrl) return null;
  const int = (v: string | undefined) => (v && /^\d+$/.test(v) ? Number(v) : undefined);
  return { baseUrl, apiKey: env.LOUPE_CHAT_API_KEY, models, contextWindow: int(env.LOUPE_CHAT_CONTEXT_WINDOW), maxOutput: int(env.LOUPE_CHAT_MAX_OUTPUT) };
}

interface StreamChunk {
  choices?: { delta?: { content?: string | null }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string };
}

export class OpenAICompatibleProvider implements ModelProvider {
  readonly name = 'openai-compatible';
  private readonly base: string;

  constructor(private readonly config: OpenAICompatibleConfig) {
    this.base = config.baseUrl.replace(/\/+$/, '');
  }

  private discovered: { at: number; ids: string[] } | null = null;

  /** The configured ids, or the server's `GET /models` list (kept for a minute). */
  private async modelIds(signal?: AbortSignal): Promise<string[]> {
    if (this.config.models.length) return this.config.models;
    if (this.discovered && Date.now() - this.discovered.at < 60_000) return this.discovered.ids;
    const res = await httpRequest(`${this.base}/models`, {
      signal, dispatcher: this.config.dispatcher,
      headers: this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {},
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw unavailable(`${this.base}/models answered ${res.statusCode}`);
    }
    const body = await res.body.json() as { data?: { id?: unknown }[] };
    const ids = (body.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string' && id.length > 0);
    this.discovered = { at: Date.now(), ids };
    return ids;
  }

  async models(signal?: AbortSignal): Promise<ChatModelInfo[]> {
    return (await this.modelIds(signal)).map((id) => ({
      id,
      provider: this.name,
      description: `${id} at ${new URL(this.base).host} (OpenAI-compatible chat completions): a language model, answering from the retrieved code in its prompt.`,
      contextWindow: this.config.contextWindow ?? 8_192,
      maxOutput: this.config.maxOutput ?? 1_024,
      kind: 'llm' as const,
      creditsPer1kTokens: this.config.creditsPer1kTokens ?? 1,
    }));
  }

  async *chat(request: ChatRequest): AsyncGenerator<ChatEvent> {
    const { signal } = request;
    if (signal.aborted) throw abortError(signal);
    let response: Dispatcher.ResponseData;
    try {
      response = await httpRequest(`${this.base}/chat/completions`, {
        method: 'POST',
        signal,
        dispatcher: this.config.dispatcher,
        bodyTimeout: this.config.idleTimeoutMs ?? 60_000,
        headersTimeout: this.config.idleTimeoutMs ?? 60_000,
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          ...(this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: request.model,
          messages: request.messages,
          stream: true,
          stream_options: { include_usage: true },
          max_tokens: request.maxOutputTokens ?? this.config.maxOutput ?? 1_024,
        }),
      });
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      throw unavailable(`cannot reach ${this.base}: ${(error as Error).message}`);
    }
    if (response.statusCode !== 200) {
      const text = await response.body.text().catch(() => '');
      throw unavailable(`${this.base}/chat/completions answered ${response.statusCode}: ${errorMessage(text)}`);
    }

    let written = '';
    let usage: ChatEvent & { type: 'usage' } | null = null;
    let buffer = '';
    try {
      for await (const raw of response.body) {
        buffer += (raw as Buffer).toString('utf8');
        let cut: number;
        // SSE events end with a blank line; `data:` lines inside carry the JSON.
        while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
          const event = buffer.slice(0, cut);
          buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
          const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
          if (!data) continue;
          if (data === '[DONE]') {
            yield usage ?? { type: 'usage', usage: { inputTokens: estimateTokens(request.messages.map((m) => m.content).join('\n')), outputTokens: estimateTokens(written), estimated: true } };
            return;
          }
          let chunk: StreamChunk;
          try {
            chunk = JSON.parse(data) as StreamChunk;
          } catch {
            throw unavailable(`${this.base} sent an event that is not JSON: ${data.slice(0, 80)}`);
          }
          if (chunk.error) throw unavailable(`${this.base}: ${chunk.error.message ?? 'the model failed'}`);
          const text = chunk.choices?.[0]?.delta?.content;
          if (text) {
            written += text;
            yield { type: 'text', text };
          }
          if (chunk.usage) {
            usage = { type: 'usage', usage: { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0, estimated: false } };
          }
        }
      }
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      if (error instanceof LoupeError) throw error;
      throw unavailable(`the stream from ${this.base} broke: ${(error as Error).message}`);
    } finally {
      // Leaving early (abort, consumer stopped) must release the socket.
      response.body.destroy();
    }
    if (signal.aborted) throw abortError(signal);
    throw unavailable(`${this.base} closed the stream before [DONE]`);
  }
}

const unavailable = (message: string) => new LoupeError('SERVICE_UNAVAILABLE', `chat model: ${message}`);

function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string };
    return typeof body.error === 'string' ? body.error : body.error?.message ?? text.slice(0, 200);
  } catch {
    return text.slice(0, 200) || 'no body';
  }
}
