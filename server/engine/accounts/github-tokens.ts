import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { LoupeError } from '../errors';
import type { GithubTokenRow } from '../store/accounts-store';
import { sq, type AccountSide, type Work } from '../store/account-side';
import type { Caller } from './accounts';

export interface GithubConfig {
  /** The server's GITHUB_TOKEN: the owner's, never used for anyone else. */
  serverToken?: string;
  /** GitHub's REST API (GITHUB_API_URL; default https://api.github.com). */
  apiUrl?: string;
}

export interface GithubLink {
  linked: boolean;
  /** The GitHub account the token belongs to, as GitHub named it when it was linked. */
  login: string | null;
  /** The token's last four characters. */
  token_hint: string | null;
  linked_at: string | null;
}

/** A repository as the GitHub API shows it to one token: readable (and whether private) or not. */
export type RepoProbe = { readable: true; private: boolean } | { readable: false };

/**
 * GitHub tokens: the server's (GITHUB_TOKEN) belongs to the owner; every other user links their own
 * (PUT /v2/keys/github-token), and their private repositories are probed and cloned with it. A
 * linked token is stored sealed with AES-256-GCM under a key kept in DATA_DIR/token-key (mode 0600),
 * never returned, logged or written anywhere else.
 */
export class GithubTokens {
  private key: Buffer | null = null;

  constructor(private readonly side: AccountSide, private readonly dataDir: string, private readonly config: GithubConfig = {}) {}

  private *row(userId: string): Work<GithubTokenRow | undefined> {
    return yield* sq(this.side.stores.accounts.githubToken(userId));
  }

  get apiBase(): string {
    return (this.config.apiUrl ?? 'https://api.github.com').replace(/\/$/, '');
  }

  /**
   * The token to use for this caller: the owner's is GITHUB_TOKEN (else their linked one); anyone
   * else's only their linked one. Synchronous, for the index side's callers (repositories, analysis):
   * with the accounts on PostgreSQL it answers the server's token only (a linked one needs tokenForAsync).
   */
  tokenFor(caller: Pick<Caller, 'userId' | 'isOwner'>): string | undefined {
    if (caller.isOwner && this.config.serverToken) return this.config.serverToken;
    if (this.side.backend !== 'sqlite') return undefined;
    const row = this.side.runSync(() => this.row(caller.userId));
    return row ? this.open(row.sealed) : undefined;
  }

  async tokenForAsync(caller: Pick<Caller, 'userId' | 'isOwner'>): Promise<string | undefined> {
    if (caller.isOwner && this.config.serverToken) return this.config.serverToken;
    const row = await this.side.run(() => this.row(caller.userId));
    return row ? this.open(row.sealed) : undefined;
  }

  async status(userId: string): Promise<GithubLink> {
    const row = await this.side.run(() => this.row(userId));
    return row ? { linked: true, login: row.login, token_hint: row.hint, linked_at: row.linked_at } : { linked: false, login: null, token_hint: null, linked_at: null };
  }

  /** Checks the token with GitHub (GET /user), then stores it sealed; a token GitHub refuses is a 400 and nothing is stored. */
  async link(userId: string, token: string): Promise<GithubLink> {
    const trimmed = token.trim();
    if (!/^[A-Za-z0-9_.-]{8,255}$/.test(trimmed)) throw new LoupeError('VALIDATION_FAILED', 'token: must be a GitHub token (letters, digits, _ . -)', { field: 'token' });
    const res = await this.api('/user', trimmed);
    if (res.status === 401 || res.status === 403) throw new LoupeError('VALIDATION_FAILED', 'token: GitHub refused this token; nothing was stored', { field: 'token' });
    if (res.status !== 200) throw new LoupeError('SERVICE_UNAVAILABLE', `GitHub answered ${res.status}; nothing was stored: retry later`);
    const login = typeof (res.body as { login?: unknown })?.login === 'string' ? String((res.body as { login: string }).login).slice(0, 100) : null;
    await this.side.stores.accounts.setGithubToken({ user_id: userId, sealed: this.seal(trimmed), hint: trimmed.slice(-4), login });
    return this.status(userId);
  }

  async unlink(userId: string): Promise<GithubLink> {
    await this.side.stores.accounts.deleteGithubToken(userId);
    return this.status(userId);
  }

  /** What `token` (or no token) may see of owner/name: GET /repos/{owner}/{name}; GitHub answers 404 for a repository the token may not read. */
  async probe(owner: string, name: string, token: string | undefined): Promise<RepoProbe> {
    const res = await this.api(`/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`, token);
    if (res.status === 200) return { readable: true, private: (res.body as { private?: unknown })?.private === true };
    if (res.status === 404 || res.status === 401 || res.status === 403) return { readable: false };
    throw new LoupeError('SERVICE_UNAVAILABLE', `GitHub answered ${res.status}`);
  }

  private async api(pathname: string, token: string | undefined): Promise<{ status: number; body: unknown }> {
    const headers: Record<string, string> = { accept: 'application/vnd.github+json', 'user-agent': 'loupe', 'x-github-api-version': '2022-11-28' };
    if (token) headers.authorization = `Bearer ${token}`;
    try {
      const res = await request(`${this.apiBase}${pathname}`, { headers, headersTimeout: 10_000, bodyTimeout: 10_000 });
      const text = await res.body.text();
      let body: unknown = null;
      try { body = JSON.parse(text); } catch { /* not JSON */ }
      return { status: res.statusCode, body };
    } catch (error) {
      throw new LoupeError('SERVICE_UNAVAILABLE', `GitHub could not be reached (${(error as Error).message.split('\n')[0].slice(0, 200)})`);
    }
  }

  private seal(token: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.secret(), iv);
    const sealed = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return `v1:${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${sealed.toString('base64')}`;
  }

  private open(sealed: string): string | undefined {
    const [version, iv, tag, data] = sealed.split(':');
    if (version !== 'v1') return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.secret(), Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      return undefined; // the key file was replaced: the user links the token again
    }
  }

  /** DATA_DIR/token-key: 32 random bytes, made on first use, readable by the owner only. */
  private secret(): Buffer {
    if (this.key) return this.key;
    const file = path.join(this.dataDir, 'token-key');
    try {
      this.key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    } catch {
      const key = randomBytes(32);
      try {
        fs.writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
        this.key = key;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        this.key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64'); // another process made it first
      }
    }
    if (this.key.length !== 32) throw new LoupeError('INTERNAL', `${file} is not a token key (32 bytes, base64)`);
    return this.key;
  }
}
