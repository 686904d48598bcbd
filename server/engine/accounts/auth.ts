import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import type { AuthStore } from '../store/auth-store';
import type { OtpRow } from '../store/auth-store';
import { sq, type AccountSide, type Either, type Work } from '../store/account-side';
import type { Logger } from '../log';
import { LoupeError } from '../errors';
import { newId, nowIso, sha256 } from '../util/ids';
import type { Accounts, Caller } from './accounts';
import { checkNewPassword, hashPassword, verifyPassword } from './passwords';
import { OutboxMailer, SmtpMailer, type Delivery, type MailMessage, type Mailer, type SmtpConfig } from './mailer';
import { RateLimiter, type RateRule } from './rate-limit';
import { storageError } from '../store/storage-errors';

export interface AuthConfig {
  /** SMTP settings; without them mail goes to DATA_DIR/outbox and the log. */
  smtp?: SmtpConfig;
  /** Session (and sign-in key) lifetime; default 30 days. */
  sessionTtlMs?: number;
  /** One-time code lifetime; default 10 minutes. */
  otpTtlMs?: number;
  /** Wrong guesses a code survives; default 5. */
  otpMaxAttempts?: number;
  /**
   * Password sign-up confirms the address with a code first (default true). Only then can the answer
   * to a sign-up of an address that has an account be the same as to a new one; false (keys active at
   * once) answers 409 to a known address, which tells that it has an account.
   */
  passwordSignupRequiresVerification?: boolean;
  /** Per-email and per-client limits for each auth route (defaults below). */
  rateLimits?: Partial<Record<'authenticate' | 'verify' | 'resend', { email: RateRule; client: RateRule }>>;
}

const TEN_MINUTES = 10 * 60_000;
const DEFAULT_LIMITS: Record<'authenticate' | 'verify' | 'resend', { email: RateRule; client: RateRule }> = {
  authenticate: { email: { max: 10, windowMs: TEN_MINUTES }, client: { max: 30, windowMs: TEN_MINUTES } },
  verify: { email: { max: 10, windowMs: TEN_MINUTES }, client: { max: 60, windowMs: TEN_MINUTES } },
  resend: { email: { max: 3, windowMs: TEN_MINUTES }, client: { max: 20, windowMs: TEN_MINUTES } },
};

/** The session object: an opaque bearer token and its expiry. Only its SHA-256 is stored. */
export interface Session {
  access_token: string;
  token_type: 'bearer';
  expires_at: string;
  expires_in: number;
  user_id: string;
}

export interface AuthResult {
  user_id: string | null;
  email: string;
  session: Session | null;
  verification_required: boolean;
  /** `key` is the plaintext, present only when this response is the one that hands it out. */
  api_key: { key?: string; key_id: string; key_state: 'agent_pending' | 'active' } | null;
}

export interface AuthenticateInput {
  mode: 'otp' | 'password';
  email: string;
  shouldCreateUser: boolean;
  data?: Record<string, unknown>;
  /** From X-Service-Auth-Password / X-Auth-Password only. */
  password?: string;
  /** The client's address, for rate limits. */
  client: string;
}

export type MailListener = (mail: MailMessage & Delivery) => void;

const WRONG_CODE = 'email or code is wrong, or the code has expired; ask for a new code with /v2/auth/resend';
const WRONG_PASSWORD = 'email or password is incorrect';

/**
 * API-first sign-up and sign-in (`engine.auth`). Codes and session tokens are stored hashed; a
 * wrong code, an expired code and an unknown address give the same 400; mail that cannot be sent
 * is a 503 that leaves every account row in place, so the caller may simply retry.
 */
export class Auth {
  private readonly mailer: Mailer;
  private readonly limiter = new RateLimiter();
  private readonly limits: typeof DEFAULT_LIMITS;
  private readonly listeners = new Set<MailListener>();

