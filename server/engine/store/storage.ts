/**
 * The engine's storage, one interface per table group: `ReposStore`, `FilesStore`, … Each is the
 * public shape of its SQLite class in this folder (`SqliteReposStore`, …, surface.ts), so the two
 * cannot drift; a second backend (a team server on PostgreSQL) implements them and passes the same
 * conformance suite
 * (test/storage/storage-conformance.ts, run on SQLite by test/storage/sqlite.test.ts).
 *
 * The methods are synchronous: inside the engine, SQLite answers in microseconds and writes share
 * transactions. The engine's boundary (its operations) is asynchronous, so a backend that must
 * await can change these signatures to promises without changing any transport; the conformance
 * suite already awaits every call.
 */
import path from 'node:path';
import type { Logger } from '../log';
import { closeDatabase, openDatabase, type Db } from './db';
import { Checkpointer } from './checkpointer';
import type { DatabaseHealth } from './health';
import { SqliteReposStore, type ReposStore } from './repos-store';
import { SqliteFilesStore, type FilesStore } from './files-store';
import { SqliteA2aTasksStore, type A2aTasksStore } from './a2a-tasks-store';
import { SqliteAccountsStore, type AccountsStore } from './accounts-store';
import { SqliteHistoryStore, type HistoryStore } from './history-store';
import { SqliteAuthStore, type AuthStore } from './auth-store';
import { SqliteAnalysisStore, type AnalysisStore } from './analysis-store';
import { SqliteResearchStore, type ResearchStore } from './research-store';
import { SqliteSearchStore, type SearchStore } from './search-store';
import { SqliteVectorsStore, type VectorsStore } from './vectors-store';
import type { Async } from './surface';
import { asyncStore } from './async-store';

export interface Storage {
  repos: ReposStore;
  files: FilesStore;
  a2aTasks: A2aTasksStore;
  accounts: AccountsStore;
  history: HistoryStore;
  auth: AuthStore;
  analysis: AnalysisStore;
  research: ResearchStore;
  search: SearchStore;
  vectors: VectorsStore;
  /** Runs `work` in one write transaction; a nested call becomes a savepoint; a throw keeps nothing. */
  transaction<T>(work: () => T): T;
  close(): void;
}

/**
 * The same stores for a backend that must await (the team server on PostgreSQL, store/pg/): every
 * method answers a promise, and a transaction's work is async (the stores it calls join it).
 * `async: true` tells the two bundles apart (the conformance suite runs one check on both).
 */
export type AsyncStorage = { [K in Exclude<keyof Storage, 'transaction' | 'close'>]: Async<Storage[K]> } & {
  readonly async: true;
  /** Runs `work` in one transaction; a nested call becomes a savepoint; a throw keeps nothing. */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** Readiness: does the database answer, is its schema current (the health route; store/health.ts). */
  health?(): Promise<DatabaseHealth>;
};

/**
 * The index side as the services that answer requests read it (repositories, files, search,
 * analysis, research, vectors): every call awaited, so the same service reads SQLite's stores
 * (`indexReads(storage)`) and the team server's PostgreSQL ones (`openPgIndexStores`) alike. The
 * indexer and the derived indexes (vectors, docs) write through the synchronous stores and the
 * index writer (indexer/index-writer.ts), not through these.
 */
export interface IndexReads {
  repos: Async<ReposStore>;
  files: Async<FilesStore>;
  search: Async<SearchStore>;
  analysis: Async<AnalysisStore>;
  research: Async<ResearchStore>;
  vectors: Async<VectorsStore>;
}

/** SQLite's index stores behind their async surface (IndexReads). */
export function indexReads(storage: Storage): IndexReads {
  return {
    repos: asyncStore(storage.repos),
    files: asyncStore(storage.files),
    search: asyncStore(storage.search),
    analysis: asyncStore(storage.analysis),
    research: asyncStore(storage.research),
    vectors: asyncStore(storage.vectors),
  };
}

/** Every store on one SQLite connection (WAL, sqlite-vec, migrated) in `DATA_DIR/loupe.db`. */
export interface SqliteStorage extends Storage {
  /** The connection, for the services that still run their own transactions on it (accounts, credits, history). */
  readonly db: Db;
  /** Checkpoints the connection's write-ahead logs off the thread that answers (tests). */
  readonly checkpointer: Checkpointer;
}

export function openSqliteStorage(dataDir: string, log: Logger): SqliteStorage {
  // The index (rebuildable) and the accounts (never rebuilt), one connection so that a charge and
  // an operation's writes commit together.
  const files = [path.join(dataDir, 'loupe.db'), path.join(dataDir, 'accounts.db')];
  const db = openDatabase(files[0], log, { accountsFile: files[1] });
  // Checkpoints run in a thread of their own, never on the one that answers requests (checkpointer.ts).
  db.pragma('wal_autocheckpoint = 0');
  const checkpointer = new Checkpointer(files, (message) => {
    log.warn(`checkpoints in a worker thread failed (${message}); the main connection checkpoints its logs again`);
    db.pragma('wal_autocheckpoint = 1000');
  });
  return {
    db,
    checkpointer,
    repos: new SqliteReposStore(db),
    files: new SqliteFilesStore(db),
    a2aTasks: new SqliteA2aTasksStore(db),
    accounts: new SqliteAccountsStore(db),
    history: new SqliteHistoryStore(db),
    auth: new SqliteAuthStore(db),
    analysis: new SqliteAnalysisStore(db),
    research: new SqliteResearchStore(db),
    search: new SqliteSearchStore(db),
    vectors: new SqliteVectorsStore(db),
    transaction: <T>(work: () => T): T => db.transaction(work)(),
    close: () => {
      checkpointer.close();
      closeDatabase(db);
    },
  };
}
