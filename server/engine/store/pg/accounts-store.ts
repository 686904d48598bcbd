import { nowIso } from '../../util/ids';
import type { AccountsStore, GithubTokenRow, KeyRow, NewKey, UserRow } from '../accounts-store';
import type { Async } from '../surface';
import type { PgDb } from './pg-db';

/** pg_advisory_xact_lock key of ledger compaction ('ledger' in ASCII). */
const COMPACTION_LOCK = 0x6c6564676572;

const USER = 'id, email, display_name, plan, is_owner, created_at, password_hash, verified_at, email_proven_at, profile, credit_limit';
const KEY = 'id, user_id, key_hash, key_hint, state, is_primary, created_at, last_used_at, disabled_at, kind, expires_at, parent_key_id';
const USER_COLUMNS = USER.split(', ');
const KEY_COLUMNS = KEY.split(', ');
/** The user's columns as `u_<column>`, beside another table's (both have `id`, `created_at`). */
const USER_AS_U = USER_COLUMNS.map((c) => `u.${c} AS u_${c}`).join(', ');
const KEY_K = KEY_COLUMNS.map((c) => `k.${c}`).join(', ');

/** The UserRow in a row of `USER_AS_U` columns, or undefined when it joined no user. */
function userFrom(row: Record<string, unknown>): UserRow | undefined {
  if (row.u_id === null || row.u_id === undefined) return undefined;
  const user = {} as Record<string, unknown>;
  for (const c of USER_COLUMNS) user[c] = row[`u_${c}`];
  return user as unknown as UserRow;
}

/**
 * Users, API keys, GitHub tokens and the credit ledger on PostgreSQL: the same answers as
 * SqliteAccountsStore (accounts-store.ts), for many API nodes on one database.
 *
 * - No rows are remembered between calls (SQLite's store remembers users and keys until another
 *   connection commits): with many nodes, a key disabled on one must stop working on all at once,
 *   and a primary-key read is one round trip.
 * - The balance stays exact across nodes: the ledger's triggers keep `credit_totals` (migration 1),
 *   each charge adding under the totals row's lock; and `creditsUsed` inside a transaction locks the
 *   user's totals row (`SELECT … FOR UPDATE`), so a settle that checks the balance and then charges
 *   holds the row until it commits: a second node's check waits and then sees the first charge.
 */
export class PgAccountsStore implements Async<AccountsStore> {
  constructor(private readonly db: PgDb) {}

  async owner(): Promise<UserRow | undefined> {
    return this.db.one<UserRow>(`SELECT ${USER} FROM users WHERE is_owner = 1`);
  }

  async user(id: string): Promise<UserRow | undefined> {
    return this.db.one<UserRow>(`SELECT ${USER} FROM users WHERE id = $1`, [id]);
  }

  async userByEmail(email: string): Promise<UserRow | undefined> {
    return this.db.one<UserRow>(`SELECT ${USER} FROM users WHERE email = $1`, [email]);
  }