  constructor(
    private readonly side: AccountSide,
    private readonly accounts: Accounts,
    private readonly log: Logger,
    dataDir: string,
    private readonly config: AuthConfig = {},
  ) {
    this.mailer = config.smtp ? new SmtpMailer(config.smtp) : new OutboxMailer(path.join(dataDir, 'outbox'), log);
    this.limits = { ...DEFAULT_LIMITS, ...config.rateLimits };
  }

  private get store(): Either<AuthStore> {
    return this.side.stores.auth;
  }

  private get users() {
    return this.side.stores.accounts;
  }

  /** Called with every message sent (the extension shows outbox codes as a notification). */
  onMail(listener: MailListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.mailer.close?.();
  }

  /**
   * Each auth route is limited per email address (so one account's codes and password cannot be
   * guessed) and per client. A loopback client address names no one: every local process (the
   * editor, scripts, agents) is 127.0.0.1, so there the client's count is kept per address *and*
   * email, and one local caller spraying addresses cannot lock every other local caller out.
   */
  private limit(route: keyof typeof DEFAULT_LIMITS, email: string, client: string): void {
    const rule = this.limits[route];
    const clientKey = isLoopback(client) ? `${client}|${email}` : client;
    this.limiter.hit([[`${route}:email:${email}`, rule.email], [`${route}:client:${clientKey}`, rule.client]]);
  }

  async authenticate(input: AuthenticateInput): Promise<AuthResult> {
    const email = normalizeEmail(input.email);
    this.limit('authenticate', email, input.client);
    return input.mode === 'password' ? this.withPassword(email, input) : this.withCode(email, input);
  }

  private async withPassword(email: string, input: AuthenticateInput): Promise<AuthResult> {
    const field = 'header.X-Service-Auth-Password';
    if (input.password === undefined || input.password === '') {
      throw new LoupeError('VALIDATION_FAILED', `${field}: is required in password mode (the password is never sent in the body)`, { field: 'X-Service-Auth-Password' });
    }
    const existing = await this.users.userByEmail(email);
    if (input.shouldCreateUser) {
      checkNewPassword(input.password, field);
      const needsCode = this.config.passwordSignupRequiresVerification !== false;
      if (existing && needsCode) return this.signupOfKnownAddress(email, existing.id, input.password);
      if (existing) throw new LoupeError('CONFLICT', 'email: an account with this address exists; sign in with should_create_user false', { field: 'email' });
      const passwordHash = await hashPassword(input.password);
      const key = newId();
      const created = await this.inserting(() => this.signupWork(email, input, passwordHash, key, needsCode));
      if (!created && needsCode) return this.signupOfKnownAddress(email, null, null);
      if (!created) throw new LoupeError('CONFLICT', 'email: an account with this address exists; sign in with should_create_user false', { field: 'email' });
      if (needsCode) await this.sendCode(email, created.userId, 'signup', created.keyId);
      return {
        user_id: created.userId, email, session: created.session, verification_required: needsCode,
        api_key: { key, key_id: created.keyId, key_state: needsCode ? 'agent_pending' : 'active' },
      };
    }
    const valid = await verifyPassword(input.password, existing?.password_hash ?? null);
    // An address never confirmed (a sign-up waiting for its code) cannot sign in with the password alone.
    if (!existing || !valid || !existing.verified_at) throw new LoupeError('INVALID_CREDENTIALS', WRONG_PASSWORD);
    const key = newId();
    const signedIn = await this.side.transaction(() => this.openSession(existing.id, null, key));
    return {
      user_id: existing.id, email, session: signedIn.session, verification_required: false,
      api_key: { key, key_id: signedIn.keyId, key_state: 'active' },
    };
  }

