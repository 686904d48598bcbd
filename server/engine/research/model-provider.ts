/**
 * The one interface every chat model sits behind: the built-in grounded composer, an
 * OpenAI-compatible server, and the VS Code language models the extension bridges in. A shared
 * conformance suite (test/research/provider-conformance.ts) holds them to the same contract.
 */
import type { GroundingContext } from './grounding';

export interface ChatModelInfo {
  /** What callers pass as `model`; unique across providers. */
  id: string;
  /** Which provider serves it: `loupe`, `openai-compatible`, `vscode`. */
  provider: string;
  description: string;
  /** Tokens the model reads at most (prompt + context). */
  contextWindow: number;
  /** Tokens the model writes at most. */
  maxOutput: number;
  /** `extractive` composes from the index without a language model; `llm` generates text. */
  kind: 'extractive' | 'llm';
  /** Credits per started 1,000 tokens of usage, added to the search's own cost. */
  creditsPer1kTokens: number;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatUsage {
  inputTokens: number;
  outputTokens: number;
  /** True when the provider did not report usage and it was estimated from text length. */
  estimated: boolean;
}

export interface ChatRequest {
  model: string;
  /** The prompt for generative models: system (with the retrieved code), earlier turns, the question. */
  messages: ChatMessage[];
  /** The retrieved code itself, for providers that compose rather than generate. */
  context: GroundingContext;
  maxOutputTokens?: number;
  /** Aborting it must stop the work promptly; the stream then throws an AbortError. */
  signal: AbortSignal;
}

/** Text as it is produced, then exactly one `usage` as the last event. */
export type ChatEvent = { type: 'text'; text: string } | { type: 'usage'; usage: ChatUsage };

export interface ModelProvider {
  /** Short provider name, as in ChatModelInfo.provider. */
  readonly name: string;
  /** The models this provider serves now (may ask a remote server or the editor). */
  models(signal?: AbortSignal): Promise<ChatModelInfo[]>;
  chat(request: ChatRequest): AsyncIterable<ChatEvent>;
}

/** A rough token count (≈4 characters a token) for providers that report none. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

export function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  // Not a failure but the platform's cancellation signal: callers check name === 'AbortError', as for fetch.
  // eslint-disable-next-line no-restricted-syntax -- see above
  const error = new Error(reason instanceof Error ? reason.message : 'The research request was aborted');
  error.name = 'AbortError';
  return error;
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortError(signal);
}