  async insertUser(user: Pick<UserRow, 'id' | 'email' | 'display_name' | 'plan' | 'is_owner'> & Partial<Pick<UserRow, 'password_hash' | 'profile'>>): Promise<void> {
    await this.db.query('INSERT INTO users (id, email, display_name, plan, is_owner, created_at, password_hash, profile) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [user.id, user.email, user.display_name, user.plan, user.is_owner, nowIso(), user.password_hash ?? null, user.profile ?? null]);
  }

  async setUserPlan(id: string, plan: string): Promise<void> {
    await this.db.query('UPDATE users SET plan = $1 WHERE id = $2', [plan, id]);
  }

  async setCreditLimit(id: string, limit: number | null): Promise<void> {
    await this.db.query('UPDATE users SET credit_limit = $1 WHERE id = $2', [limit, id]);
  }

  async setPassword(id: string, hash: string): Promise<void> {
    await this.db.query('UPDATE users SET password_hash = $1 WHERE id = $2', [hash, id]);
  }

  async markEmailProven(id: string): Promise<void> {
    await this.db.query('UPDATE users SET email_proven_at = coalesce(email_proven_at, $1) WHERE id = $2', [nowIso(), id]);
  }

  async markVerified(id: string): Promise<void> {
    await this.db.query('UPDATE users SET verified_at = coalesce(verified_at, $1) WHERE id = $2', [nowIso(), id]);
  }

  async insertKey(key: NewKey): Promise<void> {
    await this.db.query(
      `INSERT INTO api_keys (id, user_id, key_hash, key_hint, state, is_primary, created_at, kind, expires_at, parent_key_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [key.id, key.user_id, key.key_hash, key.key_hint, key.state, key.is_primary, nowIso(), key.kind ?? 'primary', key.expires_at ?? null, key.parent_key_id ?? null],
    );
  }

  async key(id: string): Promise<KeyRow | undefined> {
    return this.db.one<KeyRow>(`SELECT ${KEY} FROM api_keys WHERE id = $1`, [id]);
  }

  async setKeyState(id: string, state: KeyRow['state']): Promise<void> {
    await this.db.query('UPDATE api_keys SET state = $1 WHERE id = $2', [state, id]);
  }

  async disableKey(id: string): Promise<void> {
    await this.db.query(`UPDATE api_keys SET state = 'disabled', is_primary = 0, disabled_at = coalesce(disabled_at, $1)
      WHERE id = $2 OR parent_key_id = $2`, [nowIso(), id]);
  }

  async primaryKeys(userId: string): Promise<KeyRow[]> {
    return this.db.rows(`SELECT ${KEY} FROM api_keys WHERE user_id = $1 AND is_primary = 1 AND state != 'disabled' ORDER BY created_at, id COLLATE "C"`, [userId]);
  }

  async liveAgentKeys(parentId: string, now: string): Promise<KeyRow[]> {
    return this.db.rows(`SELECT ${KEY} FROM api_keys WHERE parent_key_id = $1 AND kind = 'agent' AND state = 'active' AND expires_at > $2
      ORDER BY expires_at DESC`, [parentId, now]);
  }

  async keyByHash(hash: string): Promise<KeyRow | undefined> {
    return this.db.one<KeyRow>(`SELECT ${KEY} FROM api_keys WHERE key_hash = $1`, [hash]);
  }

  async keysOf(userId: string): Promise<KeyRow[]> {
    return this.db.rows(`SELECT ${KEY} FROM api_keys WHERE user_id = $1 ORDER BY created_at DESC, id COLLATE "C"`, [userId]);
  }

  async keysPage(userId: string, hideExpiredBefore: string, limit: number, offset: number): Promise<{ items: KeyRow[]; total: number }> {
    const where = "user_id = $1 AND NOT (kind = 'agent' AND expires_at IS NOT NULL AND expires_at < $2)";
    const total = (await this.db.one<{ n: number }>(`SELECT count(*) AS n FROM api_keys WHERE ${where}`, [userId, hideExpiredBefore]))!.n;
    const items = await this.db.rows<KeyRow>(
      `SELECT ${KEY} FROM api_keys WHERE ${where} ORDER BY created_at DESC, id COLLATE "C" LIMIT $3 OFFSET $4`, [userId, hideExpiredBefore, page(limit), page(offset)]);
    return { items, total };
  }

  async liveAgentKeysOf(userId: string, now: string): Promise<KeyRow[]> {
    return this.db.rows(`SELECT ${KEY} FROM api_keys WHERE user_id = $1 AND kind = 'agent' AND state = 'active' AND expires_at > $2
      ORDER BY expires_at`, [userId, now]);
  }

  async purgeExpiredKeys(before: string): Promise<number> {
    return (await this.db.query("DELETE FROM api_keys WHERE kind IN ('agent', 'session') AND expires_at IS NOT NULL AND expires_at < $1", [before])).rowCount ?? 0;
  }

  async touchKey(id: string): Promise<void> {
    await this.db.query('UPDATE api_keys SET last_used_at = $1 WHERE id = $2', [nowIso(), id]);
  }

  /**
   * Credits used. Inside a transaction this also locks the user's totals row until the transaction
   * ends: the read that a balance check makes before charging, so that no other node can charge the
   * same user between this check and this transaction's charge.
   */
  async creditsUsed(userId: string): Promise<number> {
    const lock = this.db.inTransaction ? ' FOR UPDATE' : '';
    const row = await this.db.one<{ used: number }>(`SELECT used FROM credit_totals WHERE user_id = $1${lock}`, [userId]);
    return row?.used ?? 0;
  }

  /**
   * The key and its user in one statement (authenticating a request read them in two). The user's
   * columns come back under `u_…` names and are put back into a UserRow.
   */
  async keyAndUserByHash(hash: string): Promise<{ key: KeyRow; user: UserRow | undefined } | undefined> {
    const row = await this.db.one<Record<string, unknown>>(
      `SELECT ${KEY_K}, ${USER_AS_U} FROM api_keys k LEFT JOIN users u ON u.id = k.user_id WHERE k.key_hash = $1`, [hash]);
    if (!row) return undefined;
    const key = {} as Record<string, unknown>;
    for (const c of KEY_COLUMNS) key[c] = row[c];
    return { key: key as unknown as KeyRow, user: userFrom(row) };
  }

  /**
   * `user` and `creditsUsed` in one statement: the balance a reservation checks, and inside a
   * transaction the settle's read, which locks the user's totals row (`FOR UPDATE`) as creditsUsed
   * does, before any ledger row: the same lock order as every ledger write.
   */
  async userAndCreditsUsed(userId: string): Promise<{ user: UserRow | undefined; used: number }> {
    const lock = this.db.inTransaction ? ' FOR UPDATE' : '';
    const row = (await this.db.one<Record<string, unknown>>(
      `WITH t AS (SELECT used FROM credit_totals WHERE user_id = $1${lock})
       SELECT ${USER_AS_U}, (SELECT used FROM t) AS used FROM (VALUES (1)) AS one (x) LEFT JOIN users u ON u.id = $1`, [userId]))!;
    return { user: userFrom(row), used: (row.used as number | null) ?? 0 };
  }

  async creditLimit(userId: string): Promise<number | null> {
    return (await this.db.one<{ credit_limit: number | null }>('SELECT credit_limit FROM users WHERE id = $1', [userId]))?.credit_limit ?? null;
  }

  async chargesByOperation(userId: string, since: string): Promise<{ operation: string; calls: number; credits: number }[]> {
    return this.db.rows(`SELECT operation, sum(calls)::bigint AS calls, sum(credits)::bigint AS credits FROM credit_ledger
      WHERE user_id = $1 AND created_at >= $2 GROUP BY operation ORDER BY credits DESC, operation COLLATE "C"`, [userId, since]);
  }

  async chargesPerDay(userId: string, since: string): Promise<{ day: string; calls: number; credits: number }[]> {
    return this.db.rows(`SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(calls)::bigint AS calls, sum(credits)::bigint AS credits
      FROM credit_ledger WHERE user_id = $1 AND created_at >= $2 GROUP BY day ORDER BY day`, [userId, since]);
  }

  /**
   * Adds a charge to the user's row for this operation and UTC minute: one statement, so charges
   * from many nodes in the same minute add up (the unique constraint serialises them on the row).
   *
   * Lock order: the statement locks the user's totals row before it touches the minute's ledger row
   * (the CTE runs first: the insert's one-time filter reads it). Every ledger write here does the
   * same, as a balance check does (`creditsUsed` in a transaction): a write that locked the ledger
   * row first and then, through the trigger, waited for the totals row would deadlock with a
   * checked charge holding the totals row and waiting for that ledger row.
   */
  async recordCharge(userId: string, operation: string, credits: number, at: string = nowIso()): Promise<void> {
    const minute = at.slice(0, 16);
    await this.db.query(`WITH totals AS (SELECT user_id FROM credit_totals WHERE user_id = $1 FOR UPDATE)
      INSERT INTO credit_ledger (user_id, operation, credits, created_at, calls, period)
      SELECT $1, $2, $3::bigint, $4::timestamptz, 1, $5 WHERE (SELECT count(*) FROM totals) >= 0
      ON CONFLICT (user_id, operation, period)
      DO UPDATE SET credits = credit_ledger.credits + EXCLUDED.credits, calls = credit_ledger.calls + 1`,
    [userId, operation, credits, `${minute}:00.000Z`, minute]);
  }

  /** Runs ledger writes with the user's totals row locked first (see recordCharge), in the caller's transaction or one of its own. */
  private totalsLocked(userId: string, write: () => Promise<void>): Promise<void> {
    const run = async () => {
      await this.db.query('SELECT 1 FROM credit_totals WHERE user_id = $1 FOR UPDATE', [userId]);
      await write();
    };
    return this.db.inTransaction ? run() : this.db.transaction(run);
  }

  /**
   * Merges ledger rows older than `before` into one row per user, operation and UTC day, in one
   * statement: the rows a statement deletes are the rows it sums, so two nodes compacting at once
   * cannot both count the same minute (the second finds those rows gone).
   */
  async compactLedger(before: string): Promise<number> {
    // Nodes compact one at a time (an advisory lock for this transaction): two statements deleting
    // the same rows in different orders could otherwise deadlock, and one node's maintenance fail.
    return this.db.transaction(async () => {
      await this.db.query('SELECT pg_advisory_xact_lock($1)', [COMPACTION_LOCK]);
      // The totals rows of every user it merges, first and in user-id order (see recordCharge).
      await this.db.query(`SELECT 1 FROM credit_totals WHERE user_id IN (SELECT DISTINCT user_id FROM credit_ledger
        WHERE created_at < $1 AND (period IS NULL OR length(period) > 10)) ORDER BY user_id COLLATE "C" FOR UPDATE`, [before]);
      return this.compactLocked(before);
    });
  }

  private async compactLocked(before: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(`
      WITH gone AS (
        DELETE FROM credit_ledger WHERE created_at < $1 AND (period IS NULL OR length(period) > 10)
        RETURNING user_id, operation, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, calls, credits
      ), days AS (
        SELECT user_id, operation, day, sum(calls)::int AS calls, sum(credits)::bigint AS credits FROM gone GROUP BY user_id, operation, day
      ), merged AS (
        INSERT INTO credit_ledger (user_id, operation, credits, created_at, calls, period)
        SELECT user_id, operation, credits, (day || 'T00:00:00.000Z')::timestamptz, calls, day FROM days
        ON CONFLICT (user_id, operation, period)
        DO UPDATE SET credits = credit_ledger.credits + EXCLUDED.credits, calls = credit_ledger.calls + EXCLUDED.calls
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM gone) - (SELECT count(*) FROM merged) AS n`, [before]);
    return row?.n ?? 0;
  }

  async ledgerRows(userId: string): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT count(*) AS n FROM credit_ledger WHERE user_id = $1', [userId]))!.n;
  }

  async githubToken(userId: string): Promise<GithubTokenRow | undefined> {
    return this.db.one<GithubTokenRow>('SELECT user_id, sealed, hint, login, linked_at FROM github_tokens WHERE user_id = $1', [userId]);
  }

  async setGithubToken(row: Omit<GithubTokenRow, 'linked_at'>): Promise<void> {
    await this.db.query(`INSERT INTO github_tokens (user_id, sealed, hint, login, linked_at) VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (user_id) DO UPDATE SET sealed = EXCLUDED.sealed, hint = EXCLUDED.hint, login = EXCLUDED.login, linked_at = EXCLUDED.linked_at`,
    [row.user_id, row.sealed, row.hint, row.login, nowIso()]);
  }

  async deleteGithubToken(userId: string): Promise<boolean> {
    return ((await this.db.query('DELETE FROM github_tokens WHERE user_id = $1', [userId])).rowCount ?? 0) > 0;
  }

  /**
   * Takes back one charge written at `at`: its minute's row loses the call and its credits (the
   * totals follow by trigger), and goes when no call is left in it; one statement each, in the
   * caller's transaction when there is one.
   */
  async takeBackCharge(ref: { userId: string; operation: string; credits: number; at: string }): Promise<void> {
    const minute = ref.at.slice(0, 16);
    await this.totalsLocked(ref.userId, async () => {
      await this.db.query('UPDATE credit_ledger SET credits = credits - $1, calls = calls - 1 WHERE user_id = $2 AND operation = $3 AND period = $4',
        [ref.credits, ref.userId, ref.operation, minute]);
      await this.db.query('DELETE FROM credit_ledger WHERE user_id = $1 AND operation = $2 AND period = $3 AND calls <= 0', [ref.userId, ref.operation, minute]);
    });
  }
}

/** A page bound, checked as SQLite's pageClause checks it. */
export function page(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`a page needs whole numbers >= 0, got ${n}`);
  return n;
}
