/**
 * Research: a search, then an answer streamed from a chat model grounded in what the search found.
 * `prepare()` does everything that may refuse the request (unknown model 400, someone else's
 * conversation 404, too few credits 402) before a byte is streamed; `run()` yields the events.
 */
import { LoupeError } from '../errors';
import type { Logger } from '../log';
import type { ResearchStore } from '../store/research-store';
import type { Async } from '../store/surface';
import { buildGroundingContext, DEFAULT_GROUNDING_LIMITS, type GroundingContext, type GroundingSubject, type ResearchHit } from './grounding';
import { abortError, type ChatMessage, type ChatUsage } from './model-provider';
import type { ModelRegistry, ResolvedModel } from './model-registry';
import { buildPrompt } from './prompt';
import type { RetrievalAssist } from './retrieval-assist';
import type { Accounts } from '../accounts/accounts';
import type { History } from '../accounts/history';
import type { Reservation } from '../accounts/credits';

/** What the search half hands over: its wire answer for the `search` line, and the hits to ground on. */
export interface ResearchSearchOutcome {
  results: unknown[];
  total: number;
  meta: Record<string, unknown>;
  hits: ResearchHit[];
  /** What a retrieval model added (retrieval-assist.ts): identifiers that lead the answer, and its usage, charged with the answer. */
  assist?: { model: string; identifiers: string[]; reranked: boolean; credits: number; inputTokens: number; outputTokens: number } | null;
}

export interface ContextFile {
  repo_id: string;
  repo_name: string;
  file_path: string;
  start_line: number | null;
  end_line: number | null;
}

export type ResearchEvent =
  | { type: 'search'; results: unknown[]; total: number; meta: Record<string, unknown> }
  | { type: 'chunk'; text: string }
  | {
    type: 'done'; model: string; context_files: ContextFile[];
    usage: { input_tokens: number; output_tokens: number; estimated: boolean };
    credits_used: number; conversation_id: string | null; history_id: string | null;
  };

/**
 * The parts of the accounts service research needs, written structurally so that the engine's
 * `Accounts` satisfies it as is (reserve → settle with a history row in one transaction).
 */
export interface ResearchAccounts {
  reserve(userId: string, credits: number, operation: string): Promise<unknown>;
  settle(charge: {
    userId: string; operation: string; credits: number; reservation?: unknown; capAtBalance?: boolean;
    history?: { category: string; query?: string | null; repoIds?: string[]; conversationId?: string | null; newConversation?: boolean; summary?: string | null; result?: unknown; durationMs?: number };
  }): Promise<{ charged: number; history: { historyId: string; conversationId: string | null } | null }>;
  release?(reservation: unknown): void;
  /** The caller's earlier turns of a conversation, oldest first; 404 when it is not theirs. */
  conversationTurns(userId: string, conversationId: string): Promise<{ query: string | null; result: unknown; category: string }[]>;
}

/**
 * The engine's accounts and history, seen as research needs them: their `…Async` methods, so research
 * settles on either backend (the account side on PostgreSQL refuses the synchronous ones).
 */
export function researchAccounts(accounts: Accounts, history: History): ResearchAccounts {
  return {
    reserve: (userId, credits, operation) => accounts.reserveAsync(userId, credits, operation),
    settle: (charge) => accounts.settleAsync(charge as never),
    release: (reservation) => accounts.credits.release(reservation as Reservation),
    conversationTurns: async (userId, conversationId) => (await history.conversationAsync(userId, conversationId)).items,
  };
}

export interface ResearchRequest {
  userId: string;
  question: string;
  model?: string | null;
  conversationId?: string | null;
  repoIds?: string[];
  /** Runs the search with the caller's request; research grounds on its hits. */
  search: (signal: AbortSignal) => Promise<ResearchSearchOutcome>;
  /** Credits already reserved for this call (the HTTP preHandler does it); otherwise prepare() reserves. */
  reservation?: unknown;
}

export const RESEARCH_SEARCH_COST = 5;
export const RESEARCH_OPERATION = 'search.research';
/** The answer kept in history, for the thread view and to feed follow-ups. */
const KEPT_ANSWER_CHARS = 16_000;

export function usageCredits(usage: ChatUsage, creditsPer1kTokens: number): number {
  if (creditsPer1kTokens <= 0) return 0;
  return Math.ceil(((usage.inputTokens + usage.outputTokens) / 1000) * creditsPer1kTokens);
}

