import type { Db } from './db';
import { nowIso } from '../util/ids';
import type { Surface } from './surface';

export interface StoredA2aTask {
  id: string;
  ownerUserId: string | null;
  contextId: string;
  state: string;
  /** The task as A2A JSON. */
  json: string;
}

/** A2A tasks by id, each with the user who created it (null: created without a key). */
export class SqliteA2aTasksStore {
  constructor(private readonly db: Db) {}

  /**
   * Inserts or replaces a task. The owner is fixed by the first save: a save by another caller
   * under the same id changes nothing.
   */
  save(task: StoredA2aTask): void {
    const now = nowIso();
    this.db.prepare(`
      INSERT INTO a2a_tasks (id, owner_user_id, context_id, state, task_json, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state,
        task_json = excluded.task_json, updated_at = excluded.updated_at
      WHERE a2a_tasks.owner_user_id IS excluded.owner_user_id
    `).run(task.id, task.ownerUserId, task.contextId, task.state, task.json, now, now);
  }

  /** The task, if it exists and belongs to this owner (null matches only tasks made without a key). */
  load(id: string, ownerUserId: string | null): StoredA2aTask | undefined {
    const row = this.db.prepare('SELECT id, owner_user_id, context_id, state, task_json FROM a2a_tasks WHERE id = ? AND owner_user_id IS ?')
      .get(id, ownerUserId) as { id: string; owner_user_id: string | null; context_id: string; state: string; task_json: string } | undefined;
    return row && { id: row.id, ownerUserId: row.owner_user_id, contextId: row.context_id, state: row.state, json: row.task_json };
  }

  /** Tasks in these states, whoever owns them (to settle tasks a stopped process left running). */
  inStates(states: string[]): StoredA2aTask[] {
    const rows = this.db.prepare(`SELECT id, owner_user_id, context_id, state, task_json FROM a2a_tasks WHERE state IN (${states.map(() => '?').join(', ')})`)
      .all(...states) as { id: string; owner_user_id: string | null; context_id: string; state: string; task_json: string }[];
    return rows.map((row) => ({ id: row.id, ownerUserId: row.owner_user_id, contextId: row.context_id, state: row.state, json: row.task_json }));
  }

  /** Forgets a task (an anonymous one that ended: its result was in the response and nowhere else). */
  delete(id: string, ownerUserId: string | null): void {
    this.db.prepare('DELETE FROM a2a_tasks WHERE id = ? AND owner_user_id IS ?').run(id, ownerUserId);
  }

  /** Keeps only the `keep` most recently updated tasks of this owner (null: the anonymous ones). */
  keepNewest(ownerUserId: string | null, keep: number): number {
    return this.db.prepare(`DELETE FROM a2a_tasks WHERE owner_user_id IS ? AND id NOT IN (
      SELECT id FROM a2a_tasks WHERE owner_user_id IS ? ORDER BY updated_at DESC, id LIMIT ${Math.max(0, Math.floor(keep))})`)
      .run(ownerUserId, ownerUserId).changes;
  }

  /** Deletes tasks last updated before these instants: one for users' tasks, one for anonymous ones. */
  expire(userBefore: string, anonymousBefore: string): number {
    return this.db.prepare(`DELETE FROM a2a_tasks WHERE (owner_user_id IS NOT NULL AND updated_at < ?) OR (owner_user_id IS NULL AND updated_at < ?)`)
      .run(userBefore, anonymousBefore).changes;
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM a2a_tasks').get() as { n: number }).n;
  }
}

/** What the engine programs against; SqliteA2aTasksStore is the implementation on SQLite. */
export type A2aTasksStore = Surface<SqliteA2aTasksStore>;
