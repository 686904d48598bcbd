import type { ConversationRow, HistoryStore, HistoryRow } from '../store/history-store';
import { sq, type AccountSide, type Either, type Work } from '../store/account-side';
import { LoupeError, notFound } from '../errors';
import { isUuid, newId, newTimeOrderedId, nowIso } from '../util/ids';

/** Categories the routes use today; others may be added (the column is free text). */
export type HistoryCategory =
  | 'search' | 'research' | 'repos' | 'files' | 'docs' | 'analysis' | 'chat' | 'code' | string;

export interface HistoryInput {
  userId: string;
  category: HistoryCategory;
  /** The operation name, as in the credit ledger (`search.run`, `files.list`, …). */
  operation?: string;
  /** What the caller asked (the search text, the file path, the chat message). */
  query?: string | null;
  repoIds?: string[];
  /**
   * Continue this conversation (must belong to the user, else 404). With `newConversation: true`
   * a conversation is started and its id returned; otherwise the row stands alone.
   */
  conversationId?: string | null;
  newConversation?: boolean;
  /** One line describing the result ("12 results", "answer of 230 words"). */
  summary?: string | null;
  /** Optional structured result kept for the thread view (kept small by the caller). */
  result?: unknown;
  credits?: number;
  durationMs?: number;
}

export interface HistoryRef {
  historyId: string;
  conversationId: string | null;
}

export interface HistoryItem {
  history_id: string;
  conversation_id: string | null;
  category: string;
  operation: string;
  query: string | null;
  repo_ids: string[];
  summary: string | null;
  result: unknown;
  credits: number;
  duration_ms: number;
  created_at: string;
}

export const toHistoryItem = (r: HistoryRow): HistoryItem => ({
  history_id: r.id, conversation_id: r.conversation_id, category: r.category, operation: r.operation, query: r.query,
  repo_ids: JSON.parse(r.repo_ids) as string[], summary: r.summary, result: r.result === null ? null : JSON.parse(r.result),
  credits: r.credits, duration_ms: r.duration_ms, created_at: r.created_at,
});

/**
 * The per-user query history (`engine.history`). Its writes are work of the account side
 * (store/account-side.ts), so they can run inside the transaction that charges for the operation
 * (`Credits.settle` yields `writeWork` there), on SQLite and on PostgreSQL alike. The plain methods
 * are synchronous (SQLite only: tests, research); the engine's operations use the `…Async` ones.
 */
export class History {
  constructor(private readonly side: AccountSide) {}

  /** The store as the account side's work sees it (SQLite: values; PostgreSQL: promises). */
  get data(): Either<HistoryStore> {
    return this.side.stores.history;
  }

  /** The store, synchronous (SQLite only: tests, benchmarks). */
  get store(): HistoryStore {
    return this.side.syncStores.history;
  }

  *assertConversationWork(userId: string, conversationId: string): Work<ConversationRow> {
    const row = isUuid(conversationId) ? yield* sq(this.data.conversation(conversationId.toLowerCase())) : undefined;
    if (!row || row.user_id !== userId) throw notFound('conversation');
    return row;
  }

  /** Checks that a conversation id given by a caller is theirs, before any work is done. */
  assertConversation(userId: string, conversationId: string): void {
    this.side.runSync(() => this.assertConversationWork(userId, conversationId));
  }

  async assertConversationAsync(userId: string, conversationId: string): Promise<void> {
    await this.side.run(() => this.assertConversationWork(userId, conversationId));
  }

  /** Writes one row (and starts or continues its conversation), in the caller's transaction if there is one. */
  record(input: HistoryInput): HistoryRef {
    return this.side.inTransaction ? this.side.runSync(() => this.writeWork(input)) : this.side.transactionSync(() => this.writeWork(input));
  }

  recordAsync(input: HistoryInput): Promise<HistoryRef> {
    return this.side.inTransaction ? this.side.run(() => this.writeWork(input)) : this.side.transaction(() => this.writeWork(input));
  }

  /** Everything record() would refuse, checked before it writes. */
  *checkWork(input: HistoryInput): Work<void> {
    if (input.credits !== undefined && (!Number.isInteger(input.credits) || input.credits < 0)) {
      throw new LoupeError('INTERNAL', `history credits must be a whole number >= 0, got ${input.credits}`);
    }
    if (input.conversationId) yield* this.assertConversationWork(input.userId, input.conversationId);
  }