export class Research {
  /** A language model's help with retrieval (query expansion, rerank), when one is configured; off by default. */
  assist: RetrievalAssist | null = null;

  constructor(
    private readonly store: Async<ResearchStore>,
    readonly models: ModelRegistry,
    private readonly accounts: ResearchAccounts | null,
    private readonly log: Logger,
  ) {}

  async prepare(request: ResearchRequest): Promise<PreparedResearch> {
    const model = await this.models.resolve(request.model);
    const turns = request.conversationId && this.accounts ? await this.accounts.conversationTurns(request.userId, request.conversationId) : [];
    const history = turnsToMessages(turns);
    const reservation = request.reservation ?? (await this.accounts?.reserve(request.userId, RESEARCH_SEARCH_COST, RESEARCH_OPERATION)) ?? null;
    return new PreparedResearch(this.store, this.accounts, this.log, request, model, history, previousFiles(turns), reservation, previousSubject(turns));
  }
}

/** What the history keeps of an answer's subject: the place its first line named. */
interface KeptSubject { repo_id: string; repo_name: string; file_path: string; name: string; start_line: number }

/** The subject of the conversation's last answer, for a follow-up that points back at it. */
function previousSubject(turns: { result: unknown; category: string }[]): GroundingSubject | null {
  const last = [...turns].reverse().find((t) => t.category === 'research' && !(t.result as { error?: unknown } | null)?.error);
  const s = (last?.result as { subject?: KeptSubject | null } | null)?.subject;
  if (!s || typeof s.name !== 'string' || typeof s.file_path !== 'string') return null;
  return { repoId: s.repo_id, repoName: s.repo_name, path: s.file_path, name: s.name, startLine: s.start_line };
}

/**
 * The files the last answer of the conversation was grounded on. A follow-up ("and where is it
 * called?") often names nothing the search can find; these keep the thread's subject in view.
 */
function previousFiles(turns: { result: unknown; category: string }[]): ResearchHit[] {
  const last = [...turns].reverse().find((t) => t.category === 'research' && !(t.result as { error?: unknown } | null)?.error);
  const files = (last?.result as { context_files?: ContextFile[] } | null)?.context_files ?? [];
  return files.map((f, i) => ({
    repoId: f.repo_id, repoName: f.repo_name, filePath: f.file_path, startLine: f.start_line, endLine: f.end_line, score: 1 / (i + 2),
  }));
}

function turnsToMessages(turns: { query: string | null; result: unknown; category: string }[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const t of turns) {
    if (t.category !== 'research' || !t.query || (t.result as { error?: unknown } | null)?.error) continue;
    out.push({ role: 'user', content: t.query });
    const answer = (t.result as { answer?: unknown } | null)?.answer;
    if (typeof answer === 'string' && answer) out.push({ role: 'assistant', content: answer });
  }
  return out;
}

const keptSubject = (context: GroundingContext): KeptSubject | null => {
  const lead = context.lead;
  if (!lead) return null;
  const name = lead.symbol.parent ? `${lead.symbol.parent}.${lead.symbol.name}` : lead.symbol.name;
  return { repo_id: lead.repoId, repo_name: lead.repoName, file_path: lead.path, name, start_line: lead.symbol.startLine };
};

export class PreparedResearch {
  private settled = false;

  constructor(
    private readonly store: Async<ResearchStore>,
    private readonly accounts: ResearchAccounts | null,
    private readonly log: Logger,
    readonly request: ResearchRequest,
    readonly model: ResolvedModel,
    readonly history: ChatMessage[],
    /** Grounding carried over from the conversation's previous answer, after this search's hits. */
    private readonly carried: ResearchHit[],
    private readonly reservation: unknown,
    /** The previous answer's subject, when this is a follow-up. */
    readonly subject: GroundingSubject | null = null,
  ) {}

  /** Gives back the reserved credits when the run never starts (or fails before charging). */
  cancel(): void {
    if (!this.settled && this.reservation && this.accounts?.release) this.accounts.release(this.reservation);
    this.settled = true;
  }

