import type { StoredA2aTask } from '../store/a2a-tasks-store';
import type { EngineParts } from './parts';

export type { StoredA2aTask };

/** The A2A transport's task persistence: a task is only ever loaded for the user who created it. */
export class A2aTaskOperations {
  constructor(private readonly e: EngineParts) {}

  /** Inserts or replaces a task; the owner is fixed by the first save. */
  async save(task: StoredA2aTask): Promise<void> {
    await this.e.a2aTasks.save(task);
  }

  /** The task, if it exists and belongs to this owner (null matches only tasks made without a key). */
  async load(id: string, ownerUserId: string | null): Promise<StoredA2aTask | undefined> {
    return await this.e.a2aTasks.load(id, ownerUserId);
  }

  /** Tasks in these states, whoever owns them (to settle tasks a stopped process left running). */
  async inStates(states: string[]): Promise<StoredA2aTask[]> {
    return await this.e.a2aTasks.inStates(states);
  }

  /** Forgets a task (an anonymous one that ended: its result was in the response and nowhere else). */
  async delete(id: string, ownerUserId: string | null): Promise<void> {
    await this.e.a2aTasks.delete(id, ownerUserId);
  }

  /** Keeps only the `keep` most recently updated tasks of this owner (null: the anonymous ones). */
  async keepNewest(ownerUserId: string | null, keep: number): Promise<number> {
    return await this.e.a2aTasks.keepNewest(ownerUserId, keep);
  }

  /** Deletes tasks last updated before these instants: one for users' tasks, one for anonymous ones. */
  async expire(userBefore: string, anonymousBefore: string): Promise<number> {
    return await this.e.a2aTasks.expire(userBefore, anonymousBefore);
  }
}
