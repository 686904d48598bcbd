import { savepoint, sq, type AccountSide, type Work } from '../store/account-side';
import { LoupeError } from '../errors';
import type { UserRow } from '../store/accounts-store';
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
 * A user's count of credits set aside, kept at zero rather than deleted: a Map that gains and loses its
 * one entry on every call makes its table again each time, and V8 makes a long-lived Map's table in the
 * old generation, as garbage that only a full collection takes back. Zeros go once the users are many.
 */
function setCount(counts: Map<string, number>, userId: string, credits: number): void {
  counts.set(userId, credits);
  if (credits === 0 && counts.size > 1024) for (const [id, n] of counts) if (n === 0) counts.delete(id);
}

/**
 * The credit ledger with reservations. Node runs one request at a time between awaits, so a
 * balance check before an async operation is not enough: fifty calls would all pass it before the
 * first one charges. `reserve()` therefore holds the cost in memory until `settle()` (or
 * `release()`), and `settle()` checks the balance once more inside the write transaction
 * (SQLite: BEGIN IMMEDIATE, which also covers a second process on the same database file;
 * PostgreSQL: the user's totals row locked `FOR UPDATE`, which covers every other node).
 *
 * The work is written once (generators over the account side's stores, store/account-side.ts) and
 * runs synchronously inside one transaction on SQLite, awaited inside one on PostgreSQL.
 */
export class Credits {
  private readonly reserved = new Map<string, number>();
  /**
   * Credits charged in transactions that have not committed yet, per user (PostgreSQL only: on
   * SQLite no one can look while a transaction is open). A batch releases each reservation as its
   * charge is written; until the commit, a reserve() outside must still count those credits.
   */
  private readonly uncommitted = new Map<string, number>();
  private lastCharge = Number.NEGATIVE_INFINITY;
  /** Charges further apart than this (ms) are settled at once instead of waiting to share a commit. */
  loneChargeGapMs = 1;
  private pending: PendingCharge[] = [];
  /**
   * Whether settleSoon() batches the charges of one turn into one transaction. On SQLite a commit is
   * most of a charge's cost and there is one writer, so batching pays (default). On PostgreSQL a batch
   * runs its statements one after another on one connection, while separate transactions run side by
   * side on the pool (a user's charges still queue on their totals row): per-charge transactions
   * answered twice as many calls a second in bench/pg-settle.ts, so batching is off there by default.
   */
  groupCommit: boolean;

  constructor(
    private readonly side: AccountSide,
    private readonly history: History,
    private readonly allowance: (user: UserRow | undefined) => number,
  ) {
    this.groupCommit = side.backend === 'sqlite';
  }

  private get store() {
    return this.side.stores.accounts;
  }

  *balanceWork(userId: string): Work<Balance> {
    // The user (their allowance) and the credits used in one read; in a transaction on PostgreSQL it
    // locks the user's totals row until the commit.
    const { user, used } = yield* sq(this.store.userAndCreditsUsed(userId));
    const limit = this.allowance(user);
    return { limit, used, remaining: Math.max(0, limit - used) };
  }

  /** The balance (SQLite only: synchronous; the engine's operations use balanceOf). */
  balance(userId: string): Balance {
    return this.side.runSync(() => this.balanceWork(userId));
  }

  balanceOf(userId: string): Promise<Balance> {
    return this.side.run(() => this.balanceWork(userId));
  }

  /** What a new operation may spend now: the balance less what running operations have reserved (SQLite only). */
  available(userId: string): number {
    return this.room(userId, this.balance(userId));
  }

  private room(userId: string, balance: Balance): number {
    return Math.max(0, balance.remaining - (this.reserved.get(userId) ?? 0) - (this.uncommitted.get(userId) ?? 0));
  }

  /** Sets `credits` aside before the operation runs; 402 (nothing charged) when they are not there (SQLite only). */
  reserve(userId: string, credits: number, operation: string): Reservation {
    return this.take(userId, credits, operation, this.balance(userId));
  }

  /**
   * reserve() on either backend. The balance is read first; the check against the reservations and
   * the reservation itself happen after that await with nothing in between, so two calls that read
   * the same balance still see each other's reservation. (On PostgreSQL a charge may commit in
   * between: its credits then count twice until its batch ends, which can only refuse, never overdraw;
   * the settle's own check in its transaction is what keeps the balance exact.)
   */
  reserveAsync(userId: string, credits: number, operation: string): Promise<Reservation> {
    // One piece of work: on SQLite the read and the check run with nothing in between, as reserve() does.
    return this.side.run(() => this.reserveWork(userId, credits, operation));
  }

  /*
   * The work of a call is a generator method called through an arrow, never a `function*` expression: each
   * generator function made per call gives its generators a map (V8 hidden class) of their own, and maps live
   * in the old generation: ~85 bytes of old-space garbage per function so made (two per paid call), paid back
   * only by full collections (docs/benchmarks.md, "Old-space garbage per call").
   */
  private *reserveWork(userId: string, credits: number, operation: string): Work<Reservation> {
    return this.take(userId, credits, operation, yield* this.balanceWork(userId));
  }

