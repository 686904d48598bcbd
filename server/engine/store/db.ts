import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log';
import { MIGRATIONS } from './migrations';

export type Db = Database.Database;

/** The application id stamped in every Loupe database header: a foreign SQLite file is detected by it. */
export const APPLICATION_ID = 0x4c4f5550; // "LOUP"

export class DatabaseUnusableError extends Error {}

/**
 * Opens (or creates) the database: WAL, foreign keys, sqlite-vec, migrations. A file that is not a
 * Loupe database, or is corrupt, is moved aside with a clear message and a fresh one is created.
 */
export function openDatabase(file: string, log: Logger): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    return openAndMigrate(file);
  } catch (error) {
    if (file === ':memory:' || !(error instanceof DatabaseUnusableError)) throw error;
    const aside = `${file}.broken-${Date.now()}`;
    log.warn(`The database ${file} is unusable (${error.message}); moved it to ${aside} and starting a fresh index.`);
    for (const suffix of ['', '-wal', '-shm']) {
      if (fs.existsSync(file + suffix)) fs.renameSync(file + suffix, aside + suffix);
    }
    return openAndMigrate(file);
  }
}

function openAndMigrate(file: string): Db {
  let db: Db;
  try {
    db = new Database(file);
  } catch (error) {
    throw new DatabaseUnusableError((error as Error).message);
  }
  try {
    const appId = db.pragma('application_id', { simple: true }) as number;
    const version = db.pragma('user_version', { simple: true }) as number;
    if (appId !== APPLICATION_ID && (version !== 0 || hasTables(db))) {
      throw new DatabaseUnusableError('not a Loupe database');
    }
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new DatabaseUnusableError(`integrity check failed: ${String(check)}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 10000');
    sqliteVec.load(db);
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof DatabaseUnusableError) throw error;
    const code = (error as { code?: string }).code ?? '';
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw new DatabaseUnusableError((error as Error).message);
    throw error;
  }
}

function hasTables(db: Db): boolean {
  return (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }).n > 0;
}

export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
}

export const schemaVersion = (db: Db): number => db.pragma('user_version', { simple: true }) as number;
