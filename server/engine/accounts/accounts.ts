import { timingSafeEqual } from 'node:crypto';
import { silentLogger, type Logger } from '../log';
import type { SharedFolder } from '../repos/access';
import type { AccountsStore, KeyRow, UserRow } from '../store/accounts-store';
import { sq, type AccountSide, type Either, type Work } from '../store/account-side';
import { LoupeError, notFound } from '../errors';
import { isUuid, newId, nowIso, sha256 } from '../util/ids';
import { lowestPlanWith, planAtLeast, planTable, type Plan, type PlanName } from './plans';
import type { DocDepth } from '../docs/depth';
import { Credits, type Balance, type Charge, type Reservation, type Settled } from './credits';
import { History } from './history';
import type { AuthConfig } from './auth';

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

/** Plans, costs and the owner's account, as configuration. Every field has a local default. */
export interface AccountsConfig {
  /** Overrides of the plan table (credits, maxRepos, depths, symbols). */
  plans?: Partial<Record<PlanName, Partial<Omit<Plan, 'name'>>>>;
  /** Credit cost per operation name (`search.run`, `files.list`, …), over the routes' defaults. */
  costs?: Record<string, number>;
  /** The machine owner's plan (default ENTERPRISE) and an explicit credit limit (default: the plan's). */
  owner?: { plan?: PlanName; credits?: number };
  /** The plan of users who sign up through the API (default FREE). */
  signupPlan?: PlanName;
  /** Lifetime of an agent credential (default 15 minutes). */
  agentCredentialTtlMs?: number;
  /** Agent credentials one user may have live at once (default 10). */
  maxLiveAgentCredentials?: number;
  /** Sign-up and sign-in: SMTP, code and session lifetimes, rate limits. */
  auth?: AuthConfig;
  /** Days a history row is kept (default 365); 0 keeps every row. */
  historyRetentionDays?: number;
  /**
   * Local folders the owner shares with other users (local folders are otherwise the owner's alone):
   * `[{"path": "/srv/code", "users": ["ada@example.test"]}]`; `"*"` shares with every user.
   */
  sharedFolders?: SharedFolder[];
}

/** History rows are kept this many days unless configured (`historyRetentionDays`). */
export const HISTORY_RETENTION_DAYS = 365;
/** The longest statistics window: ledger rows older than this are merged into daily totals. */
export const STATS_WINDOW_DAYS = 90;
const DAY_MS = 86_400_000;

export interface KeyListItem {
  key_id: string;
  key: string;
  kind: KeyRow['kind'];
  state: KeyRow['state'];
  primary: boolean;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  disabled_at: string | null;
}

export interface AgentCredential {
  key: string;
  key_id: string;
  expires_at: string;
  expires_in: number;
  parent_key_id: string;
  rotated: boolean;
}

/** Masks a key for listings: the first 4 and last 4 characters only. */
export const keyHint = (key: string) => `${key.slice(0, 4)}…${key.slice(-4)}`;

const TOUCH_INTERVAL_MS = 60_000;
const UNAUTHORIZED = 'X-API-Key is unknown, disabled, expired or not yet verified';

/**
 * Users, keys, plans and credits (`engine.accounts`). Every method that reads or writes the account
 * stores is written once as work of the account side (store/account-side.ts): on SQLite it runs
 * synchronously (inside one transaction where it needs one), on PostgreSQL awaited. The engine's
 * operations call the `…Async` methods, which run on both; the plain ones are synchronous, for SQLite
 * only (tests, benchmarks, research's settle).
 */
export class Accounts {
  readonly history: History;
  readonly credits: Credits;
  readonly plans: Record<PlanName, Plan>;
  private readonly lastTouched = new Map<string, number>();
  private readonly regenerated = new Set<(userId: string, key: string, isOwner: boolean) => void>();
  /**
   * Each user as this process last read them while authenticating a request: the access rule asks
   * synchronously whether a user is the owner and which address they proved, and on PostgreSQL it is
   * answered from here (the request being served has just read its own user).
   */
  private readonly seen = new Map<string, Readonly<Pick<UserRow, 'id' | 'is_owner' | 'email' | 'email_proven_at'>>>();

