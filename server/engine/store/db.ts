import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log';
import { LoupeError } from '../errors';
import { MIGRATIONS, type Migration } from './migrations';
import { ACCOUNTS_MIGRATIONS } from './accounts-migrations';
import { storageError } from './storage-errors';

export type Db = Database.Database;

/** The application id stamped in every Loupe index header: a foreign SQLite file is detected by it. */
export const APPLICATION_ID = 0x4c4f5550; // "LOUP"
/** The accounts database's own id, so that the two files cannot be mistaken for each other. */
export const ACCOUNTS_APPLICATION_ID = 0x4c4f5541; // "LOUA"
/** The schema name the accounts database is attached under; its tables are reached unqualified. */
export const ACCOUNTS_SCHEMA = 'accounts';

export class DatabaseUnusableError extends Error {}

export interface OpenOptions {
  /**
   * The accounts database (users, keys, ledger, history, A2A tasks), attached to the index's
   * connection so that a charge and the operation's own writes stay one transaction. Unlike the
   * index it is never rebuilt: a file that cannot be used stops the start.
   */
  accountsFile?: string;
}

/**
 * Opens (or creates) the index: WAL, foreign keys, sqlite-vec, migrations, and the accounts database
 * attached. An index file that is not a Loupe database, or is corrupt, is moved aside with a clear
 * message and a fresh one is created: everything in it can be rebuilt from the folders. A file of a
 * newer schema (a newer Loupe wrote it) is refused, never used or moved.
 */
export function openDatabase(file: string, log: Logger, options: OpenOptions = {}): Db {
  if (file !== ':memory:') {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    assertWritable(file);
  }
  if (options.accountsFile) prepareAccounts(options.accountsFile);
  try {
    return openAndMigrate(file, options.accountsFile);
  } catch (error) {
    if (file === ':memory:' || !(error instanceof DatabaseUnusableError)) throw error;
    const aside = `${file}.broken-${Date.now()}`;
    log.warn(`The database ${file} is unusable (${error.message}); moved it to ${aside} and starting a fresh index.`);
    for (const suffix of ['', '-wal', '-shm']) {
      if (fs.existsSync(file + suffix)) fs.renameSync(file + suffix, aside + suffix);
    }
    return openAndMigrate(file, options.accountsFile);
  }
}

const latestOf = (migrations: Migration[]) => Math.max(...migrations.map((m) => m.version));

function tooNew(file: string, what: string, version: number, latest: number): LoupeError {
  return new LoupeError('STORAGE_UNAVAILABLE',
    `${file}: this ${what} has schema ${version}, written by a newer Loupe (this one knows up to ${latest}); ` +
    'it was left as it is: run the newer Loupe, or start this one with another --data-dir');
}

/**
 * Creates or migrates the accounts database on a connection of its own (its migrations then read
 * as plain SQL), and checks it. Nothing in it can be rebuilt, so a file that is not ours, is corrupt
 * or comes from a newer schema stops the start with a message and is left untouched.
 */
function prepareAccounts(file: string): void {
  assertWritable(file);
  const refuse = (reason: string) => new LoupeError('STORAGE_UNAVAILABLE',
    `${file} is unusable (${reason}). It holds the users, keys, credits and history, and is never rebuilt: ` +
    'restore it from a backup, or move it away to start with no accounts. It was left as it is');
  let db: Db;
  const clean = closedCleanly(file);
  try {
    db = new Database(file);
  } catch (error) {
    throw storageError(error, file) ?? refuse((error as Error).message);
  }
  try {
    // Before the first read: another process may hold the file (a checkpoint, a migration).
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const appId = db.pragma('application_id', { simple: true }) as number;
    const version = db.pragma('user_version', { simple: true }) as number;
    if (appId !== ACCOUNTS_APPLICATION_ID && (version !== 0 || hasTables(db))) throw refuse('not a Loupe accounts database');
    const latest = latestOf(ACCOUNTS_MIGRATIONS);
    if (version > latest) throw tooNew(file, 'accounts database', version, latest);
    const check = clean ? 'ok' : db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw refuse(`integrity check failed: ${String(check)}`);
    db.pragma('journal_mode = WAL');
    immediateTransactions(db);
    migrate(db, ACCOUNTS_MIGRATIONS, ACCOUNTS_APPLICATION_ID);
  } catch (error) {
    if (error instanceof LoupeError) throw error;
    const code = (error as { code?: string }).code ?? '';
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw refuse((error as Error).message);
    throw storageError(error, file) ?? error;
  } finally {
    db.close();
  }
}

