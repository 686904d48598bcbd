import type { Db } from './db';
import { nowIso } from '../util/ids';
import type { Surface } from './surface';

export interface OtpRow {
  id: string;
  email: string;
  user_id: string;
  purpose: 'signup' | 'signin';
  code_hash: string;
  key_id: string | null;
  attempts: number;
  expires_at: string;
  consumed_at: string | null;
  created_at: string;
}

export interface SessionRow {
  id: string;
  user_id: string;
  token_hash: string;
  key_id: string | null;
  expires_at: string;
  created_at: string;
}

/** One-time codes and sign-in sessions (both stored as hashes only). */
export class SqliteAuthStore {
  constructor(private readonly db: Db) {}

  insertOtp(row: Omit<OtpRow, 'attempts' | 'consumed_at' | 'created_at'>): void {
    this.db.prepare(`INSERT INTO otp_codes (id, email, user_id, purpose, code_hash, key_id, expires_at, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(row.id, row.email, row.user_id, row.purpose, row.code_hash, row.key_id, row.expires_at, nowIso());
  }

  /** The newest code for an address that is unused, unexpired and has attempts left. */
  liveOtp(email: string, now: string, maxAttempts: number): OtpRow | undefined {
    return this.db.prepare(`SELECT * FROM otp_codes WHERE email = ? AND consumed_at IS NULL AND expires_at > ? AND attempts < ?
      ORDER BY created_at DESC, rowid DESC LIMIT 1`).get(email, now, maxAttempts) as OtpRow | undefined;
  }

  /** Marks every open code of an address used: a new code supersedes the old ones. */
  retireOtps(email: string): void {
    this.db.prepare('UPDATE otp_codes SET consumed_at = ? WHERE email = ? AND consumed_at IS NULL').run(nowIso(), email);
  }

  /** Drops codes created before `before` and sessions that ended before it: they can never be used again. */
  prune(before: string): void {
    this.db.prepare('DELETE FROM otp_codes WHERE created_at < ?').run(before);
    this.db.prepare('DELETE FROM sessions WHERE expires_at < ?').run(before);
  }

  countAttempt(id: string): void {
    this.db.prepare('UPDATE otp_codes SET attempts = attempts + 1 WHERE id = ?').run(id);
  }

  /** Consumes a code once: false when another request consumed it first. */
  consumeOtp(id: string): boolean {
    return this.db.prepare('UPDATE otp_codes SET consumed_at = ? WHERE id = ? AND consumed_at IS NULL').run(nowIso(), id).changes === 1;
  }

  deleteOtp(id: string): void {
    this.db.prepare('DELETE FROM otp_codes WHERE id = ?').run(id);
  }

  insertSession(row: Omit<SessionRow, 'created_at'>): void {
    this.db.prepare('INSERT INTO sessions (id, user_id, token_hash, key_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(row.id, row.user_id, row.token_hash, row.key_id, row.expires_at, nowIso());
  }

  sessionByHash(hash: string): SessionRow | undefined {
    return this.db.prepare('SELECT * FROM sessions WHERE token_hash = ?').get(hash) as SessionRow | undefined;
  }
}

/** What the engine programs against; SqliteAuthStore is the implementation on SQLite. */
export type AuthStore = Surface<SqliteAuthStore>;
