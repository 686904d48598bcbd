/**
 * The team server's connection to PostgreSQL: one `pg` pool, and transactions that the stores join
 * without passing a client around. Inside `transaction(work)`, every `query()` made by `work` (in
 * any store, through any await) runs on that transaction's client, found through
 * AsyncLocalStorage; a nested `transaction` becomes a savepoint; a throw rolls back everything the
 * transaction wrote, as `Storage.transaction` promises on SQLite.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { LoupeError } from '../../errors';
import { copyFrom, pgText } from './copy';

export type Row = Record<string, unknown>;

/**
 * Rows come back in the shapes the SQLite stores return, since the engine reads both: a
 * `timestamptz` as the ISO text the engine wrote (`2026-01-01T10:00:00.000Z`, milliseconds, UTC),
 * a `bigint` (counts, sums, credits) as a number. Per pool, not pg's global parsers, so another
 * library in the process (graphile-worker) keeps its own. Sessions run in UTC, so a time without
 * an offset means UTC, as on SQLite.
 */
const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text');
const ROW_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.TIMESTAMPTZ) return (text: string) => (parseTimestamptz(text) as Date).toISOString();
    if (oid === pg.types.builtins.INT8) return (text: string) => Number(text);
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

interface Tx { client: pg.PoolClient; depth: number }

export interface PgDbOptions {
  /** postgres://… */
  url: string;
  /** Pool size per process (default 10). */
  max?: number;
  /**
   * A transaction left idle this long (ms) is ended by the server (`idle_in_transaction_session_timeout`),
   * releasing its row locks: a node that hangs mid-transaction cannot hold a user's balance for ever.
   * Default 60 000; 0 turns it off.
   */
  idleInTransactionMs?: number;
}

export class PgDb {
  readonly pool: pg.Pool;
  private readonly tx = new AsyncLocalStorage<Tx>();
  private savepoints = 0;

  constructor(options: PgDbOptions) {
    const idle = Math.max(0, Math.floor(options.idleInTransactionMs ?? 60_000));
    this.pool = new pg.Pool({
      connectionString: options.url, max: options.max ?? 10, types: ROW_TYPES, keepAlive: true,
      options: `-c TimeZone=UTC -c idle_in_transaction_session_timeout=${idle}`,
    });
    // An idle client that loses its server (a restart) must not crash the process; the next query reconnects.
    this.pool.on('error', () => undefined);
  }

  /** Whether the caller runs inside `transaction()`. */
  get inTransaction(): boolean {
    return this.tx.getStore() !== undefined;
  }

  /** Runs one statement on the current transaction's client, or on any pooled client. */
  async query<R extends Row = Row>(text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    const tx = this.tx.getStore();
    // PostgreSQL's text cannot hold a NUL (a request's `search=a%00b` was a 500): as COPY stores it (copy.ts), U+FFFD.
    if (values.some(hasNul)) values = values.map((v) => (typeof v === 'string' ? pgText(v) : Array.isArray(v) ? v.map((e) => (typeof e === 'string' ? pgText(e) : e)) : v));
    try {
      return tx ? await tx.client.query<R>(text, values) : await this.pool.query<R>(text, values);
    } catch (error) {
      throw pgError(error) ?? error;
    }
  }

  /**
   * `COPY … FROM STDIN` (pg/copy.ts) with `data` in COPY's text format, on the current transaction's
   * client, or on a pooled one; answers the rows copied.
   */
  async copyFrom(text: string, data: string): Promise<number> {
    const tx = this.tx.getStore();
    try {
      if (tx) return await copyFrom(tx.client, text, data);
      const client = await this.pool.connect();
      let broken = false;
      try {
        return await copyFrom(client, text, data);
      } catch (error) {
        // The server's own refusal (a DatabaseError, with a severity) leaves the session usable; anything else may not.
        broken = !(error as { severity?: unknown }).severity;
        throw error;
      } finally {
        client.release(broken);
      }
    } catch (error) {
      throw pgError(error) ?? error;
    }
  }

