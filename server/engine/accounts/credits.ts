import type { Db } from '../store/db';
import type { AccountsStore } from '../store/accounts-store';
import { LoupeError } from '../errors';
import type { History, HistoryInput, HistoryRef } from './history';

/** Credits set aside for an operation that has started and not yet finished. */
export interface Reservation {
  readonly userId: string;
  readonly operation: string;
  readonly credits: number;
  released: boolean;
}

export interface Charge {
  userId: string;
  operation: string;
  credits: number;
  /** The reservation taken before the operation ran; released whatever happens. */
  reservation?: Reservation | null;
  /** A history row written in the same transaction (its credits are the ones charged). */
  history?: Omit<HistoryInput, 'userId' | 'credits'>;
  /**
   * For output already delivered (a finished stream): charge at most what is left instead of
   * refusing. Everything else is refused with 402 and nothing is written.
   */
  capAtBalance?: boolean;
}

/** One charge as the ledger holds it (its minute's row), so that a refund can take it back. */
export interface LedgerRef { userId: string; operation: string; credits: number; at: string }

export interface Settled<T> {
  value: T;
  charged: number;
  history: HistoryRef | null;
  /** The ledger row written (null when nothing was charged): what a refund takes back. */
  /** The ledger charge this settled (null when nothing was charged), for a refund. */
  ledger: LedgerRef | null;
  /** The user's balance right after this charge. */
  balance: Balance;
}

interface PlannedCharge {
  charge: Charge;
  credits: number;
  before: Balance;
  history: HistoryInput | null;
}

type Outcome = { settled?: Settled<unknown>; error?: unknown };

interface PendingCharge {
  charge: Charge;
  effect?: () => unknown;
  resolve: (settled: Settled<unknown>) => void;
  reject: (error: unknown) => void;
}

export interface Balance {
  limit: number;
  used: number;
  remaining: number;
}

/**
 * The credit ledger with reservations. Node runs one request at a time between awaits, so a
 * balance check before an async operation is not enough: fifty calls would all pass it before the
 * first one charges. `reserve()` therefore holds the cost in memory until `settle()` (or
 * `release()`), and `settle()` checks the balance once more inside the write transaction
 * (BEGIN IMMEDIATE), which also covers a second process on the same database file.
 */
export class Credits {
  private readonly reserved = new Map<string, number>();
  private lastCharge = Number.NEGATIVE_INFINITY;
  /** Charges further apart than this (ms) are settled at once instead of waiting to share a commit. */
  loneChargeGapMs = 1;
  private pending: PendingCharge[] = [];
  /** Transaction functions, made once (better-sqlite3 builds several closures for each). */
  private readonly applyOnce;
  private readonly applyBatch;

  constructor(
    private readonly db: Db,
    private readonly store: AccountsStore,
    private readonly history: History,
    private readonly allowance: (userId: string) => number,
  ) {
    this.applyOnce = db.transaction((charge: Charge, effect?: () => unknown) => this.apply(charge, effect));
    this.applyBatch = db.transaction((batch: PendingCharge[], outcomes: Outcome[]) => {
      for (const item of batch) {
        outcomes.push(this.applyInBatch(item));
        // Settled or refused, its reservation has done its work: the next charge of the same user
        // must not count it as still set aside.
        if (item.charge.reservation) this.release(item.charge.reservation);
      }
    });
  }

  balance(userId: string): Balance {
    const limit = this.allowance(userId);
    const used = this.store.creditsUsed(userId);
    return { limit, used, remaining: Math.max(0, limit - used) };
  }

  /** What a new operation may spend now: the balance less what running operations have reserved. */
  available(userId: string): number {
    return Math.max(0, this.balance(userId).remaining - (this.reserved.get(userId) ?? 0));
  }

  /** Sets `credits` aside before the operation runs; 402 (nothing charged) when they are not there. */
  reserve(userId: string, credits: number, operation: string): Reservation {
    const available = this.available(userId);
    if (credits > available) throw insufficient(credits, available, operation);
    this.reserved.set(userId, (this.reserved.get(userId) ?? 0) + credits);
    return { userId, operation, credits, released: false };
  }

  release(reservation: Reservation): void {
    if (reservation.released) return;
    reservation.released = true;
    const left = (this.reserved.get(reservation.userId) ?? 0) - reservation.credits;
    if (left > 0) this.reserved.set(reservation.userId, left);
    else this.reserved.delete(reservation.userId);
  }

  /**
   * Runs the operation's own writes (`effect`, synchronous), charges, and writes the history row,
   * all in one transaction: if any part throws, none of it is kept and nothing is charged.
   */
  settle<T = undefined>(charge: Charge, effect?: () => T): Settled<T> {
    assertWholeCredits(charge.credits);
    try {
      return (this.db.inTransaction ? this.applyOnce(charge, effect) : this.applyOnce.immediate(charge, effect)) as Settled<T>;
    } finally {
      if (charge.reservation) this.release(charge.reservation);
    }
  }

