import type { Accounts, UsageMeta } from '../accounts/accounts';
import type { LedgerRef, Reservation } from '../accounts/credits';
import type { HistoryCategory, HistoryInput, HistoryRef } from '../accounts/history';
import type { Pagination } from '../../../protocol/api/common';
import type { Answer, Caller } from './call';

/** How an operation is paid for and recorded: its ledger name, its default cost (configuration may override), its history category. */
export interface Metering {
  operation: string;
  cost: number;
  /** When set, every successful call writes a history row of this category. */
  history?: HistoryCategory;
}

export interface Settlement {
  /** Overrides the cost (a variable cost, or 0 for an answer that is not ready yet). */
  cost?: number;
  /** History row fields; the category comes from the operation's metering unless given here. */
  history?: Partial<Omit<HistoryInput, 'userId' | 'credits'>>;
  /** The operation's own writes, run in the same transaction as the charge (synchronous). */
  effect?: () => void;
  pagination?: Pagination;
  message?: string;
  /** Operation-specific meta fields (file docs: `processing`, `fields_applied`). */
  meta?: Record<string, unknown>;
}

/**
 * One call's credits: reserved before the operation runs (402 with `required` and `available`
 * before any work), settled when it succeeds, released whatever else happens.
 */
export class Meter {
  private readonly started = Date.now();
  /** Charges settled by answer(), until the call is over: a failure after them takes them back. */
  private readonly settled: { ledger: LedgerRef | null; history: HistoryRef | null }[] = [];

  constructor(
    private readonly accounts: Accounts,
    readonly caller: Caller | null,
    readonly metering: Metering,
    /** The credits set aside for this call (an operation that settles by itself hands them on). */
    readonly reservation: Reservation | null,
  ) {}

  /**
   * The answer of a successful call. The operation's writes (`effect`), the charge and the history
   * row are one transaction, committed before this resolves (group commit: the calls answered in
   * the same turn of the event loop share it), so `meta` reports the balance after this call.
   */
  async answer<T>(data: T, s: Settlement = {}): Promise<Answer<T>> {
    let history: HistoryRef | null = null;
    let usage: UsageMeta | null = null;
    let settledCharge: { ledger: LedgerRef | null; history: HistoryRef | null } | null = null;
    if (this.caller) {
      const category = s.history?.category ?? this.metering.history;
      const settled = await this.accounts.settleSoon({
        userId: this.caller.userId,
        operation: this.metering.operation,
        credits: s.cost ?? this.cost(),
        reservation: this.reservation,
        history: category ? { durationMs: Date.now() - this.started, repoIds: [], ...s.history, category } : undefined,
      }, s.effect);
      history = settled.history;
      usage = this.accounts.usage(this.caller.plan, settled.balance);
      if (settled.ledger || settled.history) settledCharge = { ledger: settled.ledger, history: settled.history };
    }
    const answer: Answer<T> = {
      data,
      ...(s.message ? { message: s.message } : {}),
      ...(s.pagination ? { pagination: s.pagination } : {}),
      meta: {
        updated_at: new Date().toISOString(),
        tier: usage?.tier ?? 'ANONYMOUS',
        credits_used: usage?.credits_used ?? 0,
        credits_remaining: usage?.credits_remaining ?? 0,
        ...(usage ? { max_repos_allowed: usage.max_repos_allowed } : {}),
        ...(history ? { history_id: history.historyId, ...(history.conversationId ? { conversation_id: history.conversationId } : {}) } : {}),
        ...s.meta,
      },
    };
    if (settledCharge) {
      const charge = settledCharge;
      this.settled.push(charge);
      // Not a field of the answer (never serialized): what the transport calls when the answer is not delivered as a success.
      Object.defineProperty(answer, REFUND, { enumerable: false, value: () => this.refund(charge) });
    }
    return answer;
  }

  /**
   * Takes back every charge this call settled (once each). On SQLite the refund is written before
   * this returns (its transaction is synchronous); the promise never rejects: a refund that fails is
   * logged, as the answer it belongs to has failed already.
   */
  refund(only?: { ledger: LedgerRef | null; history: HistoryRef | null }): Promise<void> {
    const undone: Promise<void>[] = [];
    for (const charge of only ? [only] : [...this.settled]) {
      const at = this.settled.indexOf(charge);
      if (at < 0) continue;
      this.settled.splice(at, 1);
      undone.push(this.accounts.refundAsync(charge).catch((error: unknown) => {
        this.accounts.log.error(`could not take back the charge of a failed call (${this.metering.operation}): ${(error as Error).message}`);
      }));
    }
    return Promise.all(undone).then(() => undefined);
  }

  /** The configured cost of this operation for this engine. */
  cost(): number {
    return this.accounts.costOf(this.metering.operation, this.metering.cost);
  }

  release(): void {
    if (this.reservation) this.accounts.credits.release(this.reservation);
  }
}

/** Runs a paid (or free) operation: reserve, run, and release whatever is left of the reservation. */
export async function metered<T>(accounts: Accounts, caller: Caller | null, metering: Metering, run: (meter: Meter) => Promise<Answer<T>>): Promise<Answer<T>> {
  const cost = caller ? accounts.costOf(metering.operation, metering.cost) : 0;
  const reservation = caller && cost > 0 ? await accounts.reserveAsync(caller.userId, cost, metering.operation) : null;
  const meter = new Meter(accounts, caller, metering, reservation);
  try {
    return await run(meter);
  } catch (error) {
    await meter.refund(); // an answer settled and then a failure: the call did not succeed
    throw error;
  } finally {
    meter.release();
  }
}

const REFUND = Symbol('refund');

/**
 * Takes back the charge and history row of an answer that was settled but not delivered as a
 * success (its response failed to serialize, or ended as an error): transports call it when the
 * response they send for it is not a 2xx/3xx. Does nothing for an answer that charged nothing.
 */
export function refundAnswer(answer: Answer<unknown>): Promise<void> {
  return (answer as unknown as Record<symbol, (() => Promise<void>) | undefined>)[REFUND]?.() ?? Promise.resolve();
}

/** Paging of a listing, as every listing answers it. */
export const page = (total: number, limit: number, offset: number): Pagination => ({ total, limit, offset, has_more: offset + limit < total });
