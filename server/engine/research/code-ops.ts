/**
 * The legacy V1 code operations (explain, optimize, debug, comment, convert) run on the same chat
 * model providers as research. They transform a snippet the caller sends, so they need a generative
 * model: the built-in grounded model composes answers from the index and cannot rewrite code.
 */
import { LoupeError } from '../errors';
import type { Accounts } from '../accounts/accounts';
import type { Reservation } from '../accounts/credits';
import type { ModelRegistry, ResolvedModel } from './model-registry';
import type { ChatMessage, ChatUsage } from './model-provider';
import { usageCredits } from './research';

export type CodeOp = 'explain' | 'optimize' | 'debug' | 'comment' | 'convert';
export const CODE_OPS: CodeOp[] = ['explain', 'optimize', 'debug', 'comment', 'convert'];

/** Credits of a code operation before model usage (configurable per operation `fundi.<op>`). */
export const CODE_OP_COST = 2;

const INSTRUCTIONS: Record<CodeOp, string> = {
  explain: 'Explain what the code does, step by step, for a developer new to it. Mention inputs, outputs and side effects.',
  optimize: 'Rewrite the code to be faster or leaner without changing its behaviour. Return the code first, then a short list of the changes.',
  debug: 'Find the bugs in the code. For each: the line, what goes wrong, and the fix. Then return the corrected code.',
  comment: 'Return the same code with clear comments added where the intent is not obvious. Do not change the code itself.',
  convert: 'Translate the code into the target language, idiomatically, keeping its behaviour. Return only the translated code and brief notes.',
};

export interface CodeOpRequest {
  userId: string;
  op: CodeOp;
  code: string;
  language?: string;
  targetLanguage?: string;
  instructions?: string;
  model?: string;
  reservation?: Reservation | null;
  signal: AbortSignal;
}

export interface CodeOpResult {
  op: CodeOp;
  result: string;
  model: string;
  usage: { input_tokens: number; output_tokens: number; estimated: boolean };
  credits_used: number;
  history_id: string | null;
}

export class CodeOps {
  constructor(private readonly models: ModelRegistry, private readonly accounts: Accounts) {}

  /** The model to use: the one asked for (it must generate), else the default or the first generative model. */
  private async pick(op: CodeOp, wanted?: string): Promise<ResolvedModel> {
    if (wanted) {
      const chosen = await this.models.resolve(wanted);
      if (chosen.info.kind !== 'llm') {
        throw new LoupeError('VALIDATION_FAILED', `model: "${wanted}" composes answers from the index and cannot ${op} code; choose a model of kind llm (GET /v1/fundi/models)`, { field: 'model' });
      }
      return chosen;
    }
    const fallback = await this.models.resolve();
    if (fallback.info.kind === 'llm') return fallback;
    const llm = (await this.models.list()).find((m) => m.kind === 'llm');
    if (!llm) {
      throw new LoupeError('MODEL_NOT_CONFIGURED', `${op} needs a generative chat model and none is configured: set LOUPE_CHAT_BASE_URL and LOUPE_CHAT_MODELS (an OpenAI-compatible server such as Ollama) or use the editor's models`);
    }
    return this.models.resolve(llm.id);
  }

  async run(request: CodeOpRequest): Promise<CodeOpResult> {
    if (request.op === 'convert' && !request.targetLanguage) {
      throw new LoupeError('VALIDATION_FAILED', 'target_language: is required for convert', { field: 'target_language' });
    }
    const started = Date.now();
    const { info, provider } = await this.pick(request.op, request.model);
    const lang = request.language ?? '';
    const task = [
      INSTRUCTIONS[request.op],
      request.targetLanguage ? `Target language: ${request.targetLanguage}.` : '',
      request.instructions ? `Additional instructions from the user: ${request.instructions}` : '',
    ].filter(Boolean).join('\n');
    const messages: ChatMessage[] = [
      { role: 'system', content: `You are a careful senior engineer. ${task}` },
      { role: 'user', content: `\`\`\`${lang}\n${request.code}\n\`\`\`` },
    ];
    let text = '';
    let usage: ChatUsage | null = null;
    for await (const event of provider.chat({
      model: info.id, messages, context: { question: task, files: [], edges: [] }, maxOutputTokens: info.maxOutput, signal: request.signal,
    })) {
      if (event.type === 'text') text += event.text;
      else usage = event.usage;
    }
    if (!usage) throw new LoupeError('SERVICE_UNAVAILABLE', `chat model: ${info.id} ended without reporting usage`);
    const operation = `fundi.${request.op}`;
    const credits = this.accounts.costOf(operation, CODE_OP_COST) + usageCredits(usage, info.creditsPer1kTokens);
    // The model has already run: usage beyond the balance is charged up to what is left, not refused.
    const settled = await this.accounts.settleAsync({
      userId: request.userId, operation, credits, reservation: request.reservation, capAtBalance: true,
      history: {
        category: 'code', query: request.instructions ?? `${request.op} ${lang || 'code'} (${request.code.length} characters)`,
        summary: `${info.id}: ${request.op}, ${text.length} characters`, result: { model: info.id, op: request.op, output: text.slice(0, 16_000) },
        durationMs: Date.now() - started,
      },
    });
    return {
      op: request.op, result: text, model: info.id,
      usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, estimated: usage.estimated },
      credits_used: settled.charged, history_id: settled.history?.historyId ?? null,
    };
  }
}
