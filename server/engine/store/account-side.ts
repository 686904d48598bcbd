/**
 * The account side's storage seam: the stores the accounts services use (users, keys, ledger,
 * history, codes and sessions, A2A tasks) and how their work becomes one transaction, on either
 * backend — SQLite (synchronous, better-sqlite3) or PostgreSQL (asynchronous, a pool).
 *
 * The services write each piece of work once, as a generator that yields every store call's
 * answer (`const user = yield* sq(s.accounts.user(id))`). A driver runs it:
 *
 * - **SQLite**: synchronously, inside one better-sqlite3 transaction (BEGIN IMMEDIATE at the top,
 *   a savepoint when nested). Every SQLite store answers a value, so the work never leaves the
 *   JavaScript stack between BEGIN and COMMIT: no other request can run, let alone write on the
 *   connection, while the transaction is open. A store that answered a promise would break that;
 *   the driver refuses it (INTERNAL) instead of awaiting it. Speed is that of the synchronous code.
 * - **PostgreSQL**: asynchronously, each store call awaited, inside `AsyncStorage.transaction`
 *   (PgDb: the stores join the transaction's client through AsyncLocalStorage; nested work is a
 *   savepoint). Other requests run while it waits, each on its own pooled connection.
 *
 * Outside a transaction the same work runs statement by statement (`run`). `runSync` and
 * `transactionSync` are for the in-process callers that cannot await yet (research's settle, tests);
 * on PostgreSQL they throw.
 */
import { LoupeError } from '../errors';
import type { Db } from './db';
import type { AsyncStorage, Storage } from './storage';
import type { AccountsStore } from './accounts-store';
import type { HistoryStore } from './history-store';
import type { AuthStore } from './auth-store';
import type { A2aTasksStore } from './a2a-tasks-store';

/** A store as the account side's work sees it: each method answers a value (SQLite) or a promise (PostgreSQL). */
export type Either<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Awaited<R> | Promise<Awaited<R>> : T[K];
};

export interface AccountStores {
  accounts: Either<AccountsStore>;
  history: Either<HistoryStore>;
  auth: Either<AuthStore>;
  a2aTasks: Either<A2aTasksStore>;
}

export interface SyncAccountStores {
  accounts: AccountsStore;
  history: HistoryStore;
  auth: AuthStore;
  a2aTasks: A2aTasksStore;
}

/** A piece of account-side work: a generator of store calls (see `sq`) that returns `T`. */
export type Work<T> = Generator<unknown, T, unknown>;

/** One store call inside work: `const row = yield* sq(store.method(...))` gives the row on both backends. */
export function* sq<R>(value: R | Promise<R>): Generator<unknown, R, unknown> {
  return (yield value) as R;
}

/** Nested work: a savepoint of the caller's transaction (its throw undoes only its own writes). */
class Savepoint {
  constructor(readonly work: () => Work<unknown>) {}
}

/** Runs `work` as a savepoint inside the current transaction: `const r = yield* savepoint(() => this.x())`. */
export function* savepoint<T>(work: () => Work<T>): Generator<unknown, T, unknown> {
  return (yield new Savepoint(work)) as T;
}

