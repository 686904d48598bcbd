import { timingSafeEqual } from 'node:crypto';
import type { Db } from '../store/db';
import { AccountsStore } from '../store/accounts-store';
import { LoupeError } from '../errors';
import { isUuid, newId, sha256 } from '../util/ids';
import { planAtLeast, planOf, type PlanName } from './plans';

export interface Caller {
  userId: string;
  keyId: string;
  plan: string;
  isOwner: boolean;
}

export interface UsageMeta {
  tier: string;
  credits_used: number;
  credits_remaining: number;
  max_repos_allowed: number;
}

/** Masks a key for listings: the first 4 and last 4 characters only. */
export const keyHint = (key: string) => `${key.slice(0, 4)}…${key.slice(-4)}`;

const TOUCH_INTERVAL_MS = 60_000;

export class Accounts {
  readonly store: AccountsStore;
  private readonly lastTouched = new Map<string, number>();

  constructor(private readonly db: Db) {
    this.store = new AccountsStore(db);
  }

  /**
   * Makes sure the machine's owner exists with a usable key. Returns the plaintext key when one is
   * known: the seed (LOUPE_API_KEY) or a key created now. Keys are stored only as hashes.
   */
  ensureOwner(seedKey?: string): { userId: string; createdKey: string | null } {
    if (seedKey !== undefined && !isUuid(seedKey)) {
      throw new LoupeError('VALIDATION_FAILED', 'LOUPE_API_KEY: must be a UUID');
    }
    return this.db.transaction(() => {
      let owner = this.store.owner();
      if (!owner) {
        const id = newId();
        this.store.insertUser({ id, email: null, display_name: 'Owner', plan: 'ENTERPRISE', is_owner: 1 });
        owner = this.store.owner()!;
      }
      if (seedKey) {
        const existing = this.store.keyByHash(sha256(seedKey.toLowerCase()));
        if (existing && existing.user_id !== owner.id) {
          throw new LoupeError('CONFLICT', 'LOUPE_API_KEY: this key belongs to another user');
        }
        if (!existing) this.addKey(owner.id, seedKey.toLowerCase(), 'active');
        return { userId: owner.id, createdKey: null };
      }
      const hasKey = this.store.keysOf(owner.id).some((k) => k.state === 'active');
      if (hasKey) return { userId: owner.id, createdKey: null };
      const key = newId();
      this.addKey(owner.id, key, 'active');
      return { userId: owner.id, createdKey: key };
    })();
  }

  addKey(userId: string, plaintext: string, state: 'agent_pending' | 'active'): string {
    const id = newId();
    this.store.insertKey({ id, user_id: userId, key_hash: sha256(plaintext), key_hint: keyHint(plaintext), state, is_primary: 1 });
    return id;
  }

  /** Resolves an X-API-Key header to its caller, or throws 401. */
  authenticate(header: string | undefined): Caller {
    if (!header) throw new LoupeError('UNAUTHORIZED', 'X-API-Key header is required');
    const key = header.trim().toLowerCase();
    if (!isUuid(key)) throw new LoupeError('UNAUTHORIZED', 'X-API-Key is not a valid key');
    const hash = sha256(key);
    const row = this.store.keyByHash(hash);
    if (!row || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex')) || row.state !== 'active') {
      throw new LoupeError('UNAUTHORIZED', 'X-API-Key is unknown, disabled or not yet verified');
    }
    const user = this.store.user(row.user_id);
    if (!user) throw new LoupeError('UNAUTHORIZED', 'X-API-Key is unknown, disabled or not yet verified');
    const now = Date.now();
    if ((this.lastTouched.get(row.id) ?? 0) + TOUCH_INTERVAL_MS < now) {
      this.lastTouched.set(row.id, now);
      this.store.touchKey(row.id);
    }
    return { userId: user.id, keyId: row.id, plan: user.plan, isOwner: user.is_owner === 1 };
  }

  meta(userId: string): UsageMeta {
    const user = this.store.user(userId);
    const plan = planOf(user?.plan ?? 'FREE');
    const used = this.store.creditsUsed(userId);
    return { tier: plan.name, credits_used: used, credits_remaining: Math.max(0, plan.credits - used), max_repos_allowed: plan.maxRepos };
  }

  /** Throws 403 PLAN_REQUIRED naming the plan needed when the caller's plan is below `minimum`. */
  requirePlan(caller: Caller, minimum: PlanName, feature: string): void {
    if (!planAtLeast(caller.plan, minimum)) {
      throw new LoupeError('PLAN_REQUIRED', `${feature} needs the ${minimum} plan or higher; your plan is ${planOf(caller.plan).name}`);
    }
  }

  /** Records the cost of a completed operation. Callers run it in the same transaction as the effect. */
  charge(userId: string, operation: string, credits: number): void {
    if (credits > 0) this.store.recordCharge(userId, operation, credits);
  }
}
