/**
 * Numbered migrations for PostgreSQL, the same rule as SQLite's (never edit a released one; add the
 * next number). Many API nodes and workers may start at once: an advisory lock lets one migrate
 * while the others wait, then find the schema current. All pending migrations and their version rows
 * commit together, or none does.
 */
import type { PgDb } from './pg-db';

export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

/** A key of our own for pg_advisory_xact_lock ('loupe' in ASCII). */
const MIGRATION_LOCK = 0x6c6f757065;

export async function migratePg(db: PgDb, migrations: PgMigration[]): Promise<number> {
  return db.transaction(async () => {
    await db.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await db.query('CREATE TABLE IF NOT EXISTS loupe_schema (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    const done = new Set((await db.rows<{ version: number }>('SELECT version FROM loupe_schema')).map((r) => r.version));
    let applied = 0;
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue;
      await db.query(m.sql);
      await db.query('INSERT INTO loupe_schema (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied++;
    }
    return applied;
  });
}
