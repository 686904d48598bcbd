/**
 * Readiness probes of the databases an engine serves from (the health route's readiness check):
 * does the database answer, and does its schema have every migration this build knows. The answers
 * are words for an unauthenticated caller (a load balancer): no file path, host, port or credential;
 * the underlying error goes to the log.
 */
import type { Db } from './db';
import { ACCOUNTS_SCHEMA } from './db';
import { MIGRATIONS } from './migrations';
import { ACCOUNTS_MIGRATIONS } from './accounts-migrations';

export interface DatabaseHealth {
  /** Which database: `sqlite` (the data dir's index and accounts) or `postgresql` (the team server's). */
  name: 'sqlite' | 'postgresql';
  /** `ok`: it answered; `timeout`: not within the probe's time; `unreachable`: the query or the connection failed. */
  reachable: 'ok' | 'timeout' | 'unreachable';
  /**
   * `current`: every migration this build knows is applied; `behind`: some are missing (this build
   * would read tables that are not there); `ahead`: a newer release applied more (served: migrations
   * only add); `unknown`: not reachable.
   */
  schema: 'current' | 'behind' | 'ahead' | 'unknown';
  latencyMs: number;
  /** The underlying error, for the log only (never sent to the caller). */
  error?: string;
}

const latestOf = (versions: number[]) => Math.max(...versions);

/** Compares the versions a database has applied with those this build knows. */
export function schemaState(applied: number[], known: number[]): DatabaseHealth['schema'] {
  const have = new Set(applied);
  if (known.some((v) => !have.has(v))) return 'behind';
  return applied.some((v) => v > latestOf(known)) ? 'ahead' : 'current';
}

/**
 * The data dir's SQLite: one read of each file's user_version (SQLite's migrations are numbered
 * 1..N, so the version is the count). Synchronous and microseconds long.
 */
export function sqliteHealth(db: Db): DatabaseHealth {
  const started = performance.now();
  try {
    const index = db.pragma('user_version', { simple: true }) as number;
    const accounts = db.pragma(`${ACCOUNTS_SCHEMA}.user_version`, { simple: true }) as number;
    const state = (version: number, known: number) => (version < known ? 'behind' : version > known ? 'ahead' : 'current');
    const states = [state(index, latestOf(MIGRATIONS.map((m) => m.version))), state(accounts, latestOf(ACCOUNTS_MIGRATIONS.map((m) => m.version)))];
    const schema = states.includes('behind') ? 'behind' : states.includes('ahead') ? 'ahead' : 'current';
    return { name: 'sqlite', reachable: 'ok', schema, latencyMs: performance.now() - started };
  } catch (error) {
    return { name: 'sqlite', reachable: 'unreachable', schema: 'unknown', latencyMs: performance.now() - started, error: (error as Error).message };
  }
}
