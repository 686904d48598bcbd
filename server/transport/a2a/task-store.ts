import type { Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore, User } from '@a2a-js/sdk/server';
import type { Caller } from '../../engine/accounts/accounts';
import type { A2aTasksStore } from '../../engine/store/a2a-tasks-store';

/**
 * Who is calling over A2A: the user behind the key found on the request (X-API-Key, the message's
 * metadata.apiKey, or a data part's headers), or nobody. Tasks belong to this user.
 */
export class A2aUser implements User {
  constructor(readonly caller: Caller | null, readonly apiKey: string | undefined) {}
  get isAuthenticated(): boolean {
    return this.caller !== null;
  }
  get userName(): string {
    return this.caller?.userId ?? '';
  }
}

export const ownerOf = (context?: ServerCallContext): string | null =>
  context?.user instanceof A2aUser ? context.user.caller?.userId ?? null : null;

/**
 * The SDK's TaskStore on SQLite: tasks survive a restart, and a task is only ever loaded for the
 * user who created it (anyone else gets "task not found", as if it did not exist).
 */
export class SqliteTaskStore implements TaskStore {
  constructor(private readonly store: A2aTasksStore) {}

  async save(task: Task, context?: ServerCallContext): Promise<void> {
    this.store.save({ id: task.id, ownerUserId: ownerOf(context), contextId: task.contextId, state: task.status.state, json: JSON.stringify(task) });
  }

  async load(taskId: string, context?: ServerCallContext): Promise<Task | undefined> {
    if (typeof taskId !== 'string') return undefined;
    const row = this.store.load(taskId, ownerOf(context));
    return row ? (JSON.parse(row.json) as Task) : undefined;
  }
}
