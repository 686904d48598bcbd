import { nowIso } from '../../util/ids';
import type { A2aTasksStore, StoredA2aTask } from '../a2a-tasks-store';
import type { Async } from '../surface';
import type { PgDb } from './pg-db';

interface TaskRow { id: string; owner_user_id: string | null; context_id: string; state: string; task_json: string }

const TASK = 'id, owner_user_id, context_id, state, task_json';
const stored = (row: TaskRow): StoredA2aTask => ({ id: row.id, ownerUserId: row.owner_user_id, contextId: row.context_id, state: row.state, json: row.task_json });

/**
 * A2A tasks on PostgreSQL, the same answers as SqliteA2aTasksStore: any node answers tasks/get
 * for a task another node created. SQLite's `IS` (NULL matches NULL) is `IS NOT DISTINCT FROM`.
 */
export class PgA2aTasksStore implements Async<A2aTasksStore> {
  constructor(private readonly db: PgDb) {}

  async save(task: StoredA2aTask): Promise<void> {
    const now = nowIso();
    await this.db.query(`
      INSERT INTO a2a_tasks (id, owner_user_id, context_id, state, task_json, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6, $6)
      ON CONFLICT (id) DO UPDATE SET context_id = EXCLUDED.context_id, state = EXCLUDED.state,
        task_json = EXCLUDED.task_json, updated_at = EXCLUDED.updated_at
      WHERE a2a_tasks.owner_user_id IS NOT DISTINCT FROM EXCLUDED.owner_user_id`,
    [task.id, task.ownerUserId, task.contextId, task.state, task.json, now]);
  }

  async load(id: string, ownerUserId: string | null): Promise<StoredA2aTask | undefined> {
    const row = await this.db.one<TaskRow>(`SELECT ${TASK} FROM a2a_tasks WHERE id = $1 AND owner_user_id IS NOT DISTINCT FROM $2`, [id, ownerUserId]);
    return row && stored(row);
  }

  async inStates(states: string[]): Promise<StoredA2aTask[]> {
    const rows = await this.db.rows<TaskRow>(`SELECT ${TASK} FROM a2a_tasks WHERE state = ANY($1::text[]) ORDER BY created_at, id COLLATE "C"`, [states]);
    return rows.map(stored);
  }

  async delete(id: string, ownerUserId: string | null): Promise<void> {
    await this.db.query('DELETE FROM a2a_tasks WHERE id = $1 AND owner_user_id IS NOT DISTINCT FROM $2', [id, ownerUserId]);
  }

  async keepNewest(ownerUserId: string | null, keep: number): Promise<number> {
    return (await this.db.query(`DELETE FROM a2a_tasks WHERE owner_user_id IS NOT DISTINCT FROM $1 AND id NOT IN (
      SELECT id FROM a2a_tasks WHERE owner_user_id IS NOT DISTINCT FROM $1 ORDER BY updated_at DESC, id COLLATE "C" LIMIT $2)`,
    [ownerUserId, Math.max(0, Math.floor(keep))])).rowCount ?? 0;
  }

  async expire(userBefore: string, anonymousBefore: string): Promise<number> {
    return (await this.db.query('DELETE FROM a2a_tasks WHERE (owner_user_id IS NOT NULL AND updated_at < $1) OR (owner_user_id IS NULL AND updated_at < $2)',
      [userBefore, anonymousBefore])).rowCount ?? 0;
  }

  async count(): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT count(*) AS n FROM a2a_tasks'))!.n;
  }
}
