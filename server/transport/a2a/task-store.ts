import type { Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore, User } from '@a2a-js/sdk/server';
import type { Caller } from '../../engine/operations';
import type { A2aTaskOperations } from '../../engine/operations/a2a-tasks';
import { isUuid } from '../../engine/operations';
import { credentialHeaders, isCredentialHeader, type Credential } from '../common/credentials';

/**
 * Who is calling over A2A: the user behind the credential found on the request (X-API-Key or
 * Authorization: Bearer, as HTTP headers, in a data part's headers, or as metadata.apiKey), or
 * nobody. Tasks belong to this user. `secretHeaders` are the credential headers of the message's
 * operation (a password for sign-in, say): they go to the operation, never into the task.
 */
export class A2aUser implements User {
  constructor(readonly caller: Caller | null, readonly credential: Credential | undefined, readonly secretHeaders: Record<string, string> = {},
    /** message/stream: answers are published in chunks as they are written. */
    readonly streaming = false) {}
  get isAuthenticated(): boolean {
    return this.caller !== null;
  }
  get userName(): string {
    return this.caller?.userId ?? '';
  }
  /** The headers that present the caller's credential to an HTTP route. */
  get authHeaders(): Record<string, string> {
    return credentialHeaders(this.credential);
  }
}

export const ownerOf = (context?: ServerCallContext): string | null =>
  context?.user instanceof A2aUser ? context.user.caller?.userId ?? null : null;

const TERMINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);
export const REDACTED = '[redacted]';

/** Names whose string values are secrets wherever they appear in a stored task. */
const SECRET_FIELD = /^(access_token|refresh_token|session_token|id_token|token|password|secret|client_secret|api_key|apikey)$/i;

/**
 * The task as stored: no credential header, no metadata.apiKey, and no key, password or session
 * token in any artifact or message (a sign-in's answer carries them; the live response may, the
 * store never does).
 */
export function storedJson(task: Task): string {
  return JSON.stringify(task, function redact(this: unknown, name: string, value: unknown) {
    if (name === 'headers' && value && typeof value === 'object' && !Array.isArray(value)) {
      return Object.fromEntries(Object.entries(value).filter(([header]) => !isCredentialHeader(header)));
    }
    if (name === 'apiKey') return undefined;
    if (typeof value === 'string') {
      if (SECRET_FIELD.test(name)) return REDACTED;
      // Plaintext keys are UUIDs handed out under `key` (keys/regenerate, agent credentials, sign-up).
      if (name === 'key' && isUuid(value.toLowerCase())) return REDACTED;
    }
    return value;
  });
}

export interface TaskRetention {
  /** Tasks of a user are deleted this long after their last update. */
  userTtlMs: number;
  /** Tasks created without a key wait this long for their creator at most. */
  anonymousTtlMs: number;
  /** The newest tasks kept per user; older ones are deleted when a new one starts. */
  maxPerUser: number;
  /** The most waiting anonymous tasks kept at once (all callers without a key together). */
  maxAnonymous: number;
}

export const DEFAULT_RETENTION: TaskRetention = {
  userTtlMs: 30 * 24 * 3_600_000,
  anonymousTtlMs: 10 * 60_000,
  maxPerUser: 1_000,
  maxAnonymous: 200,
};

/**
 * The SDK's TaskStore on SQLite: tasks survive a restart, and a task is only ever loaded for the
 * user who created it (anyone else gets "task not found", as if it did not exist).
 *
 * A task created without a key is stored only while it waits for its creator (input-required,
 * working), to be continued or canceled; once it ends it is deleted, so its result (a sign-in's
 * new key, say) is in the response and nowhere else. The SDK reads a task again while answering
 * the same request, so an ended anonymous task stays readable for that request's context only.
 */
export class SqliteTaskStore implements TaskStore {
  private readonly endedAnonymous = new WeakMap<ServerCallContext, Map<string, string>>();
  private lastSweep = 0;

  constructor(private readonly store: A2aTaskOperations, private readonly retention: TaskRetention = DEFAULT_RETENTION, private readonly now: () => number = Date.now) {}

  async save(task: Task, context?: ServerCallContext): Promise<void> {
    const owner = ownerOf(context);
    const json = storedJson(task);
    if (owner === null && TERMINAL.has(task.status.state)) {
      if (context) {
        const ended = this.endedAnonymous.get(context) ?? new Map<string, string>();
        ended.set(task.id, json);
        this.endedAnonymous.set(context, ended);
      }
      await this.store.delete(task.id, null);
      return;
    }
    await this.store.save({ id: task.id, ownerUserId: owner, contextId: task.contextId, state: task.status.state, json });
  }

  async load(taskId: string, context?: ServerCallContext): Promise<Task | undefined> {
    if (typeof taskId !== 'string') return undefined;
    await this.sweep();
    const owner = ownerOf(context);
    const ended = owner === null && context ? this.endedAnonymous.get(context)?.get(taskId) : undefined;
    if (ended) return JSON.parse(ended) as Task;
    const row = await this.store.load(taskId, owner);
    return row ? (JSON.parse(row.json) as Task) : undefined;
  }

  /**
   * Makes room before a caller starts a new task: expired tasks go (checked at most once a
   * minute), and the caller's oldest beyond the cap.
   */
  async beforeNewTask(context: ServerCallContext): Promise<void> {
    await this.sweep();
    const owner = ownerOf(context);
    await this.store.keepNewest(owner, (owner === null ? this.retention.maxAnonymous : this.retention.maxPerUser) - 1);
  }

  /** Deletes expired tasks, at most once a minute (a task read after its retention is gone). */
  private async sweep(): Promise<void> {
    const now = this.now();
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    await this.store.expire(new Date(now - this.retention.userTtlMs).toISOString(), new Date(now - this.retention.anonymousTtlMs).toISOString());
  }
}
