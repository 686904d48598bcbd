import { type Db, pageClause } from './db';
import { nowIso } from '../util/ids';
import type { Surface } from './surface';

export interface UserRow {
  id: string;
  email: string | null;
  display_name: string | null;
  plan: string;
  is_owner: number;
  created_at: string;
  password_hash: string | null;
  verified_at: string | null;
  /** Set when a code mailed to the address was entered (a password sign-up proves nothing about it). */
  email_proven_at: string | null;
  profile: string | null;
  credit_limit: number | null;
}

export interface KeyRow {
  id: string;
  user_id: string;
  key_hash: string;
  key_hint: string;
  state: 'agent_pending' | 'active' | 'disabled';
  is_primary: number;
  created_at: string;
  last_used_at: string | null;
  disabled_at: string | null;
  kind: 'primary' | 'session' | 'agent';
  expires_at: string | null;
  parent_key_id: string | null;
}

export interface GithubTokenRow {
  user_id: string;
  sealed: string;
  hint: string;
  login: string | null;
  linked_at: string;
}

export type NewKey = Pick<KeyRow, 'id' | 'user_id' | 'key_hash' | 'key_hint' | 'state' | 'is_primary'> & Partial<Pick<KeyRow, 'kind' | 'expires_at' | 'parent_key_id'>>;

/**
 * Users, API keys and the credit ledger (tables of the accounts database, DATA_DIR/accounts.db).
 *
 * Every request reads its key and its user several times, and these rows rarely change, so reads
 * of single users and keys outside a transaction are remembered. Every write here forgets them,
 * and so does a commit by another connection to the same file (PRAGMA data_version changes), so a
 * disabled key stops working at once in every process. Reads inside a transaction always go to the
 * database: a row written there may still be rolled back.
 */
export class SqliteAccountsStore {
  private readonly remembered = new Map<string, Readonly<UserRow | KeyRow> | undefined>();
  private dataVersion = -1;

  constructor(private readonly db: Db) {}

  private remember<T extends UserRow | KeyRow>(key: string, read: () => T | undefined): T | undefined {
    if (this.db.inTransaction) return read();
    const version = (this.db.prepare('PRAGMA accounts.data_version').get() as { data_version: number }).data_version;
    if (version !== this.dataVersion) {
      this.remembered.clear();
      this.dataVersion = version;
    }
    if (this.remembered.has(key)) return this.remembered.get(key) as T | undefined;
    const row = read();
    if (row) Object.freeze(row);
    this.remembered.set(key, row);
    return row;
  }

  /** Called by every write to users and keys. */
  private changed(): void {
    this.remembered.clear();
  }

  owner(): UserRow | undefined {
    return this.db.prepare('SELECT * FROM users WHERE is_owner = 1').get() as UserRow | undefined;
  }

  user(id: string): UserRow | undefined {
    return this.remember(`user:${id}`, () => this.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined);
  }

  userByEmail(email: string): UserRow | undefined {
    return this.db.prepare('SELECT * FROM users WHERE email = ?').get(email) as UserRow | undefined;
  }

