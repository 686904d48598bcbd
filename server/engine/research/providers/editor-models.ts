/**
 * The hook through which the VS Code extension lends its `vscode.lm` chat models to the engine.
 * The engine cannot import `vscode`, so the language server implements `EditorModelBridge` by
 * calling back to the client over LSP (`loupe/lm/chat`, `loupe/lm/chunk`, `loupe/lm/cancel`; see
 * ARCHITECTURE.md), and registers it with `engine.research.models.setEditorBridge()`.
 */
import { LoupeError } from '../../errors';
import { abortError, estimateTokens, type ChatEvent, type ChatMessage, type ChatModelInfo, type ChatRequest, type ModelProvider } from '../model-provider';

export interface EditorModel {
  /** `LanguageModelChat.id`. */
  id: string;
  name: string;
  vendor: string;
  family?: string;
  maxInputTokens: number;
  maxOutputTokens?: number;
}

export interface EditorChatParams {
  modelId: string;
  messages: ChatMessage[];
  maxOutputTokens?: number;
}

export interface EditorModelBridge {
  /** The models the editor offers now (`vscode.lm.selectChatModels()`). */
  listModels(): Promise<EditorModel[]>;
  /**
   * Runs one chat. Calls `onText` with each piece as the model produces it and resolves when the
   * model is done, with its token counts when the editor could count them. Must stop the model
   * when `signal` aborts (and may then reject).
   */
  chat(params: EditorChatParams, onText: (text: string) => void, signal: AbortSignal): Promise<{ inputTokens?: number; outputTokens?: number }>;
}

/** Editor model ids are prefixed so they never collide with configured ones. */
export const EDITOR_MODEL_PREFIX = 'vscode:';

export class EditorModelsProvider implements ModelProvider {
  readonly name = 'vscode';

  constructor(private readonly bridge: EditorModelBridge) {}

  async models(): Promise<ChatModelInfo[]> {
    return (await this.bridge.listModels()).map((m) => ({
      id: `${EDITOR_MODEL_PREFIX}${m.id}`,
      provider: this.name,
      description: `${m.name} (${m.vendor}${m.family ? `, ${m.family}` : ''}) through VS Code's language model API: a language model, answering from the retrieved code in its prompt.`,
      contextWindow: m.maxInputTokens,
      maxOutput: m.maxOutputTokens ?? 4_096,
      kind: 'llm' as const,
      creditsPer1kTokens: 1,
    }));
  }

  /** Turns the bridge's callbacks into a pull stream: pieces queue up until the consumer asks. */
  async *chat(request: ChatRequest): AsyncGenerator<ChatEvent> {
    const { signal } = request;
    if (signal.aborted) throw abortError(signal);
    const queue: string[] = [];
    let wake: (() => void) | null = null;
    // Held in an object: TypeScript cannot see the callbacks below assign it.
    const state: { finished: { usage?: { inputTokens?: number; outputTokens?: number }; error?: unknown } | null } = { finished: null };
    const poke = () => { wake?.(); wake = null; };
    const onAbort = () => poke();
    signal.addEventListener('abort', onAbort);
    const modelId = request.model.startsWith(EDITOR_MODEL_PREFIX) ? request.model.slice(EDITOR_MODEL_PREFIX.length) : request.model;
    this.bridge.chat({ modelId, messages: request.messages, maxOutputTokens: request.maxOutputTokens }, (text) => { queue.push(text); poke(); }, signal)
      .then((usage) => { state.finished = { usage }; }, (error) => { state.finished = { error }; })
      .finally(poke);
    let written = '';
    try {
      for (;;) {
        if (signal.aborted) throw abortError(signal);
        const text = queue.shift();
        if (text !== undefined) {
          written += text;
          if (text) yield { type: 'text', text };
          continue;
        }
        const done = state.finished;
        if (done) {
          if (done.error) throw new LoupeError('SERVICE_UNAVAILABLE', `chat model: the editor's model failed: ${(done.error as Error).message ?? String(done.error)}`);
          const u = done.usage ?? {};
          const estimated = u.inputTokens === undefined || u.outputTokens === undefined;
          yield {
            type: 'usage',
            usage: {
              inputTokens: u.inputTokens ?? estimateTokens(request.messages.map((m) => m.content).join('\n')),
              outputTokens: u.outputTokens ?? estimateTokens(written),
              estimated,
            },
          };
          return;
        }
        await new Promise<void>((resolve) => { wake = resolve; });
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }
}