  /**
   * A password sign-up of an address that already has an account answers exactly as a new sign-up
   * does (a user id, a pending key, a code on its way), so it does not tell that the account exists;
   * the id and key are made up and never stored, and nothing of the account changes. The address
   * gets a sign-in code instead (whoever owns it may use it), and the password is hashed anyway, so
   * the answer takes as long.
   */
  private async signupOfKnownAddress(email: string, userId: string | null, password: string | null): Promise<AuthResult> {
    if (password !== null) await hashPassword(password);
    const known = userId ?? (await this.users.userByEmail(email))?.id;
    if (known) await this.sendCode(email, known, 'signin', null);
    return {
      user_id: newId(), email, session: null, verification_required: true,
      api_key: { key: newId(), key_id: newId(), key_state: 'agent_pending' },
    };
  }

  private async withCode(email: string, input: AuthenticateInput): Promise<AuthResult> {
    if (input.password !== undefined) {
      throw new LoupeError('VALIDATION_FAILED', 'header.X-Service-Auth-Password: is only accepted in password mode', { field: 'X-Service-Auth-Password' });
    }
    const existing = await this.users.userByEmail(email);
    const unfinishedSignup = existing && !existing.verified_at && !existing.password_hash && existing.is_owner === 0;
    if (input.shouldCreateUser && (!existing || unfinishedSignup)) {
      // A new account, or one whose sign-up never finished (its code or mail was lost): hand out a
      // fresh pending key; the older pending keys are retired because their plaintext is gone.
      const key = newId();
      const made = await this.inserting(() => this.codeSignupWork(email, input, existing?.id, key));
      if (!made) return this.signupOfKnownAddress(email, null, null); // a parallel sign-up of this address won
      await this.sendCode(email, made.userId, 'signup', made.keyId);
      return { user_id: made.userId, email, session: null, verification_required: true, api_key: { key, key_id: made.keyId, key_state: 'agent_pending' } };
    }
    // A sign-up of an address that has an account answers as a new sign-up would (and mails a sign-in code).
    if (input.shouldCreateUser && existing) return this.signupOfKnownAddress(email, existing.id, null);
    // A returning account: a code is mailed if the address is known. The answer is the same either
    // way, so it does not tell who has an account; the key is minted at verify.
    if (existing) await this.sendCode(email, existing.id, 'signin', null);
    return { user_id: null, email, session: null, verification_required: true, api_key: null };
  }

  async verify(input: { email: string; token: string; client: string }): Promise<AuthResult> {
    const email = normalizeEmail(input.email);
    this.limit('verify', email, input.client);
    const maxAttempts = this.config.otpMaxAttempts ?? 5;
    const code = await this.store.liveOtp(email, nowIso(), maxAttempts);
    // Without a code the same hashing and comparison run, so timing does not tell the cases apart.
    const given = Buffer.from(codeHash(code?.id ?? 'none', input.token.trim()), 'hex');
    const matches = timingSafeEqual(given, code ? Buffer.from(code.code_hash, 'hex') : Buffer.alloc(given.length));
    if (!code) throw new LoupeError('INVALID_CODE', WRONG_CODE);
    if (!matches) {
      await this.store.countAttempt(code.id);
      throw new LoupeError('INVALID_CODE', WRONG_CODE);
    }
    const user = await this.users.user(code.user_id);
    const result = user ? await this.side.transaction(() => this.verifyWork(user.id, code)) : null;
    if (!result || !user) throw new LoupeError('INVALID_CODE', WRONG_CODE);
    return { user_id: user.id, email, session: result.session, verification_required: false, api_key: result.apiKey };
  }

  /**
   * `signup`: a new code for a sign-up that is not verified yet; `email`: a sign-in code. The answer
   * never says whether anything was sent.
   */
  async resend(input: { email: string; type: 'signup' | 'email_change' | 'email'; client: string }): Promise<void> {
    const email = normalizeEmail(input.email);
    this.limit('resend', email, input.client);
    if (input.type === 'email_change') {
      throw new LoupeError('BAD_REQUEST', 'type: email_change has nothing to confirm: Loupe accounts have no change-of-address flow', { field: 'type' });
    }
    const user = await this.users.userByEmail(email);
    if (!user) return;
    if (input.type === 'signup') {
      if (user.verified_at) return;
      const pending = (await this.users.keysOf(user.id)).find((k) => k.state === 'agent_pending' && k.kind === 'primary');
      await this.sendCode(email, user.id, 'signup', pending?.id ?? null);
      return;
    }
    await this.sendCode(email, user.id, 'signin', null);
  }