  /**
   * settle() with group commit: the charges of every request answered in the same turn of the
   * event loop are written in one transaction, which is committed before any of them resolves. A
   * charge that is refused (402, an unknown conversation) is refused before it writes anything and
   * the others go on; an effect runs in a savepoint of its own; a storage failure fails them all. A commit is most of the
   * cost of a paid call; sharing it is what lets a listing answer thousands of times a second.
   */
  settleSoon<T = undefined>(charge: Charge, effect?: () => T): Promise<Settled<T>> {
    assertWholeCredits(charge.credits);
    // A charge with no other one in the last millisecond commits at once: a lone request must not
    // wait for the end of the turn behind whatever background work is queued. Under load (charges
    // less than a millisecond apart) they wait for the end of the turn and share one commit.
    const now = performance.now();
    const lone = !this.pending.length && now - this.lastCharge > this.loneChargeGapMs;
    this.lastCharge = now;
    if (lone) {
      try {
        return Promise.resolve(this.settle(charge, effect));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return new Promise<Settled<T>>((resolve, reject) => {
      this.pending.push({ charge, effect, resolve: resolve as (s: Settled<unknown>) => void, reject });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    const outcomes: Outcome[] = [];
    try {
      this.applyBatch.immediate(batch, outcomes);
    } catch (error) {
      // The commit itself failed (disk full, database unavailable): nothing of the batch was kept.
      outcomes.length = 0;
      for (const _ of batch) outcomes.push({ error });
    }
    batch.forEach((item, i) => {
      if (item.charge.reservation) this.release(item.charge.reservation);
      const outcome = outcomes[i];
      if (outcome.settled) item.resolve(outcome.settled);
      else item.reject(outcome.error);
    });
  }

  private applyInBatch(item: PendingCharge): Outcome {
    if (item.effect) {
      // An effect may write and then fail: it runs in a savepoint of its own.
      try {
        return { settled: this.applyOnce(item.charge, item.effect) };
      } catch (error) {
        return { error };
      }
    }
    let planned: PlannedCharge;
    try {
      planned = this.plan(item.charge);
    } catch (error) {
      return { error }; // refused before writing anything: the others go on
    }
    return { settled: this.write(planned) }; // a storage failure here fails the whole batch
  }

  /** One charge inside the caller's transaction: effect, balance check, ledger row, history row. */
  private apply<T>(charge: Charge, effect?: () => T): Settled<T> {
    const value = (effect ? effect() : undefined) as T;
    return { ...this.write(this.plan(charge)), value };
  }

  /** Every check of a charge, before anything is written: the room left, the history row's conversation. */
  private plan(charge: Charge): PlannedCharge {
    const { reservation } = charge;
    const ownReserved = reservation && !reservation.released ? reservation.credits : 0;
    const othersReserved = Math.max(0, (this.reserved.get(charge.userId) ?? 0) - ownReserved);
    const before = this.balance(charge.userId);
    const room = Math.max(0, before.remaining - othersReserved);
    let credits = charge.credits;
    if (credits > room) {
      if (!charge.capAtBalance) throw insufficient(credits, room, charge.operation);
      credits = room;
    }
    const history = charge.history ? { operation: charge.operation, ...charge.history, userId: charge.userId, credits } : null;
    if (history) this.history.check(history);
    return { charge, credits, before, history };
  }

  /** The writes of a planned charge; only a storage failure can make them throw. */
  private write({ charge, credits, before, history }: PlannedCharge): Settled<undefined> {
    const ledger = credits > 0 ? { userId: charge.userId, operation: charge.operation, credits, at: new Date().toISOString() } : null;
    if (ledger) this.store.recordCharge(ledger.userId, ledger.operation, ledger.credits, ledger.at);
    const ref = history ? this.history.record(history) : null;
    const balance = { limit: before.limit, used: before.used + credits, remaining: Math.max(0, before.remaining - credits) };
    return { value: undefined, charged: credits, history: ref, balance, ledger };
  }

  /**
   * Takes back a settled charge and its history row, in one transaction: the call did not succeed
   * after all (its answer could not be sent). The operation's own writes stay.
   */
  refund(settled: Pick<Settled<unknown>, 'ledger' | 'history'>): void {
    const undo = () => {
      if (settled.ledger) this.store.takeBackCharge(settled.ledger);
      if (settled.history) this.history.store.delete(settled.history.historyId);
    };
    if (this.db.inTransaction) undo(); else this.db.transaction(undo).immediate();
  }
}

function assertWholeCredits(credits: number): void {
  if (!Number.isInteger(credits) || credits < 0) {
    throw new LoupeError('INTERNAL', `a charge must be a whole number of credits >= 0, got ${credits}`);
  }
}

export function insufficient(required: number, available: number, operation: string): LoupeError {
  return new LoupeError('INSUFFICIENT_CREDITS',
    `${operation} costs ${required} credits and ${available} are available; nothing was charged`,
    { required, available });
}