  /** The writes of one row, in the caller's transaction (Credits' settle). */
  *writeWork(input: HistoryInput): Work<HistoryRef> {
    yield* this.checkWork(input);
    const now = nowIso();
    let conversationId: string | null = null;
    if (input.conversationId) {
      conversationId = input.conversationId.toLowerCase();
      yield* sq(this.data.touchConversation(conversationId, now));
    } else if (input.newConversation) {
      conversationId = newId();
      yield* sq(this.data.insertConversation({
        id: conversationId, user_id: input.userId, title: input.query?.slice(0, 200) ?? null, created_at: now, updated_at: now,
      }));
    }
    const id = newTimeOrderedId();
    const seq = conversationId ? yield* sq(this.data.nextSeq(conversationId)) : 0;
    yield* sq(this.data.insert({
      id, user_id: input.userId, conversation_id: conversationId, seq,
      category: input.category, operation: input.operation ?? input.category, query: input.query ?? null,
      repo_ids: JSON.stringify(input.repoIds ?? []), summary: input.summary ?? null,
      result: input.result === undefined ? null : JSON.stringify(input.result),
      credits: input.credits ?? 0, duration_ms: Math.max(0, Math.round(input.durationMs ?? 0)), created_at: now,
    }));
    return { historyId: id, conversationId };
  }

  private *listWork(userId: string, q: { limit: number; offset: number; from?: string; to?: string }): Work<{ items: HistoryItem[]; total: number }> {
    const { items, total } = yield* sq(this.data.list({ userId, ...q }));
    return { items: items.map(toHistoryItem), total };
  }

  list(userId: string, q: { limit: number; offset: number; from?: string; to?: string }) {
    return this.side.runSync(() => this.listWork(userId, q));
  }

  listAsync(userId: string, q: { limit: number; offset: number; from?: string; to?: string }) {
    return this.side.run(() => this.listWork(userId, q));
  }

  private *getWork(userId: string, historyId: string): Work<HistoryItem> {
    const row = isUuid(historyId) ? yield* sq(this.data.get(historyId.toLowerCase())) : undefined;
    if (!row || row.user_id !== userId) throw notFound('history item');
    return toHistoryItem(row);
  }

  get(userId: string, historyId: string): HistoryItem {
    return this.side.runSync(() => this.getWork(userId, historyId));
  }

  getAsync(userId: string, historyId: string): Promise<HistoryItem> {
    return this.side.run(() => this.getWork(userId, historyId));
  }

  private *conversationWork(userId: string, conversationId: string): Work<ConversationView> {
    const row = yield* this.assertConversationWork(userId, conversationId);
    const thread = yield* sq(this.data.thread(row.id));
    return { conversation_id: row.id, title: row.title, created_at: row.created_at, updated_at: row.updated_at, items: thread.map(toHistoryItem) };
  }

  /** The whole thread in order; 404 when the conversation is not the caller's. */
  conversation(userId: string, conversationId: string): ConversationView {
    return this.side.runSync(() => this.conversationWork(userId, conversationId));
  }

  conversationAsync(userId: string, conversationId: string): Promise<ConversationView> {
    return this.side.run(() => this.conversationWork(userId, conversationId));
  }
}

export interface ConversationView {
  conversation_id: string;
  title: string | null;
  created_at: string;
  updated_at: string;
  items: HistoryItem[];
}

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Parses an inclusive range bound given by a caller. A bare date means the first instant of that
 * day (`start`) or its last (`end`), UTC; a date-time without an offset is UTC. Anything else,
 * including impossible dates (2024-02-30), is a 400 naming the field.
 */
export function parseTimeBound(value: string, field: string, side: 'start' | 'end'): string {
  const m = ISO_8601.exec(value.trim());
  const bad = () => new LoupeError('VALIDATION_FAILED', `${field}: must be an ISO 8601 date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM:SSZ)`, { field });
  if (!m) throw bad();
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (day.getUTCFullYear() !== Number(y) || day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d)) throw bad();
  if (h === undefined) {
    return side === 'start' ? day.toISOString() : new Date(day.getTime() + 86_400_000 - 1).toISOString();
  }
  if (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59) throw bad();
  const ms = (frac ?? '').padEnd(3, '0').slice(0, 3);
  const offset = !zone || zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const at = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s ?? '00'}.${ms}${offset}`);
  if (Number.isNaN(at.getTime())) throw bad();
  return at.toISOString();
}
