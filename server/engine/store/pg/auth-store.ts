import { nowIso } from '../../util/ids';
import type { AuthStore, OtpRow, SessionRow } from '../auth-store';
import type { Async } from '../surface';
import type { PgDb } from './pg-db';

const OTP = 'id, email, user_id, purpose, code_hash, key_id, attempts, expires_at, consumed_at, created_at';
const SESSION = 'id, user_id, token_hash, key_id, expires_at, created_at';

/**
 * One-time codes and sign-in sessions on PostgreSQL (hashes only), the same answers as
 * SqliteAuthStore. A code is consumed by one conditional UPDATE, so two nodes verifying the same
 * code at once cannot both succeed.
 */
export class PgAuthStore implements Async<AuthStore> {
  constructor(private readonly db: PgDb) {}

  async insertOtp(row: Omit<OtpRow, 'attempts' | 'consumed_at' | 'created_at'>): Promise<void> {
    await this.db.query(`INSERT INTO otp_codes (id, email, user_id, purpose, code_hash, key_id, expires_at, created_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [row.id, row.email, row.user_id, row.purpose, row.code_hash, row.key_id, row.expires_at, nowIso()]);
  }

  async liveOtp(email: string, now: string, maxAttempts: number): Promise<OtpRow | undefined> {
    return this.db.one<OtpRow>(`SELECT ${OTP} FROM otp_codes WHERE email = $1 AND consumed_at IS NULL AND expires_at > $2 AND attempts < $3
      ORDER BY created_at DESC, ord DESC LIMIT 1`, [email, now, maxAttempts]);
  }

  async retireOtps(email: string): Promise<void> {
    await this.db.query('UPDATE otp_codes SET consumed_at = $1 WHERE email = $2 AND consumed_at IS NULL', [nowIso(), email]);
  }

  async prune(before: string): Promise<void> {
    await this.db.query('DELETE FROM otp_codes WHERE created_at < $1', [before]);
    await this.db.query('DELETE FROM sessions WHERE expires_at < $1', [before]);
  }

  async countAttempt(id: string): Promise<void> {
    await this.db.query('UPDATE otp_codes SET attempts = attempts + 1 WHERE id = $1', [id]);
  }

  async consumeOtp(id: string): Promise<boolean> {
    return (await this.db.query('UPDATE otp_codes SET consumed_at = $1 WHERE id = $2 AND consumed_at IS NULL', [nowIso(), id])).rowCount === 1;
  }

  async deleteOtp(id: string): Promise<void> {
    await this.db.query('DELETE FROM otp_codes WHERE id = $1', [id]);
  }

  async insertSession(row: Omit<SessionRow, 'created_at'>): Promise<void> {
    await this.db.query('INSERT INTO sessions (id, user_id, token_hash, key_id, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [row.id, row.user_id, row.token_hash, row.key_id, row.expires_at, nowIso()]);
  }

  async sessionByHash(hash: string): Promise<SessionRow | undefined> {
    return this.db.one<SessionRow>(`SELECT ${SESSION} FROM sessions WHERE token_hash = $1`, [hash]);
  }
}
