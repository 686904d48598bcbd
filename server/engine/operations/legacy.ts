import type { Static } from 'typebox';
import { LoupeError } from '../errors';
import { parseTimeBound } from '../accounts/history';
import { CODE_OP_COST, type CodeOp } from '../research/code-ops';
import type {
  CodeOpRequest, CodeOpResult, ExplainRequest, ExplainResult, FundiChatRequest, FundiChatResult, FundiHistoryRequest, FundiStatus,
} from '../../../protocol/api/fundi';
import type { HistoryItem } from '../../../protocol/api/history';
import type { ChatModel } from '../../../protocol/api/models';
import type { SearchRequest } from '../../../protocol/api/search';
import type { Answer, CallContext, Caller } from './call';
import { metered, page } from './metering';
import type { EngineParts } from './parts';
import type { ModelOperations } from './models';
import type { SearchOperations } from './search';

const SUCCESSOR = '/v2 (see /openapi.json)';

type ChatAnswer = Static<typeof FundiChatResult>;

/**
 * Legacy `/v1/fundi…`, kept for old clients: each is a thin adapter over a V2 operation (research,
 * models, history) or a code operation on a generative model. Charges come from what they run.
 */
export class LegacyOperations {
  constructor(private readonly e: EngineParts, private readonly search: SearchOperations, private readonly models: ModelOperations) {}

  status(caller: Caller): Promise<Answer<Static<typeof FundiStatus>>> {
    return metered(this.e.accounts, caller, { operation: 'fundi.status', cost: 0 }, async (meter) => {
      const models = await this.e.research.models.list();
      return meter.answer({
        service: 'fundi' as const, status: 'ok' as const, api_version: 'v1' as const, deprecated: true as const, successor: SUCCESSOR,
        models: models.length, generative_models: models.filter((m) => m.kind === 'llm').length,
        uptime_s: Math.round((Date.now() - this.e.startedAt.getTime()) / 1000),
      });
    });
  }

  /** The same list as GET /v2/models, from the same operation, so the two never differ. */
  modelList(caller: Caller): Promise<Answer<ChatModel[]>> {
    return metered(this.e.accounts, caller, { operation: 'fundi.models', cost: 0 }, async (meter) =>
      meter.answer((await this.models.list(caller)).data));
  }

  /** Research (POST /v2/search with chat: true), collected into one answer; charged by that research. */
  chat(caller: Caller, b: Static<typeof FundiChatRequest>, context: CallContext = {}): Promise<Answer<ChatAnswer>> {
    return metered(this.e.accounts, caller, { operation: 'fundi.chat', cost: 0 }, async (meter) =>
      meter.answer(await this.research(caller, { query: b.message, model: b.model, conversation_id: b.conversation_id, repo_ids: b.repo_ids }, context)));
  }

  history(caller: Caller, q: Static<typeof FundiHistoryRequest>): Promise<Answer<HistoryItem[]>> {
    return metered(this.e.accounts, caller, { operation: 'fundi.history', cost: 0 }, async (meter) => {
      const limit = q?.limit ?? 20;
      const offset = q?.offset ?? 0;
      const from = q?.from === undefined ? undefined : parseTimeBound(q.from, 'from', 'start');
      const to = q?.to === undefined ? undefined : parseTimeBound(q.to, 'to', 'end');
      const { items, total } = await this.e.history.listAsync(caller.userId, { limit, offset, from, to });
      return meter.answer(items, { pagination: page(total, limit, offset) });
    });
  }

  /**
   * A snippet explained by a generative model (2 credits + usage, history `code`), or an indexed file
   * explained through research over it (charged by the research).
   */
  explain(caller: Caller, b: Static<typeof ExplainRequest>, context: CallContext = {}): Promise<Answer<Static<typeof ExplainResult>>> {
    return metered<Static<typeof ExplainResult>>(this.e.accounts, caller, { operation: 'fundi.explain', cost: 0 }, async (meter) => {
      if (b.code !== undefined && b.file_path !== undefined) throw new LoupeError('VALIDATION_FAILED', 'file_path: give either code or file_path, not both', { field: 'file_path' });
      if (b.code !== undefined) {
        const { accounts } = this.e;
        const reservation = await accounts.reserveAsync(caller.userId, accounts.costOf('fundi.explain', CODE_OP_COST), 'fundi.explain');
        try {
          const r = await this.e.codeOps.run({
            userId: caller.userId, op: 'explain', code: b.code, language: b.language, instructions: b.question, model: b.model, reservation,
            signal: context.signal ?? new AbortController().signal,
          });
          return meter.answer({
            op: 'explain' as const, result: r.result, model: r.model, source: 'code' as const, context_files: [], credits_used: r.credits_used,
            history_id: r.history_id, conversation_id: null,
          });
        } finally {
          accounts.credits.release(reservation);
        }
      }
      if (b.file_path === undefined) throw new LoupeError('VALIDATION_FAILED', 'code: is required unless file_path is given', { field: 'code' });
      if (b.file_path.length > 500) throw new LoupeError('VALIDATION_FAILED', 'file_path: must NOT have more than 500 characters to explain an indexed file', { field: 'file_path' });
      const query = `Explain ${b.file_path}${b.question ? `: ${b.question}` : ''}`.slice(0, 1000);
      const r = await this.research(caller, {
        query, model: b.model, repo_ids: b.repo_id ? [b.repo_id] : undefined, filters: { file_paths: [b.file_path] },
      }, context);
      return meter.answer({
        op: 'explain' as const, result: r.answer, model: r.model, source: 'index' as const, context_files: r.context_files,
        credits_used: r.credits_used, history_id: r.history_id, conversation_id: r.conversation_id,
      });
    });
  }

  /** optimize, debug, comment or convert a snippet with a generative model (2 credits + usage, history `code`). */
  codeOp(caller: Caller, op: Exclude<CodeOp, 'explain'>, b: Static<typeof CodeOpRequest>, context: CallContext = {}): Promise<Answer<Static<typeof CodeOpResult>>> {
    return metered(this.e.accounts, caller, { operation: `fundi.${op}`, cost: CODE_OP_COST }, async (meter) => {
      const result = await this.e.codeOps.run({
        userId: caller.userId, op, code: b.code, language: b.language, targetLanguage: b.target_language,
        instructions: b.instructions, model: b.model, reservation: meter.reservation, signal: context.signal ?? new AbortController().signal,
      });
      // Charged (with its history row) by the code operation itself: not again here.
      return meter.answer(result, { cost: 0 });
    });
  }

  /** Runs research for the caller and folds its events into one answer. */
  private async research(caller: Caller, request: SearchRequest, context: CallContext): Promise<ChatAnswer> {
    const run = await this.search.research(caller, { ...request, chat: true }, context);
    let answer = '';
    try {
      for await (const event of run.events(context.signal ?? new AbortController().signal)) {
        if (event.type === 'chunk') answer += event.text;
        else if (event.type === 'done') {
          return {
            answer, model: event.model, context_files: event.context_files ?? [], conversation_id: event.conversation_id ?? null,
            history_id: event.history_id ?? null, credits_used: event.credits_used ?? 0,
          };
        }
      }
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      const message = error instanceof LoupeError ? error.message : 'An unexpected error occurred; it was logged. Retry with backoff.';
      if (!(error instanceof LoupeError)) this.e.log.error('research for a /v1 call failed:', error as Error);
      throw new LoupeError('SERVICE_UNAVAILABLE', `research failed: ${message}`);
    } finally {
      run.cancel();
    }
    throw new LoupeError('SERVICE_UNAVAILABLE', 'research ended without an answer');
  }
}