  constructor(readonly side: AccountSide, readonly config: AccountsConfig = {}, readonly log: Logger = silentLogger) {
    this.history = new History(side);
    this.plans = planTable(config.plans);
    this.credits = new Credits(side, this.history, (user) => this.allowanceOf(user));
  }

  /** The users, keys and ledger store, as the account side's work sees it (SQLite: values; PostgreSQL: promises). */
  private get data(): Either<AccountsStore> {
    return this.side.stores.accounts;
  }

  /** The users, keys and ledger store, synchronous (SQLite only: tests, benchmarks). */
  get store(): AccountsStore {
    return this.side.syncStores.accounts;
  }

  planOf(name: string): Plan {
    return this.plans[name as PlanName] ?? this.plans.FREE;
  }

  /** The credits a user may spend in total: their own limit when set, else their plan's. */
  /** The credits a user may use: their own limit, or their plan's (0 for no user). */
  private allowanceOf(user: UserRow | undefined): number {
    if (!user) return 0;
    return user.credit_limit ?? this.planOf(user.plan).credits;
  }

  /** The user as the last authentication in this process read them (see `seen`). */
  seenUser(userId: string): Readonly<Pick<UserRow, 'id' | 'is_owner' | 'email' | 'email_proven_at'>> | undefined {
    return this.seen.get(userId);
  }

  private see(user: UserRow): void {
    this.seen.set(user.id, { id: user.id, is_owner: user.is_owner, email: user.email, email_proven_at: user.email_proven_at });
  }

  /**
   * Makes sure the machine's owner exists with a usable key. Returns the plaintext key when one is
   * known: the seed (LOUPE_API_KEY) or a key created now. Keys are stored only as hashes.
   */
  ensureOwner(seedKey?: string): { userId: string; createdKey: string | null } {
    checkSeed(seedKey);
    return this.side.transactionSync(() => this.ensureOwnerWork(seedKey));
  }