export interface AccountSide {
  readonly backend: 'sqlite' | 'postgres';
  readonly stores: AccountStores;
  /** SQLite only: the same stores, typed synchronous (for in-process callers that cannot await: tests, benchmarks); PostgreSQL throws. */
  readonly syncStores: SyncAccountStores;
  /** Whether the caller runs inside this side's transaction. */
  readonly inTransaction: boolean;
  /** Runs work statement by statement (no transaction of its own). */
  run<T>(work: () => Work<T>): Promise<T>;
  /** Runs work as one transaction (a savepoint when already in one); a throw keeps nothing. */
  transaction<T>(work: () => Work<T>): Promise<T>;
  /** SQLite only: `run`, synchronously. */
  runSync<T>(work: () => Work<T>): T;
  /** SQLite only: `transaction`, synchronously. */
  transactionSync<T>(work: () => Work<T>): T;
  /** A write refused by a unique constraint (another node wrote the same row first). */
  isConflict(error: unknown): boolean;
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

/** Drives work to its end without leaving the stack; nested work runs through `nested`. */
function driveSync<T>(work: Work<T>, nested: (work: () => Work<unknown>) => unknown): T {
  let step = work.next();
  while (!step.done) {
    const value = step.value;
    if (value instanceof Savepoint) {
      let result: unknown;
      try {
        result = nested(value.work);
      } catch (error) {
        step = work.throw(error);
        continue;
      }
      step = work.next(result);
    } else if (isThenable(value)) {
      // Never awaited: awaiting inside a SQLite transaction would let another request's writes join it.
      void Promise.resolve(value).catch(() => undefined);
      step = work.throw(new LoupeError('INTERNAL', 'a store answered a promise inside synchronous account work (SQLite)'));
    } else {
      step = work.next(value);
    }
  }
  return step.value;
}

/** Drives work awaiting each store call; nested work runs through `nested`. */
async function driveAsync<T>(work: Work<T>, nested: (work: () => Work<unknown>) => Promise<unknown>): Promise<T> {
  let step = work.next();
  while (!step.done) {
    const value = step.value;
    let result: unknown;
    try {
      result = value instanceof Savepoint ? await nested(value.work) : await value;
    } catch (error) {
      step = work.throw(error);
      continue;
    }
    step = work.next(result);
  }
  return step.value;
}

/** The account side on the engine's SQLite connection (accounts.db attached to loupe.db). */
export function sqliteAccountSide(storage: Storage & { readonly db: Db }): AccountSide {
  const db = storage.db;
  // Made once: better-sqlite3 builds several closures per transaction function. db.ts makes every
  // top-level transaction BEGIN IMMEDIATE (in its turn beside the index writer); nested calls are savepoints.
  const inTx = db.transaction((work: () => Work<unknown>) => driveSync(work(), nestedSync));
  function nestedSync(work: () => Work<unknown>): unknown {
    return inTx(work);
  }
  const runSync = <T>(work: () => Work<T>): T => driveSync(work(), nestedSync);
  const transactionSync = <T>(work: () => Work<T>): T => inTx(work) as T;
  const settle = <T>(f: () => T): Promise<T> => {
    try {
      return Promise.resolve(f());
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return {
    backend: 'sqlite',
    stores: { accounts: storage.accounts, history: storage.history, auth: storage.auth, a2aTasks: storage.a2aTasks },
    syncStores: { accounts: storage.accounts, history: storage.history, auth: storage.auth, a2aTasks: storage.a2aTasks },
    get inTransaction() { return db.inTransaction; },
    run: (work) => settle(() => runSync(work)),
    transaction: (work) => settle(() => transactionSync(work)),
    runSync,
    transactionSync,
    isConflict: (error) => String((error as { code?: unknown })?.code ?? '').startsWith('SQLITE_CONSTRAINT_UNIQUE'),
  };
}

/**
 * The account side on an `AsyncStorage` (the team server's PostgreSQL: `openPgStorage`). Only its
 * account stores are used; the index may stay elsewhere (SQLite), so an operation's own index
 * writes cannot share the charge's transaction here (see Credits: `effect`).
 */
export function asyncAccountSide(storage: AsyncStorage & { readonly db?: { readonly inTransaction: boolean } }): AccountSide {
  const nested = (work: () => Work<unknown>): Promise<unknown> => storage.transaction(() => driveAsync(work(), nested));
  const refuse = (): never => {
    throw new LoupeError('INTERNAL', 'this caller needs the account side synchronously, which only SQLite gives; it must await (PostgreSQL)');
  };
  return {
    backend: 'postgres',
    stores: { accounts: storage.accounts, history: storage.history, auth: storage.auth, a2aTasks: storage.a2aTasks },
    get syncStores(): SyncAccountStores { return refuse(); },
    get inTransaction() { return storage.db?.inTransaction ?? false; },
    run: (work) => driveAsync(work(), nested),
    transaction: <T>(work: () => Work<T>) => nested(work) as Promise<T>,
    runSync: refuse,
    transactionSync: refuse,
    isConflict: (error) => (error as { code?: unknown })?.code === '23505',
  };
}