  /**
   * Yields `search`, then `chunk`s as the model writes, then `done`. Throws on failure (the
   * transport turns it into the terminal `error` line); an aborted signal throws an AbortError.
   * The search is charged only when the answer completes; a failed one costs nothing but is still a
   * history row (credits 0, what went wrong in its summary); an abandoned one leaves no trace.
   */
  async *run(signal: AbortSignal): AsyncGenerator<ResearchEvent> {
    const started = Date.now();
    let answer = '';
    let failure: string | null = null;
    try {
      const outcome = await this.request.search(signal);
      if (signal.aborted) throw abortError(signal);
      yield { type: 'search', results: outcome.results, total: outcome.total, meta: outcome.meta };

      // This search's hits first; the previous answer's files fill the rest (grounding dedupes and caps).
      const context: GroundingContext = await buildGroundingContext(
        this.store, this.request.question, [...outcome.hits.slice(0, 5), ...this.carried, ...outcome.hits.slice(5)], DEFAULT_GROUNDING_LIMITS, this.subject, outcome.assist?.identifiers ?? [],
      );
      const { info, provider } = this.model;
      const messages = buildPrompt(context, this.history, { contextWindow: info.contextWindow, maxOutput: info.maxOutput });
      let usage: ChatUsage | null = null;
      for await (const event of provider.chat({ model: info.id, messages, context, maxOutputTokens: info.maxOutput, signal })) {
        if (event.type === 'text') {
          answer += event.text;
          yield { type: 'chunk', text: event.text };
        } else {
          usage = event.usage;
        }
      }
      if (signal.aborted) throw abortError(signal);
      if (!usage) throw new LoupeError('SERVICE_UNAVAILABLE', `chat model: ${info.id} ended without reporting usage`);

      const contextFiles: ContextFile[] = context.files.map((f) => ({
        repo_id: f.repoId, repo_name: f.repoName, file_path: f.path, start_line: f.excerpt?.startLine ?? null, end_line: f.excerpt?.endLine ?? null,
      }));
      // The retrieval model's usage is model usage too, charged with the answer.
      const credits = RESEARCH_SEARCH_COST + usageCredits(usage, info.creditsPer1kTokens) + (outcome.assist?.credits ?? 0);
      let charged = credits;
      let ref: { historyId: string; conversationId: string | null } | null = null;
      if (this.accounts) {
        const settled = await this.accounts.settle({
          userId: this.request.userId, operation: RESEARCH_OPERATION, credits, reservation: this.reservation,
          // The answer has been delivered: charge what is left rather than refuse after the fact.
          capAtBalance: true,
          history: {
            category: 'research', query: this.request.question, repoIds: this.request.repoIds ?? [],
            conversationId: this.request.conversationId ?? null, newConversation: !this.request.conversationId,
            summary: `${info.id}: ${outcome.total} results, answer of ${answer.length} characters from ${contextFiles.length} files`,
            result: { model: info.id, answer: answer.slice(0, KEPT_ANSWER_CHARS), context_files: contextFiles, usage, subject: keptSubject(context), ...(outcome.assist ? { retrieval: outcome.assist } : {}) },
            durationMs: Date.now() - started,
          },
        });
        this.settled = true;
        charged = settled.charged;
        ref = settled.history;
      }
      yield {
        type: 'done', model: info.id, context_files: contextFiles,
        usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, estimated: usage.estimated },
        credits_used: charged, conversation_id: ref?.conversationId ?? null, history_id: ref?.historyId ?? null,
      };
    } catch (error) {
      const aborted = (error as Error).name === 'AbortError';
      if (!aborted) this.log.warn(`research with ${this.model.info.id} failed: ${(error as Error).message}`);
      if (!aborted) failure = `failed: ${(error as Error).message}`;
      throw error;
    } finally {
      // A call that ends in an error line is a history row; one the client walked away from (abort,
      // or the consumer stopped reading) leaves nothing, as nothing reached anyone.
      if (!this.settled && failure) await this.recordUnfinished(failure, answer, Date.now() - started);
      this.cancel();
    }
  }

  private async recordUnfinished(summary: string, answer: string, durationMs: number): Promise<void> {
    if (!this.accounts) return;
    try {
      await this.accounts.settle({
        userId: this.request.userId, operation: RESEARCH_OPERATION, credits: 0, reservation: this.reservation,
        history: {
          category: 'research', query: this.request.question, repoIds: this.request.repoIds ?? [],
          // A failed turn joins the thread it was asked in, but starts none.
          conversationId: this.request.conversationId ?? null, newConversation: false,
          summary: `${this.model.info.id}: ${summary}`.slice(0, 500),
          result: { model: this.model.info.id, answer: answer.slice(0, KEPT_ANSWER_CHARS), error: summary },
          durationMs,
        },
      });
      this.settled = true;
    } catch (error) {
      this.log.warn(`research: could not record the unfinished call in history: ${(error as Error).message}`);
    }
  }
}