  /**
   * ensureOwner() on either backend. Two nodes starting at once on one PostgreSQL both find no owner
   * (or no seeded key) and both insert; the database keeps one (`users_one_owner`, the key hash's
   * unique constraint) and refuses the other's whole transaction, which then runs again and reads
   * what the first node made.
   */
  async ensureOwnerAsync(seedKey?: string, options: { keyLater?: boolean } = {}): Promise<{ userId: string; createdKey: string | null }> {
    checkSeed(seedKey);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.side.transaction(() => this.ensureOwnerWork(seedKey, options.keyLater));
      } catch (error) {
        if (attempt >= 3 || !this.side.isConflict(error)) throw error;
      }
    }
  }

  /** `keyLater`: no seed now and none minted (the seed follows); the owner may be left without a key. */
  private *ensureOwnerWork(seedKey?: string, keyLater = false): Work<{ userId: string; createdKey: string | null }> {
    let owner = yield* sq(this.data.owner());
    if (!owner) {
      const id = newId();
      yield* sq(this.data.insertUser({ id, email: null, display_name: 'Owner', plan: this.config.owner?.plan ?? 'ENTERPRISE', is_owner: 1 }));
      owner = (yield* sq(this.data.owner()))!;
    }
    if (this.config.owner?.plan && owner.plan !== this.config.owner.plan) yield* sq(this.data.setUserPlan(owner.id, this.config.owner.plan));
    if (this.config.owner?.credits !== undefined && owner.credit_limit !== this.config.owner.credits) {
      yield* sq(this.data.setCreditLimit(owner.id, this.config.owner.credits));
    }
    if (seedKey) {
      const existing = yield* sq(this.data.keyByHash(sha256(seedKey.toLowerCase())));
      if (existing && existing.user_id !== owner.id) {
        throw new LoupeError('CONFLICT', 'LOUPE_API_KEY: this key belongs to another user');
      }
      if (!existing) yield* this.addKeyWork(owner.id, seedKey.toLowerCase(), 'active');
      else if (existing.state !== 'active') yield* sq(this.data.setKeyState(existing.id, 'active'));
      return { userId: owner.id, createdKey: null };
    }
    if (keyLater) return { userId: owner.id, createdKey: null };
    const keys = yield* sq(this.data.keysOf(owner.id));
    if (keys.some((k) => k.state === 'active' && k.kind === 'primary')) return { userId: owner.id, createdKey: null };
    const key = newId();
    yield* this.addKeyWork(owner.id, key, 'active');
    return { userId: owner.id, createdKey: key };
  }

  addKey(userId: string, plaintext: string, state: 'agent_pending' | 'active', extra: NewKeyExtra = {}): string {
    return this.side.runSync(() => this.addKeyWork(userId, plaintext, state, extra));
  }

  addKeyAsync(userId: string, plaintext: string, state: 'agent_pending' | 'active', extra: NewKeyExtra = {}): Promise<string> {
    return this.side.run(() => this.addKeyWork(userId, plaintext, state, extra));
  }

  *addKeyWork(userId: string, plaintext: string, state: 'agent_pending' | 'active', extra: NewKeyExtra = {}): Work<string> {
    const id = newId();
    yield* sq(this.data.insertKey({
      id, user_id: userId, key_hash: sha256(plaintext.toLowerCase()), key_hint: keyHint(plaintext), state,
      is_primary: extra.is_primary ?? (extra.kind && extra.kind !== 'primary' ? 0 : 1), kind: extra.kind ?? 'primary',
      expires_at: extra.expires_at ?? null, parent_key_id: extra.parent_key_id ?? null,
    }));
    return id;
  }

  /** Resolves an X-API-Key header to its caller, or throws 401. */
  authenticate(header: string | undefined): Caller {
    return this.side.runSync(() => this.authenticateWork(header));
  }

  authenticateAsync(header: string | undefined): Promise<Caller> {
    return this.side.run(() => this.authenticateWork(header));
  }

  private *authenticateWork(header: string | undefined): Work<Caller> {
    if (!header) throw new LoupeError('UNAUTHORIZED', 'X-API-Key header is required');
    const key = header.trim().toLowerCase();
    if (!isUuid(key)) throw new LoupeError('UNAUTHORIZED', 'X-API-Key is not a valid key');
    const hash = sha256(key);
    // The key and its user in one read (one round trip on PostgreSQL).
    const found = yield* sq(this.data.keyAndUserByHash(hash));
    const row = found?.key;
    if (!row || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex')) || !(yield* this.usable(row))) {
      throw new LoupeError('UNAUTHORIZED', UNAUTHORIZED);
    }
    const user = found.user;
    if (!user) throw new LoupeError('UNAUTHORIZED', UNAUTHORIZED);
    this.see(user);
    const now = Date.now();
    if ((this.lastTouched.get(row.id) ?? 0) + TOUCH_INTERVAL_MS < now) {
      this.lastTouched.set(row.id, now);
      yield* sq(this.data.touchKey(row.id));
    }
    return { userId: user.id, keyId: row.id, plan: user.plan, isOwner: user.is_owner === 1 };
  }

  /** The caller a session stands for (auth.ts reads the session; this reads its key and user). */
  *callerOfKeyWork(keyId: string, userId: string): Work<Caller | null> {
    const key = yield* sq(this.data.key(keyId));
    const user = yield* sq(this.data.user(userId));
    if (!key || key.state !== 'active' || !user) return null;
    this.see(user);
    return { userId: user.id, keyId: key.id, plan: user.plan, isOwner: user.is_owner === 1 };
  }

  /** Active, not expired, and (for an agent credential) its parent key still active. */
  private *usable(row: KeyRow): Work<boolean> {
    if (row.state !== 'active') return false;
    if (row.expires_at && row.expires_at <= nowIso()) return false;
    if (row.parent_key_id) {
      const parent = yield* sq(this.data.key(row.parent_key_id));
      if (!parent || !(yield* this.usable(parent))) return false;
    }
    return true;
  }

  private *metaWork(userId: string): Work<UsageMeta> {
    const user = yield* sq(this.data.user(userId));
    const balance = yield* this.credits.balanceWork(userId);
    return this.usage(user?.plan ?? 'FREE', balance);
  }

  meta(userId: string): UsageMeta {
    return this.side.runSync(() => this.metaWork(userId));
  }

  metaAsync(userId: string): Promise<UsageMeta> {
    return this.side.run(() => this.metaWork(userId));
  }

  /** The meta fields for a caller whose balance is already known (a settled charge reports it). */
  usage(planName: string, balance: Balance): UsageMeta {
    const plan = this.planOf(planName);
    return { tier: plan.name, credits_used: balance.used, credits_remaining: balance.remaining, max_repos_allowed: plan.maxRepos };
  }

  /** Throws 403 PLAN_REQUIRED naming the plan needed when the caller's plan is below `minimum`. */
  requirePlan(caller: Caller, minimum: PlanName, feature: string): void {
    if (!planAtLeast(caller.plan, minimum)) {
      throw new LoupeError('PLAN_REQUIRED', `${feature} needs the ${minimum} plan or higher; your plan is ${this.planOf(caller.plan).name}`);
    }
  }

  /** Throws 403 PLAN_REQUIRED when the caller's plan does not include documentation depth `depth`. */
  requireDepth(caller: Caller, depth: DocDepth): void {
    const plan = this.planOf(caller.plan);
    if (plan.depths.includes(depth)) return;
    const needed = lowestPlanWith(this.plans, (p) => p.depths.includes(depth));
    throw new LoupeError('PLAN_REQUIRED', `fields: the ${depth} depth needs the ${needed ?? 'a higher'} plan or higher; your plan is ${plan.name}`, { field: 'fields' });
  }

  /** Whether symbols are included for the caller (plans gate them; they are left out, not refused). */
  includesSymbols(caller: Caller): boolean {
    return this.planOf(caller.plan).symbols;
  }

  /** Throws 403 REPO_LIMIT_REACHED naming the plan needed when `count` repositories already fill the plan. */
  checkRepoCap(caller: Caller, count: number): void {
    const plan = this.planOf(caller.plan);
    if (count < plan.maxRepos) return;
    const needed = lowestPlanWith(this.plans, (p) => p.maxRepos > count);
    throw new LoupeError('REPO_LIMIT_REACHED',
      `the ${plan.name} plan allows ${plan.maxRepos} indexed repositories; ${needed ? `the ${needed} plan allows ${this.plans[needed].maxRepos}` : 'remove one first'}`);
  }

  /** The configured cost of an operation, or the route's default. */
  costOf(operation: string, fallback: number): number {
    return this.config.costs?.[operation] ?? fallback;
  }

  reserve(userId: string, credits: number, operation: string): Reservation {
    return this.credits.reserve(userId, credits, operation);
  }

  reserveAsync(userId: string, credits: number, operation: string): Promise<Reservation> {
    return this.credits.reserveAsync(userId, credits, operation);
  }

  /** Operation writes + charge + history row, one transaction. See Credits.settle (SQLite only). */
  settle<T = undefined>(charge: Charge, effect?: () => T): Settled<T> {
    return this.credits.settle(charge, effect);
  }

  settleAsync<T = undefined>(charge: Charge, effect?: () => T): Promise<Settled<T>> {
    return this.credits.settleAsync(charge, effect);
  }

  /** settle() with group commit (Credits.settleSoon): for answers that wait for the commit anyway. */
  settleSoon<T = undefined>(charge: Charge, effect?: () => T): Promise<Settled<T>> {
    return this.credits.settleSoon(charge, effect);
  }

  /** Takes back a settled charge and its history row (a call that did not succeed after all). */
  refund(settled: Pick<Settled<unknown>, 'ledger' | 'history'>): void {
    this.credits.refund(settled);
  }

  refundAsync(settled: Pick<Settled<unknown>, 'ledger' | 'history'>): Promise<void> {
    return this.credits.refundAsync(settled);
  }

  /** Records the cost of a completed operation. Prefer settle(), which also checks the balance. */
  charge(userId: string, operation: string, credits: number): void {
    this.settle({ userId, operation, credits });
  }

  // ---- keys ----

  /**
   * A page of the user's keys, newest first. Agent credentials that expired over a day ago are left
   * out (an agent refreshing every few minutes would otherwise bury the rest) and purged.
   */
  listKeys(userId: string, limit = 100, offset = 0): { items: KeyListItem[]; total: number } {
    return this.side.runSync(() => this.listKeysWork(userId, limit, offset));
  }

  listKeysAsync(userId: string, limit = 100, offset = 0): Promise<{ items: KeyListItem[]; total: number }> {
    return this.side.run(() => this.listKeysWork(userId, limit, offset));
  }

  private *listKeysWork(userId: string, limit: number, offset: number): Work<{ items: KeyListItem[]; total: number }> {
    const now = nowIso();
    const dayAgo = new Date(Date.now() - 86_400_000).toISOString();
    const page = yield* sq(this.data.keysPage(userId, dayAgo, limit, offset));
    return { total: page.total, items: page.items.map((k) => this.listItem(k, now)) };
  }

  private listItem(k: KeyRow, now: string): KeyListItem {
    return {
      key_id: k.id, key: k.key_hint, kind: k.kind,
      state: k.state === 'active' && k.expires_at && k.expires_at <= now ? 'disabled' : k.state,
      primary: k.is_primary === 1, created_at: k.created_at, last_used_at: k.last_used_at, expires_at: k.expires_at, disabled_at: k.disabled_at,
    };
  }

  /** Called after a primary key is regenerated (the engine rewrites DATA_DIR/owner-key for the owner). */
  onRegenerated(listener: (userId: string, key: string, isOwner: boolean) => void): () => void {
    this.regenerated.add(listener);
    return () => this.regenerated.delete(listener);
  }

  /** A new primary key; the previous primary key (and its agent credentials) stop working. */
  regenerate(userId: string): RegeneratedKey {
    return this.announce(userId, this.side.transactionSync(() => this.regenerateWork(userId)));
  }

  async regenerateAsync(userId: string): Promise<RegeneratedKey> {
    return this.announce(userId, await this.side.transaction(() => this.regenerateWork(userId)));
  }

  private *regenerateWork(userId: string): Work<RegeneratedKey & { isOwner: boolean }> {
    const old = (yield* sq(this.data.primaryKeys(userId))).map((k) => k.id);
    for (const id of old) yield* sq(this.data.disableKey(id));
    const key = newId();
    const keyId = yield* this.addKeyWork(userId, key, 'active');
    const isOwner = (yield* sq(this.data.user(userId)))?.is_owner === 1;
    return { key, key_id: keyId, key_state: 'active' as const, replaced_key_ids: old, isOwner };
  }

  private announce(userId: string, { isOwner, ...result }: RegeneratedKey & { isOwner: boolean }): RegeneratedKey {
    for (const listener of this.regenerated) listener(userId, result.key, isOwner);
    return result;
  }

  /** Disables one of the caller's keys; another user's key id is a 404 (it does not exist for them). */
  disableKey(userId: string, keyId: string): KeyListItem {
    return this.side.runSync(() => this.disableKeyWork(userId, keyId));
  }

  disableKeyAsync(userId: string, keyId: string): Promise<KeyListItem> {
    return this.side.run(() => this.disableKeyWork(userId, keyId));
  }

  private *disableKeyWork(userId: string, keyId: string): Work<KeyListItem> {
    const row = isUuid(keyId) ? yield* sq(this.data.key(keyId.toLowerCase())) : undefined;
    if (!row || row.user_id !== userId) throw notFound('key');
    yield* sq(this.data.disableKey(row.id));
    return this.listItem((yield* sq(this.data.key(row.id)))!, nowIso());
  }

  /**
   * Keeps the accounts database bounded: ledger rows from before the statistics window (whole UTC
   * days more than 90 days back) become one row per user, operation and day, and history rows older
   * than the retention go (with conversations left empty). Balances and statistics do not change.
   */
  maintain(now: number = Date.now()): { ledgerRowsMerged: number; historyRowsDeleted: number } {
    return this.side.transactionSync(() => this.maintainWork(now));
  }

  maintainAsync(now: number = Date.now()): Promise<{ ledgerRowsMerged: number; historyRowsDeleted: number }> {
    return this.side.transaction(() => this.maintainWork(now));
  }

  private *maintainWork(now: number): Work<{ ledgerRowsMerged: number; historyRowsDeleted: number }> {
    const windowStart = Math.floor((now - STATS_WINDOW_DAYS * DAY_MS) / DAY_MS) * DAY_MS;
    const retention = this.config.historyRetentionDays ?? HISTORY_RETENTION_DAYS;
    const ledgerRowsMerged = yield* sq(this.data.compactLedger(new Date(windowStart).toISOString()));
    const historyRowsDeleted = retention > 0 ? yield* sq(this.history.data.purgeBefore(new Date(now - retention * DAY_MS).toISOString())) : 0;
    return { ledgerRowsMerged, historyRowsDeleted };
  }

  /**
   * A short-lived credential derived from the caller's key, usable as X-API-Key until it expires
   * or its parent key is disabled. Each call mints a fresh one (only hashes are stored, so a live
   * credential's plaintext cannot be handed out again); earlier ones stay valid until they expire
   * unless `rotate` is set, which disables them at once.
   */
  agentCredential(caller: Caller, rotate: boolean): AgentCredential {
    return this.side.transactionSync(() => this.agentCredentialWork(caller, rotate));
  }

  agentCredentialAsync(caller: Caller, rotate: boolean): Promise<AgentCredential> {
    return this.side.transaction(() => this.agentCredentialWork(caller, rotate));
  }

  private *agentCredentialWork(caller: Caller, rotate: boolean): Work<AgentCredential> {
    const ttl = this.config.agentCredentialTtlMs ?? 15 * 60_000;
    const cap = this.config.maxLiveAgentCredentials ?? 10;
    const now = nowIso();
    // Expired credentials (and sign-in keys) can never work again: a day after expiry they go.
    yield* sq(this.data.purgeExpiredKeys(new Date(Date.now() - 86_400_000).toISOString()));
    const callerKey = (yield* sq(this.data.key(caller.keyId)))!;
    // An agent credential refreshes from its own parent, so chains never grow.
    const parentId = callerKey.kind === 'agent' && callerKey.parent_key_id ? callerKey.parent_key_id : callerKey.id;
    const live = yield* sq(this.data.liveAgentKeys(parentId, now));
    if (rotate) for (const k of live) yield* sq(this.data.disableKey(k.id));
    // A bound on live credentials per user: each is a key (with its own last-used writes and,
    // before streams were counted per user, its own stream slots).
    const userLive = yield* sq(this.data.liveAgentKeysOf(caller.userId, now));
    if (userLive.length >= cap) {
      const seconds = Math.max(1, Math.ceil((Date.parse(userLive[0].expires_at!) - Date.now()) / 1000));
      throw new LoupeError('RATE_LIMITED',
        `${userLive.length} agent credentials of yours are live (at most ${cap}); reuse one, pass rotate: true to replace those of this key, or wait ${seconds} s for the oldest to expire`,
        { retry_after: seconds }, { 'Retry-After': String(seconds) });
    }
    const key = newId();
    const expires = new Date(Date.now() + ttl).toISOString();
    const keyId = yield* this.addKeyWork(caller.userId, key, 'active', { kind: 'agent', expires_at: expires, parent_key_id: parentId, is_primary: 0 });
    return { key, key_id: keyId, expires_at: expires, expires_in: Math.round(ttl / 1000), parent_key_id: parentId, rotated: rotate && live.length > 0 };
  }
}

export type NewKeyExtra = Partial<Pick<KeyRow, 'kind' | 'expires_at' | 'parent_key_id' | 'is_primary'>>;

export interface RegeneratedKey { key: string; key_id: string; key_state: 'active'; replaced_key_ids: string[] }

function checkSeed(seedKey: string | undefined): void {
  if (seedKey !== undefined && !isUuid(seedKey)) {
    throw new LoupeError('VALIDATION_FAILED', 'LOUPE_API_KEY: must be a UUID');
  }
}