function openAndMigrate(file: string, accountsFile?: string): Db {
  const clean = file !== ':memory:' && closedCleanly(file);
  let db: Db;
  try {
    db = new Database(file);
  } catch (error) {
    throw new DatabaseUnusableError((error as Error).message);
  }
  try {
    // Before the first read: another process may hold the file (a checkpoint, a migration).
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const appId = db.pragma('application_id', { simple: true }) as number;
    const version = db.pragma('user_version', { simple: true }) as number;
    if (appId !== APPLICATION_ID && (version !== 0 || hasTables(db))) {
      throw new DatabaseUnusableError('not a Loupe database');
    }
    const latest = latestOf(MIGRATIONS);
    if (version > latest) throw tooNew(file, 'index', version, latest);
    // quick_check reads every page (seconds on a large index); after a clean close it is skipped.
    const check = clean ? 'ok' : db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new DatabaseUnusableError(`integrity check failed: ${String(check)}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    sqliteVec.load(db);
    if (accountsFile) {
      db.prepare(`ATTACH DATABASE ? AS ${ACCOUNTS_SCHEMA}`).run(accountsFile);
      db.pragma(`${ACCOUNTS_SCHEMA}.synchronous = NORMAL`);
      withAccounts.add(db);
    }
    immediateTransactions(db);
    migrate(db, MIGRATIONS, APPLICATION_ID);
    cachePreparedStatements(db);
    if (file !== ':memory:') databaseFiles.set(db, accountsFile ? [file, accountsFile] : [file]);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof DatabaseUnusableError || error instanceof LoupeError) throw error;
    const code = (error as { code?: string }).code ?? '';
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw new DatabaseUnusableError((error as Error).message);
    throw storageError(error, file) ?? error;
  }
}

/**
 * A second connection to an index that `openDatabase` already opened and migrated in this process,
 * for a worker thread that writes (the indexer's writer): no integrity check, no migration, no
 * clean-close marker taken away; the same pragmas, sqlite-vec, transactions and statement cache.
 * WAL lets it write while the first connection reads; writes of the two wait for each other.
 */
export function openWriterConnection(file: string): Db {
  const db = new Database(file);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    sqliteVec.load(db);
    immediateTransactions(db);
    cachePreparedStatements(db);
    return db;
  } catch (error) {
    db.close();
    throw storageError(error, file) ?? error;
  }
}

/**
 * A read-only data dir must stop the start with a clear message. Left to SQLite it surfaces as
 * "unable to open database file", which would be mistaken for a corrupt file and moved aside.
 */
function assertWritable(file: string): void {
  for (const target of [path.dirname(file), file, `${file}-wal`, `${file}-shm`]) {
    if (target !== path.dirname(file) && !fs.existsSync(target)) continue;
    try {
      fs.accessSync(target, fs.constants.W_OK);
    } catch (error) {
      throw storageError(error, target) ?? error;
    }
  }
}

const BUSY_TIMEOUT_MS = 10_000;

/** The files of each open index connection (the index and the attached accounts), for closeDatabase. */
const databaseFiles = new WeakMap<Db, string[]>();

/** `<file>.clean`: written by a clean close with the file's size and mtime, taken away by the next open. */
const cleanMarker = (file: string) => `${file}.clean`;

/**
 * The size and mtime of a settled file, or null when it is not settled: a write-ahead log exists
 * while any connection has the file open (the last one to close checkpoints it and removes it).
 */
function settledFingerprint(file: string): string | null {
  try {
    if (fs.existsSync(`${file}-wal`)) return null;
    const st = fs.statSync(file);
    return `${st.size}:${Math.floor(st.mtimeMs)}`;
  } catch {
    return null;
  }
}

/**
 * True when the last process to use `file` closed it cleanly and nothing changed it since (the
 * marker's size and mtime still match). The marker is removed either way, so a process killed from
 * now on leaves none and the next start checks the file.
 */
function closedCleanly(file: string): boolean {
  const marker = cleanMarker(file);
  let recorded: string;
  try {
    recorded = fs.readFileSync(marker, 'utf8');
  } catch {
    return false;
  }
  try {
    fs.rmSync(marker, { force: true });
  } catch {
    return false; // a marker that cannot be removed could outlive a crash: do not trust it
  }
  return recorded === settledFingerprint(file);
}

/**
 * Closes an index connection; when it was the last one on its files (SQLite checkpointed and removed
 * the write-ahead log), marks each as cleanly closed so that the next start skips quick_check.
 */
export function closeDatabase(db: Db): void {
  const files = databaseFiles.get(db) ?? [];
  db.close();
  for (const file of files) {
    const fingerprint = settledFingerprint(file);
    if (!fingerprint) continue; // another connection is still open: it marks the file when it closes
    try {
      fs.writeFileSync(cleanMarker(file), fingerprint);
    } catch {
      // a read-only or full disk: the next start runs quick_check
    }
  }
}

function hasTables(db: Db): boolean {
  return (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }).n > 0;
}

export function migrate(db: Db, migrations: Migration[] = MIGRATIONS, applicationId = APPLICATION_ID): void {
  const version = () => db.pragma('user_version', { simple: true }) as number;
  // An up-to-date file is only read: no write lock, so a start never waits behind another
  // process's writes (the language server indexing while a CLI starts on the same data dir).
  if (version() >= latestOf(migrations)) return;
  for (const migration of migrations) {
    // A step that must commit on its own first (copying rows into another file); it is idempotent,
    // so a process stopped between it and the migration proper simply runs it again.
    if (migration.before && version() < migration.version) db.transaction(() => migration.before!(db)).immediate();
    // The version is read inside the write transaction: two processes opening a new database at
    // once must not both apply the same migration.
    db.transaction(() => {
      if (version() >= migration.version) return;
      db.exec(migration.sql);
      db.pragma(`application_id = ${applicationId}`);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}

/**
 * better-sqlite3 begins transactions DEFERRED. One that reads before it writes then fails at once
 * with SQLITE_BUSY or SQLITE_BUSY_SNAPSHOT when another process (the editor's language server and a
 * CLI on one data dir) wrote in between: busy_timeout cannot help an upgrade from a read lock.
 * Every transaction in the store writes, so each takes the write lock at BEGIN IMMEDIATE, where
 * busy_timeout does wait. Nested calls still become savepoints.
 */
function immediateTransactions(db: Db): void {
  const deferred = db.transaction.bind(db);
  db.transaction = ((fn: (...args: never[]) => unknown) => {
    const tx = deferred(fn);
    // The accounts' write lock first, the index's only if the transaction writes there (see WriteTurns).
    let accountsFirst: ReturnType<typeof deferred> | undefined;
    const besideWriter = (...args: never[]) => {
      accountsFirst ??= deferred((...a: never[]) => {
        db.prepare(LOCK_ACCOUNTS).run();
        return fn(...a);
      });
      return accountsFirst.deferred(...args);
    };
    // A nested call is a savepoint inside a turn already taken.
    const inTurn = (variant: (...args: never[]) => unknown) => (...args: never[]) => {
      const turns = writeTurns.get(db);
      if (!turns || db.inTransaction) return variant(...args);
      return turns.take((writerBusy) => (writerBusy && withAccounts.has(db) ? besideWriter(...args) : variant(...args)));
    };
    const immediate = inTurn(tx.immediate);
    return Object.assign(immediate, { default: inTurn(tx.default), deferred: inTurn(tx.deferred), immediate, exclusive: inTurn(tx.exclusive) });
  }) as Db['transaction'];
}

/**
 * Turns at writing between the index's main connection (the thread that answers requests) and the
 * index writer's connection (a worker thread), over two shared cells: [0] the main connection wants
 * or holds the write lock, [1] the writer is in a transaction. SQLite alone would make the main thread
 * wait in its busy handler (sleeps of 1, 2, 5, 10… ms, no fairness) behind a writer that is almost
 * always writing during a cold index, since BEGIN IMMEDIATE locks every attached file: a charge (all
 * in accounts.db) would wait for the index's writer. With turns, the writer starts no transaction while
 * the main connection has one; when the writer is mid-transaction, the main connection's transaction
 * begins DEFERRED and takes the accounts' write lock with its first statement, so it waits for the
 * index's lock only if it writes the index (rare on this connection while a writer works: a vector,
 * a repository's state). Only top-level transactions take turns.
 */
export class WriteTurns {
  private readonly cells: Int32Array;

  constructor(readonly side: 'main' | 'writer', readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(8)) {
    this.cells = new Int32Array(buffer);
  }

  /** Runs a top-level transaction in a turn; `writerBusy` (main side) says the writer is mid-transaction. */
  take<T>(work: (writerBusy: boolean) => T): T {
    return this.side === 'main' ? this.asMain(work) : this.asWriter(() => work(false));
  }

  /** The writer thread is gone (terminated, crashed): it holds nothing any more. */
  writerGone(): void {
    Atomics.store(this.cells, 1, 0);
    Atomics.notify(this.cells, 1);
  }

  private asMain<T>(work: (writerBusy: boolean) => T): T {
    const c = this.cells;
    Atomics.add(c, 0, 1);
    try {
      // Once this is counted, the writer starts no transaction; one may be in progress. Its slice is
      // short, yet a thread of a busy machine can be off its core for tens of milliseconds: rather
      // than wait, the transaction then locks only the accounts (all a charge writes), and the
      // index only if it writes there.
      return work(Atomics.load(c, 1) === 1);
    } finally {
      if (Atomics.sub(c, 0, 1) === 1) Atomics.notify(c, 0);
    }
  }

  private asWriter<T>(work: () => T): T {
    const c = this.cells;
    for (;;) {
      Atomics.store(c, 1, 1);
      const waiting = Atomics.load(c, 0);
      if (waiting === 0) break;
      Atomics.store(c, 1, 0);
      Atomics.notify(c, 1);
      Atomics.wait(c, 0, waiting, 50);
    }
    try {
      return work();
    } finally {
      Atomics.store(c, 1, 0);
      Atomics.notify(c, 1);
    }
  }
}

const writeTurns = new WeakMap<Db, WriteTurns>();
/** Index connections with the accounts database attached. */
const withAccounts = new WeakSet<Db>();
/** A write that changes nothing, to take the accounts database's write lock (and no other file's). */
const LOCK_ACCOUNTS = `DELETE FROM ${ACCOUNTS_SCHEMA}.otp_codes WHERE 0`;

/** From now on the connection's top-level transactions take turns with the other side's. */
export function shareWriteTurns(db: Db, turns: WriteTurns): void {
  writeTurns.set(db, turns);
}

/**
 * `LIMIT n OFFSET m` with the values written into the SQL. A bound `LIMIT ?` lets the planner take
 * the limit into account, so SQLite recompiles the statement at every execution (about 20 µs, the
 * largest part of a listing); the values must be whole numbers, so inlining them is safe.
 */
export function pageClause(limit: number, offset: number): string {
  if (!Number.isSafeInteger(limit) || !Number.isSafeInteger(offset) || limit < 0 || offset < 0) {
    throw new RangeError(`a page needs whole numbers >= 0, got limit ${limit} and offset ${offset}`);
  }
  return `LIMIT ${limit} OFFSET ${offset}`;
}

export const schemaVersion = (db: Db): number => db.pragma('user_version', { simple: true }) as number;

const STATEMENT_CACHE_LIMIT = 1000;

/**
 * Stores call `db.prepare(sql)` where they need a statement. Compiling SQL costs more than running
 * a simple query, and on the request path it dominated (GET /v2/repos spent a third of its time in
 * prepare), so each distinct SQL text is compiled once per connection and reused. Statements are not
 * re-entrant, which is safe here: every store method runs a statement to completion before returning.
 */
const statementCaches = new WeakMap<Db, Map<string, Database.Statement>>();

/** Drops cached statements whose SQL matches (for example after a table they use was dropped). */
export function forgetStatements(db: Db, matches: (sql: string) => boolean): void {
  const cache = statementCaches.get(db);
  if (cache) for (const sql of [...cache.keys()]) if (matches(sql)) cache.delete(sql);
}

function cachePreparedStatements(db: Db): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  statementCaches.set(db, cache);
  (db as { prepare: (sql: string) => Database.Statement }).prepare = (sql: string) => {
    let statement = cache.get(sql);
    if (!statement) {
      if (cache.size >= STATEMENT_CACHE_LIMIT) cache.clear();
      statement = prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  };
}
