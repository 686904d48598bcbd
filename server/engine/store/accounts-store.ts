import type { Db } from './db';
import { nowIso } from '../util/ids';

export interface UserRow {
  id: string;
  email: string | null;
  display_name: string | null;
  plan: string;
  is_owner: number;
  created_at: string;
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
}

/** Users, API keys and the credit ledger. */
export class AccountsStore {
  constructor(private readonly db: Db) {}

  owner(): UserRow | undefined {
    return this.db.prepare('SELECT * FROM users WHERE is_owner = 1').get() as UserRow | undefined;
  }

  user(id: string): UserRow | undefined {
    return this.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
  }

  insertUser(user: Omit<UserRow, 'created_at'>): void {
    this.db.prepare('INSERT INTO users (id, email, display_name, plan, is_owner, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(user.id, user.email, user.display_name, user.plan, user.is_owner, nowIso());
  }

  insertKey(key: Pick<KeyRow, 'id' | 'user_id' | 'key_hash' | 'key_hint' | 'state' | 'is_primary'>): void {
    this.db.prepare(
      'INSERT INTO api_keys (id, user_id, key_hash, key_hint, state, is_primary, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(key.id, key.user_id, key.key_hash, key.key_hint, key.state, key.is_primary, nowIso());
  }

  keyByHash(hash: string): KeyRow | undefined {
    return this.db.prepare('SELECT * FROM api_keys WHERE key_hash = ?').get(hash) as KeyRow | undefined;
  }

  keysOf(userId: string): KeyRow[] {
    return this.db.prepare('SELECT * FROM api_keys WHERE user_id = ? ORDER BY created_at DESC, id').all(userId) as KeyRow[];
  }

  touchKey(id: string): void {
    this.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(nowIso(), id);
  }

  creditsUsed(userId: string): number {
    return (this.db.prepare('SELECT coalesce(sum(credits), 0) AS n FROM credit_ledger WHERE user_id = ?').get(userId) as { n: number }).n;
  }

  recordCharge(userId: string, operation: string, credits: number): void {
    this.db.prepare('INSERT INTO credit_ledger (user_id, operation, credits, created_at) VALUES (?, ?, ?, ?)')
      .run(userId, operation, credits, nowIso());
  }
}
