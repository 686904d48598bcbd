/**
 * The team server's storage: every store on one PostgreSQL database, migrated, as one bundle of the
 * `AsyncStorage` shape (store/storage.ts) — what `openSqliteStorage` is for the embedded default.
 * Many API nodes and workers open it on the same database; each process has its own pool.
 *
 * Account side (this folder: accounts-, auth-, history-, a2a-tasks-store.ts; migrations 1–99) and
 * index side (repos, files, search, analysis, research, vectors; migrations 100 and up) share one
 * database, so a charge and an operation's writes commit together, as on SQLite.
 */
import type { Logger } from '../../log';
import type { AsyncStorage } from '../storage';
import { migratePg } from './migrate';
import { PG_MIGRATIONS } from './migrations';
import { PgDb } from './pg-db';
import { PgAccountsStore } from './accounts-store';
import { PgAuthStore } from './auth-store';
import { PgHistoryStore } from './history-store';
import { PgA2aTasksStore } from './a2a-tasks-store';
import { openPgIndexStores } from './index-stores';
import { PgHealthProbe } from './health';

/**
 * Every store on PostgreSQL. The connection is exposed for the services that need PostgreSQL itself
 * (LISTEN/NOTIFY, the job queue) and for tests.
 */
export type PgStorage = AsyncStorage & { readonly db: PgDb };

export interface PgStorageOptions {
  /** Connections in this process's pool (default 10). */
  max?: number;
  /** How long a transaction may stay idle before the server ends it and frees its locks (ms; default 60 000). */
  idleInTransactionMs?: number;
}

/** Connects to `url` (postgres://…), applies pending migrations (once, whichever node is first) and opens every store. */
export async function openPgStorage(url: string, log: Logger, options: PgStorageOptions = {}): Promise<PgStorage> {
  const db = new PgDb({ url, max: options.max, idleInTransactionMs: options.idleInTransactionMs });
  try {
    const applied = await migratePg(db, PG_MIGRATIONS);
    if (applied) log.info(`PostgreSQL: applied ${applied} migration${applied === 1 ? '' : 's'}`);
  } catch (error) {
    await db.close();
    throw error;
  }
  const health = new PgHealthProbe(url);
  return {
    async: true,
    db,
    accounts: new PgAccountsStore(db),
    auth: new PgAuthStore(db),
    history: new PgHistoryStore(db),
    a2aTasks: new PgA2aTasksStore(db),
    ...openPgIndexStores(db),
    transaction: <T>(work: () => Promise<T>): Promise<T> => db.transaction(work),
    health: () => health.check(),
    close: async () => { await health.close(); await db.close(); },
  };
}