  /** Resolves `Authorization: Bearer <session token>` to a caller, or throws 401 (SQLite only: synchronous). */
  callerForSession(token: string): Caller {
    return this.side.runSync(() => this.callerForSessionWork(token));
  }

  callerForSessionAsync(token: string): Promise<Caller> {
    return this.side.run(() => this.callerForSessionWork(token));
  }

  private *callerForSessionWork(token: string): Work<Caller> {
    const row = yield* sq(this.store.sessionByHash(sha256(token.trim())));
    if (!row || row.expires_at <= nowIso() || !row.key_id) throw new LoupeError('UNAUTHORIZED', 'the session is unknown or has expired; sign in again');
    const caller = yield* this.accounts.callerOfKeyWork(row.key_id, row.user_id);
    if (!caller) throw new LoupeError('UNAUTHORIZED', 'the session\'s key is disabled; sign in again');
    return caller;
  }

  /**
   * Runs a sign-up's transaction; null when another request (or node) inserted the same address
   * first — the unique constraint on the address refused this one, and nothing of it was kept.
   */
  private async inserting<T>(work: () => Work<T | null>): Promise<T | null> {
    try {
      return await this.side.transaction(work);
    } catch (error) {
      if (this.side.isConflict(error)) return null;
      throw error;
    }
  }

  private *signupWork(email: string, input: AuthenticateInput, passwordHash: string, key: string, needsCode: boolean) {
    if (yield* sq(this.users.userByEmail(email))) return null; // a parallel sign-up won
    const userId = newId();
    yield* sq(this.users.insertUser({
      id: userId, email, display_name: displayName(input.data), plan: this.accounts.config.signupPlan ?? 'FREE', is_owner: 0,
      password_hash: passwordHash, profile: input.data ? JSON.stringify(input.data) : null,
    }));
    if (!needsCode) yield* sq(this.users.markVerified(userId));
    const keyId = yield* this.accounts.addKeyWork(userId, key, needsCode ? 'agent_pending' : 'active');
    return { userId, keyId, session: needsCode ? null : (yield* this.openSession(userId, keyId)).session };
  }

  private *codeSignupWork(email: string, input: AuthenticateInput, existingId: string | undefined, key: string): Work<{ userId: string; keyId: string }> {
    let userId = existingId;
    if (!userId) {
      userId = newId();
      yield* sq(this.users.insertUser({
        id: userId, email, display_name: displayName(input.data), plan: this.accounts.config.signupPlan ?? 'FREE', is_owner: 0,
        profile: input.data ? JSON.stringify(input.data) : null,
      }));
    } else {
      for (const k of yield* sq(this.users.keysOf(userId))) if (k.state === 'agent_pending') yield* sq(this.users.disableKey(k.id));
    }
    return { userId, keyId: yield* this.accounts.addKeyWork(userId, key, 'agent_pending') };
  }

  private *verifyWork(userId: string, code: OtpRow) {
    if (!(yield* sq(this.store.consumeOtp(code.id)))) return null;
    yield* sq(this.users.markVerified(userId));
    yield* sq(this.users.markEmailProven(userId));
    if (code.purpose === 'signup') {
      const pending = code.key_id ? yield* sq(this.users.key(code.key_id)) : undefined;
      if (pending?.state === 'agent_pending') yield* sq(this.users.setKeyState(pending.id, 'active'));
      const keyId = pending && pending.state !== 'disabled' ? pending.id : null;
      if (keyId) {
        const { session } = yield* this.openSession(userId, keyId);
        return { session, apiKey: { key_id: keyId, key_state: 'active' as const } as AuthResult['api_key'] };
      }
    }
    const key = newId();
    const opened = yield* this.openSession(userId, null, key);
    return { session: opened.session, apiKey: { key, key_id: opened.keyId, key_state: 'active' as const } as AuthResult['api_key'] };
  }