  private take(userId: string, credits: number, operation: string, balance: Balance): Reservation {
    const available = this.room(userId, balance);
    if (credits > available) throw insufficient(credits, available, operation);
    this.reserved.set(userId, (this.reserved.get(userId) ?? 0) + credits);
    return { userId, operation, credits, released: false };
  }

  release(reservation: Reservation): void {
    if (reservation.released) return;
    reservation.released = true;
    const left = (this.reserved.get(reservation.userId) ?? 0) - reservation.credits;
    setCount(this.reserved, reservation.userId, Math.max(0, left));
  }

  /**
   * Runs the operation's own writes (`effect`, synchronous), charges, and writes the history row,
   * all in one transaction: if any part throws, none of it is kept and nothing is charged.
   * Synchronous, so SQLite only (research and code-ops call it at the end of a model's answer);
   * the engine's operations use settleAsync/settleSoon.
   */
  settle<T = undefined>(charge: Charge, effect?: () => T): Settled<T> {
    assertWholeCredits(charge.credits);
    try {
      return this.side.transactionSync(() => this.apply(charge, effect));
    } finally {
      if (charge.reservation) this.release(charge.reservation);
    }
  }

  /**
   * settle() on either backend. The reservation is released inside the transaction, once the charge
   * is written (on SQLite nothing can run before the commit, so no one sees the charge twice or not
   * at all); on PostgreSQL the credits count as uncommitted until the transaction ends.
   */
  async settleAsync<T = undefined>(charge: Charge, effect?: () => T): Promise<Settled<T>> {
    assertWholeCredits(charge.credits);
    this.assertEffectShares(effect);
    const charged: [string, number][] = [];
    try {
      return await this.side.transaction(() => this.settleWork(charge, effect, charged));
    } finally {
      for (const [userId, credits] of charged) this.uncommit(userId, credits);
      if (charge.reservation) this.release(charge.reservation);
    }
  }

  private *settleWork<T>(charge: Charge, effect: (() => T) | undefined, charged: [string, number][]): Work<Settled<T>> {
    const settled = yield* this.apply(charge, effect);
    this.written(charge, settled.charged, charged);
    return settled;
  }

  /**
   * A charge is written in the open transaction: its reservation has done its work (the next charge
   * of the same user must not count it as still set aside), and on PostgreSQL, where others can look
   * while the transaction is open, its credits count as uncommitted until it ends.
   */
  private written(charge: Charge, credits: number, charged: [string, number][]): void {
    if (credits > 0 && this.side.backend !== 'sqlite') {
      charged.push([charge.userId, credits]);
      this.uncommitted.set(charge.userId, (this.uncommitted.get(charge.userId) ?? 0) + credits);
    }
    if (charge.reservation) this.release(charge.reservation);
  }

  /**
   * An effect writes the index, which is on SQLite; it shares the charge's transaction only when the
   * account side is on that same connection.
   */
  private assertEffectShares(effect: unknown): void {
    if (effect && this.side.backend !== 'sqlite') {
      throw new LoupeError('INTERNAL', 'an operation\'s own writes (effect) cannot share a transaction with a charge on another database');
    }
  }