  insertUser(user: Pick<UserRow, 'id' | 'email' | 'display_name' | 'plan' | 'is_owner'> & Partial<Pick<UserRow, 'password_hash' | 'profile'>>): void {
    this.changed();
    this.db.prepare('INSERT INTO users (id, email, display_name, plan, is_owner, created_at, password_hash, profile) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(user.id, user.email, user.display_name, user.plan, user.is_owner, nowIso(), user.password_hash ?? null, user.profile ?? null);
  }

  setUserPlan(id: string, plan: string): void {
    this.changed();
    this.db.prepare('UPDATE users SET plan = ? WHERE id = ?').run(plan, id);
  }

  setCreditLimit(id: string, limit: number | null): void {
    this.changed();
    this.db.prepare('UPDATE users SET credit_limit = ? WHERE id = ?').run(limit, id);
  }

  setPassword(id: string, hash: string): void {
    this.changed();
    this.db.prepare('UPDATE users SET password_hash = ? WHERE id = ?').run(hash, id);
  }

  markEmailProven(id: string): void {
    this.changed();
    this.db.prepare('UPDATE users SET email_proven_at = coalesce(email_proven_at, ?) WHERE id = ?').run(nowIso(), id);
  }

  markVerified(id: string): void {
    this.changed();
    this.db.prepare('UPDATE users SET verified_at = coalesce(verified_at, ?) WHERE id = ?').run(nowIso(), id);
  }

  insertKey(key: NewKey): void {
    this.changed();
    this.db.prepare(
      `INSERT INTO api_keys (id, user_id, key_hash, key_hint, state, is_primary, created_at, kind, expires_at, parent_key_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(key.id, key.user_id, key.key_hash, key.key_hint, key.state, key.is_primary, nowIso(), key.kind ?? 'primary',
      key.expires_at ?? null, key.parent_key_id ?? null);
  }

  key(id: string): KeyRow | undefined {
    return this.remember(`key:${id}`, () => this.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as KeyRow | undefined);
  }

  setKeyState(id: string, state: KeyRow['state']): void {
    this.changed();
    this.db.prepare('UPDATE api_keys SET state = ? WHERE id = ?').run(state, id);
  }

  /** Disables a key and every key derived from it (agent credentials). */
  disableKey(id: string): void {
    this.changed();
    const now = nowIso();
    this.db.prepare(`UPDATE api_keys SET state = 'disabled', is_primary = 0, disabled_at = coalesce(disabled_at, ?)
      WHERE id = ? OR parent_key_id = ?`).run(now, id, id);
  }

  /** The user's current primary keys (normally one). */
  primaryKeys(userId: string): KeyRow[] {
    return this.db.prepare("SELECT * FROM api_keys WHERE user_id = ? AND is_primary = 1 AND state != 'disabled'").all(userId) as KeyRow[];
  }

  /** Agent credentials minted from `parentId` that have not expired or been disabled. */
  liveAgentKeys(parentId: string, now: string): KeyRow[] {
    return this.db.prepare(`SELECT * FROM api_keys WHERE parent_key_id = ? AND kind = 'agent' AND state = 'active' AND expires_at > ?
      ORDER BY expires_at DESC`).all(parentId, now) as KeyRow[];
  }

  keyByHash(hash: string): KeyRow | undefined {
    return this.remember(`hash:${hash}`, () => this.db.prepare('SELECT * FROM api_keys WHERE key_hash = ?').get(hash) as KeyRow | undefined);
  }

  keysOf(userId: string): KeyRow[] {
    return this.db.prepare('SELECT * FROM api_keys WHERE user_id = ? ORDER BY created_at DESC, id').all(userId) as KeyRow[];
  }

  /**
   * A page of the user's keys, newest first, leaving out agent credentials that expired before
   * `hideExpiredBefore` (an agent refreshing every few minutes would otherwise bury the rest).
   */
  keysPage(userId: string, hideExpiredBefore: string, limit: number, offset: number): { items: KeyRow[]; total: number } {
    const where = "user_id = ? AND NOT (kind = 'agent' AND expires_at IS NOT NULL AND expires_at < ?)";
    const total = (this.db.prepare(`SELECT count(*) AS n FROM api_keys WHERE ${where}`).get(userId, hideExpiredBefore) as { n: number }).n;
    const items = this.db.prepare(`SELECT * FROM api_keys WHERE ${where} ORDER BY created_at DESC, id ${pageClause(limit, offset)}`)
      .all(userId, hideExpiredBefore) as KeyRow[];
    return { items, total };
  }

  /** The user's agent credentials still usable by date and state, oldest expiry first. */
  liveAgentKeysOf(userId: string, now: string): KeyRow[] {
    return this.db.prepare(`SELECT * FROM api_keys WHERE user_id = ? AND kind = 'agent' AND state = 'active' AND expires_at > ?
      ORDER BY expires_at`).all(userId, now) as KeyRow[];
  }

  /**
   * Deletes agent credentials and sign-in keys that expired before `before`: they can never work
   * again, and without this every refresh or sign-in left a row for ever. Returns how many went.
   */
  purgeExpiredKeys(before: string): number {
    this.changed();
    return this.db.prepare("DELETE FROM api_keys WHERE kind IN ('agent', 'session') AND expires_at IS NOT NULL AND expires_at < ?").run(before).changes;
  }

  touchKey(id: string): void {
    this.changed();
    this.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(nowIso(), id);
  }

  /** A key by its hash and the user it belongs to: one read on PostgreSQL, where authenticating a request makes it. */
  keyAndUserByHash(hash: string): { key: KeyRow; user: UserRow | undefined } | undefined {
    const key = this.keyByHash(hash);
    return key && { key, user: this.user(key.user_id) };
  }

  /**
   * The user and the credits they have used, as `user` and `creditsUsed` answer them: one read on
   * PostgreSQL (where, inside a transaction, it locks the totals row as creditsUsed does).
   */
  userAndCreditsUsed(userId: string): { user: UserRow | undefined; used: number } {
    return { user: this.user(userId), used: this.creditsUsed(userId) };
  }

  creditsUsed(userId: string): number {
    const row = this.db.prepare('SELECT used FROM credit_totals WHERE user_id = ?').get(userId) as { used: number } | undefined;
    return row?.used ?? 0;
  }

  creditLimit(userId: string): number | null {
    return (this.db.prepare('SELECT credit_limit FROM users WHERE id = ?').get(userId) as { credit_limit: number | null } | undefined)?.credit_limit ?? null;
  }

  /**
   * Credits charged by operation since `since` (ISO), for usage statistics. Charges are kept per
   * minute (and per day once compacted), so `since` should fall on a minute (a day, beyond the
   * compaction age) for the sums to be exact.
   */
  chargesByOperation(userId: string, since: string): { operation: string; calls: number; credits: number }[] {
    return this.db.prepare(`SELECT operation, sum(calls) AS calls, sum(credits) AS credits FROM credit_ledger
      WHERE user_id = ? AND created_at >= ? GROUP BY operation ORDER BY credits DESC, operation`).all(userId, since) as never;
  }

  /** Calls and credits charged per UTC day (YYYY-MM-DD) since `since`; days without charges are absent. */
  chargesPerDay(userId: string, since: string): { day: string; calls: number; credits: number }[] {
    return this.db.prepare(`SELECT substr(created_at, 1, 10) AS day, sum(calls) AS calls, sum(credits) AS credits FROM credit_ledger
      WHERE user_id = ? AND created_at >= ? GROUP BY day ORDER BY day`).all(userId, since) as never;
  }

  /**
   * Adds a charge to the user's ledger row for this operation and UTC minute (one row a minute
   * however many calls, so polling does not grow the file); `at` is the time of the charge (ISO).
   */
  recordCharge(userId: string, operation: string, credits: number, at: string = nowIso()): void {
    const minute = at.slice(0, 16);
    this.db.prepare(`INSERT INTO credit_ledger (user_id, operation, credits, created_at, calls, period) VALUES (?, ?, ?, ?, 1, ?)
      ON CONFLICT (user_id, operation, period) WHERE period IS NOT NULL
      DO UPDATE SET credits = credits + excluded.credits, calls = calls + 1`)
      .run(userId, operation, credits, `${minute}:00.000Z`, minute);
  }

  /**
   * Merges the ledger rows older than `before` (ISO; the first instant of a UTC day) into one row
   * per user, operation and day. Totals and balances do not change. Returns how many rows went.
   */
  compactLedger(before: string): number {
    const older = "created_at < ? AND (period IS NULL OR length(period) > 10)";
    const days = this.db.prepare(`SELECT user_id, operation, substr(created_at, 1, 10) AS day, sum(calls) AS calls, sum(credits) AS credits,
      count(*) AS n FROM credit_ledger WHERE ${older} GROUP BY user_id, operation, day`).all(before) as
      { user_id: string; operation: string; day: string; calls: number; credits: number; n: number }[];
    if (!days.length) return 0;
    const removed = this.db.prepare(`DELETE FROM credit_ledger WHERE ${older}`).run(before).changes;
    const insert = this.db.prepare(`INSERT INTO credit_ledger (user_id, operation, credits, created_at, calls, period) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (user_id, operation, period) WHERE period IS NOT NULL
      DO UPDATE SET credits = credits + excluded.credits, calls = calls + excluded.calls`);
    for (const d of days) insert.run(d.user_id, d.operation, d.credits, `${d.day}T00:00:00.000Z`, d.calls, d.day);
    return removed - days.length;
  }

  /** Ledger rows kept (for the storage bound; tests and benchmarks). */
  ledgerRows(userId: string): number {
    return (this.db.prepare('SELECT count(*) AS n FROM credit_ledger WHERE user_id = ?').get(userId) as { n: number }).n;
  }

  /** The user's linked GitHub token, sealed (see accounts/github-tokens.ts). */
  githubToken(userId: string): GithubTokenRow | undefined {
    return this.db.prepare('SELECT * FROM github_tokens WHERE user_id = ?').get(userId) as GithubTokenRow | undefined;
  }

  setGithubToken(row: Omit<GithubTokenRow, 'linked_at'>): void {
    this.db.prepare(`INSERT INTO github_tokens (user_id, sealed, hint, login, linked_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (user_id) DO UPDATE SET sealed = excluded.sealed, hint = excluded.hint, login = excluded.login, linked_at = excluded.linked_at`)
      .run(row.user_id, row.sealed, row.hint, row.login, nowIso());
  }

  deleteGithubToken(userId: string): boolean {
    return this.db.prepare('DELETE FROM github_tokens WHERE user_id = ?').run(userId).changes > 0;
  }

  /**
   * Takes back one charge that recordCharge wrote at `at` (ISO): its minute's row loses the call and
   * its credits (the balance follows by trigger), and goes when no call is left in it.
   */
  takeBackCharge(ref: { userId: string; operation: string; credits: number; at: string }): void {
    const minute = ref.at.slice(0, 16);
    this.db.prepare('UPDATE credit_ledger SET credits = credits - ?, calls = calls - 1 WHERE user_id = ? AND operation = ? AND period = ?')
      .run(ref.credits, ref.userId, ref.operation, minute);
    this.db.prepare('DELETE FROM credit_ledger WHERE user_id = ? AND operation = ? AND period = ? AND calls <= 0').run(ref.userId, ref.operation, minute);
  }
}

/** What the engine programs against; SqliteAccountsStore is the implementation on SQLite. */
export type AccountsStore = Surface<SqliteAccountsStore>;