  /**
   * Opens a session. With `newKey`, also mints a sign-in key (kind `session`) that expires with it;
   * otherwise the session is tied to `keyId` (the primary key activated by sign-up). Runs inside the
   * caller's transaction.
   */
  private *openSession(userId: string, keyId: string | null, newKey?: string): Work<{ session: Session; keyId: string }> {
    const ttl = this.config.sessionTtlMs ?? 30 * 24 * 3_600_000;
    const expires = new Date(Date.now() + ttl).toISOString();
    const id = newKey ? yield* this.accounts.addKeyWork(userId, newKey, 'active', { kind: 'session', expires_at: expires, is_primary: 0 }) : keyId!;
    const token = randomBytes(32).toString('base64url');
    yield* sq(this.store.insertSession({ id: newId(), user_id: userId, token_hash: sha256(token), key_id: id, expires_at: expires }));
    return { session: { access_token: token, token_type: 'bearer', expires_at: expires, expires_in: Math.round(ttl / 1000), user_id: userId }, keyId: id };
  }

  /** A new code stored, the older ones of its address retired (and codes over a day old pruned). */
  private *storeCodeWork(row: Omit<OtpRow, 'attempts' | 'consumed_at' | 'created_at'>): Work<void> {
    yield* sq(this.store.prune(new Date(Date.now() - 86_400_000).toISOString()));
    yield* sq(this.store.retireOtps(row.email));
    yield* sq(this.store.insertOtp(row));
  }

  /**
   * Stores a new code (retiring older ones) and mails it. When the mail cannot be sent the code is
   * removed again and the call is a 503; the account and its keys stay as they are.
   */
  private async sendCode(email: string, userId: string, purpose: 'signup' | 'signin', keyId: string | null): Promise<void> {
    const ttl = this.config.otpTtlMs ?? TEN_MINUTES;
    const id = newId();
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await this.side.transaction(() => this.storeCodeWork({ id, email, user_id: userId, purpose, code_hash: codeHash(id, code), key_id: keyId, expires_at: new Date(Date.now() + ttl).toISOString() }));
    const minutes = Math.round(ttl / 60_000);
    const message: MailMessage = {
      to: email,
      subject: `Your Loupe code: ${code}`,
      text: `Your Loupe ${purpose === 'signup' ? 'sign-up' : 'sign-in'} code is ${code}.\n\n` +
        `It expires in ${minutes} minutes and works once. If you did not ask for it, ignore this message.\n`,
    };
    let delivery: Delivery;
    try {
      delivery = await this.mailer.send(message);
    } catch (error) {
      try {
        await this.store.deleteOtp(id);
      } catch {
        // The same full disk may refuse this too; the code expires unread.
      }
      this.log.warn(`could not send mail to ${email}: ${(error as Error).message}`);
      // The outbox on a full (or read-only) disk is the machine's failure, not the mail service's.
      const machine = this.mailer instanceof OutboxMailer ? storageError(error, this.mailer.dir) : null;
      if (machine) throw machine;
      throw new LoupeError('SERVICE_UNAVAILABLE', 'the mail service is unavailable; nothing was lost: retry in a moment', undefined, { 'Retry-After': '30' });
    }
    for (const listener of this.listeners) listener({ ...message, ...delivery });
  }
}

const codeHash = (id: string, code: string) => sha256(`${id}:${code}`);

const isLoopback = (address: string) => /^(127\.|::1$|::ffff:127\.)/.test(address) || address === 'unknown';

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

function displayName(data?: Record<string, unknown>): string | null {
  const name = data?.full_name ?? data?.name ?? data?.display_name;
  return typeof name === 'string' ? name.slice(0, 200) : null;
}