  /**
   * settle() with group commit: the charges of every request answered in the same turn of the
   * event loop are written in one transaction, which is committed before any of them resolves. A
   * charge that is refused (402, an unknown conversation) is refused before it writes anything and
   * the others go on; an effect runs in a savepoint of its own; a storage failure fails them all. A commit is most of the
   * cost of a paid call; sharing it is what lets a listing answer thousands of times a second.
   * On PostgreSQL the batch takes its users' totals rows in user-id order, as every node does, so
   * two nodes batching the same users never deadlock.
   */
  settleSoon<T = undefined>(charge: Charge, effect?: () => T): Promise<Settled<T>> {
    assertWholeCredits(charge.credits);
    try {
      this.assertEffectShares(effect);
    } catch (error) {
      return Promise.reject(error);
    }
    // A charge with no other one in the last millisecond commits at once: a lone request must not
    // wait for the end of the turn behind whatever background work is queued. Under load (charges
    // less than a millisecond apart) they wait for the end of the turn and share one commit.
    const now = performance.now();
    const lone = !this.groupCommit || (!this.pending.length && now - this.lastCharge > this.loneChargeGapMs);
    this.lastCharge = now;
    if (lone) return this.settleAsync(charge, effect);
    return new Promise<Settled<T>>((resolve, reject) => {
      this.pending.push({ charge, effect, resolve: resolve as (s: Settled<unknown>) => void, reject });
      if (this.pending.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    let batch = this.pending;
    this.pending = [];
    // Lock order on PostgreSQL: totals rows in user-id order (a stable sort keeps each user's calls in order).
    if (this.side.backend !== 'sqlite') batch = [...batch].sort((a, b) => (a.charge.userId < b.charge.userId ? -1 : a.charge.userId > b.charge.userId ? 1 : 0));
    const outcomes: Outcome[] = [];
    const charged: [string, number][] = [];
    try {
      await this.side.transaction(() => this.applyBatch(batch, outcomes, charged));
    } catch (error) {
      // The commit itself failed (disk full, database unavailable): nothing of the batch was kept.
      outcomes.length = 0;
      for (const _ of batch) outcomes.push({ error });
    } finally {
      for (const [userId, credits] of charged) this.uncommit(userId, credits);
    }
    batch.forEach((item, i) => {
      if (item.charge.reservation) this.release(item.charge.reservation);
      const outcome = outcomes[i];
      if (outcome.settled) item.resolve(outcome.settled);
      else item.reject(outcome.error);
    });
  }

  private uncommit(userId: string, credits: number): void {
    const left = (this.uncommitted.get(userId) ?? 0) - credits;
    setCount(this.uncommitted, userId, Math.max(0, left));
  }

  private *applyBatch(batch: PendingCharge[], outcomes: Outcome[], charged: [string, number][]): Work<void> {
    for (const item of batch) {
      const outcome = yield* this.applyInBatch(item);
      outcomes.push(outcome);
      // Settled or refused, its reservation has done its work.
      this.written(item.charge, outcome.settled?.charged ?? 0, charged);
    }
  }

  private *applyInBatch(item: PendingCharge): Work<Outcome> {
    if (item.effect) {
      // An effect may write and then fail: it runs in a savepoint of its own.
      try {
        return { settled: yield* savepoint(() => this.apply(item.charge, item.effect)) };
      } catch (error) {
        return { error };
      }
    }
    let planned: PlannedCharge;
    try {
      planned = yield* this.plan(item.charge);
    } catch (error) {
      if (isStorageFailure(error)) throw error; // the connection failed, not the charge: the batch fails
      return { error }; // refused before writing anything: the others go on
    }
    return { settled: yield* this.write(planned) }; // a storage failure here fails the whole batch
  }

  /** One charge inside the caller's transaction: effect, balance check, ledger row, history row. */
  private *apply<T>(charge: Charge, effect?: () => T): Work<Settled<T>> {
    const value = (effect ? effect() : undefined) as T;
    const planned = yield* this.plan(charge);
    return { ...(yield* this.write(planned)), value };
  }

  /** Every check of a charge, before anything is written: the room left, the history row's conversation. */
  private *plan(charge: Charge): Work<PlannedCharge> {
    const { reservation } = charge;
    const ownReserved = reservation && !reservation.released ? reservation.credits : 0;
    // On PostgreSQL, reading the balance in the transaction locks the user's totals row until the commit.
    const before = yield* this.balanceWork(charge.userId);
    const othersReserved = Math.max(0, (this.reserved.get(charge.userId) ?? 0) - ownReserved);
    const room = Math.max(0, before.remaining - othersReserved);
    let credits = charge.credits;
    if (credits > room) {
      if (!charge.capAtBalance) throw insufficient(credits, room, charge.operation);
      credits = room;
    }
    const history = charge.history ? { operation: charge.operation, ...charge.history, userId: charge.userId, credits } : null;
    if (history) yield* this.history.checkWork(history);
    return { charge, credits, before, history };
  }

  /** The writes of a planned charge; only a storage failure can make them throw. */
  private *write({ charge, credits, before, history }: PlannedCharge): Work<Settled<undefined>> {
    const ledger = credits > 0 ? { userId: charge.userId, operation: charge.operation, credits, at: new Date().toISOString() } : null;
    if (ledger) yield* sq(this.store.recordCharge(ledger.userId, ledger.operation, ledger.credits, ledger.at));
    const ref = history ? yield* this.history.writeWork(history) : null;
    const balance = { limit: before.limit, used: before.used + credits, remaining: Math.max(0, before.remaining - credits) };
    return { value: undefined, charged: credits, history: ref, balance, ledger };
  }

  private *undo(settled: Pick<Settled<unknown>, 'ledger' | 'history'>): Work<void> {
    if (settled.ledger) yield* sq(this.store.takeBackCharge(settled.ledger));
    if (settled.history) yield* sq(this.side.stores.history.delete(settled.history.historyId));
  }

  /**
   * Takes back a settled charge and its history row, in one transaction: the call did not succeed
   * after all (its answer could not be sent). The operation's own writes stay. (SQLite only.)
   */
  refund(settled: Pick<Settled<unknown>, 'ledger' | 'history'>): void {
    this.side.transactionSync(() => this.undo(settled));
  }

  /** refund() on either backend. */
  refundAsync(settled: Pick<Settled<unknown>, 'ledger' | 'history'>): Promise<void> {
    return this.side.transaction(() => this.undo(settled));
  }
}

/**
 * A failure of the database itself (unreachable, full, any driver error), as opposed to a refusal of
 * one charge (a LoupeError the checks threw). On PostgreSQL a failed statement aborts the whole
 * transaction, so the batch must fail rather than go on and commit (which would roll back silently).
 */
function isStorageFailure(error: unknown): boolean {
  return !(error instanceof LoupeError) || error.code === 'STORAGE_UNAVAILABLE' || error.code === 'STORAGE_FULL';
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