  /** The rows of one statement, typed as the caller says (a row interface of the store it serves). */
  async rows<R = Row>(text: string, values: unknown[] = []): Promise<R[]> {
    return (await this.query(text, values)).rows as R[];
  }

  async one<R = Row>(text: string, values: unknown[] = []): Promise<R | undefined> {
    return (await this.query(text, values)).rows[0] as R | undefined;
  }

  /**
   * Runs `work` in one transaction (READ COMMITTED unless `isolation` says otherwise); a nested call
   * is a savepoint of the outer one. A throw rolls back and rethrows.
   */
  async transaction<T>(work: () => Promise<T>, isolation?: 'serializable' | 'repeatable read'): Promise<T> {
    const outer = this.tx.getStore();
    if (outer) {
      const name = `sp${++this.savepoints}`;
      await outer.client.query(`SAVEPOINT ${name}`);
      try {
        const result = await this.tx.run({ client: outer.client, depth: outer.depth + 1 }, work);
        await outer.client.query(`RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (error) {
        await outer.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
        throw error;
      }
    }
    const client = await this.pool.connect().catch((error: unknown) => { throw pgError(error) ?? error; });
    let broken = false;
    // A checked-out client has no error listener of the pool's: the server ending the session while
    // `work` awaits something else (a restart, the idle timeout) would otherwise be an uncaught
    // 'error' event, and the process would exit. The next query of `work` fails instead.
    let lost: unknown = null;
    let committing = false;
    const onLost = (error: unknown) => { lost ??= error; };
    client.on('error', onLost);
    try {
      await client.query(isolation ? `BEGIN ISOLATION LEVEL ${isolation.toUpperCase()}` : 'BEGIN');
      const result = await this.tx.run({ client, depth: 0 }, work);
      committing = true;
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true; // the connection is gone: do not hand it back to the pool
      }
      if (lost) throw lostError(lost, committing);
      throw pgError(error) ?? error;
    } finally {
      const dead = broken || lost !== null;
      // A dead client keeps the listener (it may still report its socket closing); a healthy one goes back without it.
      if (!dead) client.off('error', onLost);
      client.release(dead);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** The session of a transaction ended under it: before COMMIT, nothing of it was committed. */
function lostError(error: unknown, committing: boolean): LoupeError {
  const code = String((error as { code?: unknown })?.code ?? 'connection lost');
  if (committing) return new LoupeError('STORAGE_UNAVAILABLE', `the connection to the database server was lost while a transaction committed (${code}); whether it was kept is unknown.`);
  if (code === '25P03') return new LoupeError('INTERNAL', 'a database transaction stayed idle past idle_in_transaction_session_timeout and was rolled back; nothing of it was kept.');
  return pgError(error) ?? new LoupeError('STORAGE_UNAVAILABLE', `the connection to the database server was lost during a transaction (${code}); nothing of it was committed.`);
}

/**
 * PostgreSQL's errors that mean something to a user, as coded errors (the SQLite side is
 * storage-errors.ts): a server that cannot be reached or is shutting down, a full disk.
 */
export function pgError(error: unknown): LoupeError | null {
  if (error instanceof LoupeError) return null;
  const code = (error as { code?: unknown })?.code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || code === '57P01' || code === '57P03' || code === '08006' || code === '08001') {
    return new LoupeError('STORAGE_UNAVAILABLE', `the database server cannot be reached (${String(code)}); check that PostgreSQL is running and the --database URL. Nothing was half-written.`);
  }
  if (code === '53100') return new LoupeError('STORAGE_FULL', 'the database server\'s disk is full; free some space and retry. Nothing was half-written.');
  return null;
}

const hasNul = (v: unknown): boolean => (typeof v === 'string' ? v.includes('\0') : Array.isArray(v) && v.some((e) => typeof e === 'string' && e.includes('\0')));
