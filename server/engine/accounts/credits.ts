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

export interface Settled<T> {
  value: T;
  charged: number;
  history: HistoryRef | null;
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

  constructor(
    private readonly db: Db,
    private readonly store: AccountsStore,
    private readonly history: History,
    private readonly allowance: (userId: string) => number,
  ) {}

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
    if (!Number.isInteger(charge.credits) || charge.credits < 0) {
      throw new LoupeError('INTERNAL', `a charge must be a whole number of credits >= 0, got ${charge.credits}`);
    }
    const { reservation } = charge;
    const run = this.db.transaction((): Settled<T> => {
      const value = (effect ? effect() : undefined) as T;
      const ownReserved = reservation && !reservation.released ? reservation.credits : 0;
      const othersReserved = Math.max(0, (this.reserved.get(charge.userId) ?? 0) - ownReserved);
      const room = Math.max(0, this.balance(charge.userId).remaining - othersReserved);
      let credits = charge.credits;
      if (credits > room) {
        if (!charge.capAtBalance) throw insufficient(credits, room, charge.operation);
        credits = room;
      }
      if (credits > 0) this.store.recordCharge(charge.userId, charge.operation, credits);
      const history = charge.history
        ? this.history.record({ operation: charge.operation, ...charge.history, userId: charge.userId, credits })
        : null;
      return { value, charged: credits, history };
    });
    try {
      return this.db.inTransaction ? run() : run.immediate();
    } finally {
      if (reservation) this.release(reservation);
    }
  }
}

export function insufficient(required: number, available: number, operation: string): LoupeError {
  return new LoupeError('INSUFFICIENT_CREDITS',
    `${operation} costs ${required} credits and ${available} are available; nothing was charged`,
    { required, available });
}
