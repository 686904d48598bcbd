import type { ConversationRow, HistoryRange, HistoryRow, HistoryStore } from '../history-store';
import type { Async } from '../surface';
import { page } from './accounts-store';
import type { PgDb } from './pg-db';

const HISTORY = 'id, user_id, conversation_id, seq, category, operation, query, repo_ids, summary, result, credits, duration_ms, created_at';
const CONVERSATION = 'id, user_id, title, created_at, updated_at';

/**
 * Query history and conversations on PostgreSQL, the same answers as SqliteHistoryStore. Ties in
 * time are broken by insertion order (`ord`, as SQLite's rowid). `nextSeq` inside a transaction
 * locks the conversation's row, so two nodes continuing one thread at once number their turns
 * one after the other.
 */
export class PgHistoryStore implements Async<HistoryStore> {
  constructor(private readonly db: PgDb) {}

  async conversation(id: string): Promise<ConversationRow | undefined> {
    return this.db.one<ConversationRow>(`SELECT ${CONVERSATION} FROM conversations WHERE id = $1`, [id]);
  }

  async insertConversation(row: ConversationRow): Promise<void> {
    await this.db.query('INSERT INTO conversations (id, user_id, title, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)',
      [row.id, row.user_id, row.title, row.created_at, row.updated_at]);
  }

  async touchConversation(id: string, at: string): Promise<void> {
    await this.db.query('UPDATE conversations SET updated_at = $1 WHERE id = $2', [at, id]);
  }

  async nextSeq(conversationId: string): Promise<number> {
    if (this.db.inTransaction) await this.db.query('SELECT 1 FROM conversations WHERE id = $1 FOR UPDATE', [conversationId]);
    return (await this.db.one<{ n: number }>('SELECT coalesce(max(seq), 0) + 1 AS n FROM history WHERE conversation_id = $1', [conversationId]))!.n;
  }

  async insert(row: HistoryRow): Promise<void> {
    await this.db.query(
      `INSERT INTO history (id, user_id, conversation_id, seq, category, operation, query, repo_ids, summary, result, credits, duration_ms, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [row.id, row.user_id, row.conversation_id, row.seq, row.category, row.operation, row.query, row.repo_ids, row.summary, row.result,
        row.credits, row.duration_ms, row.created_at],
    );
  }

  async delete(id: string): Promise<void> {
    const row = await this.db.one<{ conversation_id: string | null }>('DELETE FROM history WHERE id = $1 RETURNING conversation_id', [id]);
    if (row?.conversation_id) {
      await this.db.query('DELETE FROM conversations WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM history WHERE conversation_id = $1)', [row.conversation_id]);
    }
  }

  async get(id: string): Promise<HistoryRow | undefined> {
    return this.db.one<HistoryRow>(`SELECT ${HISTORY} FROM history WHERE id = $1`, [id]);
  }

  async list(q: HistoryRange): Promise<{ items: HistoryRow[]; total: number }> {
    const where = ['user_id = $1'];
    const args: unknown[] = [q.userId];
    if (q.from) { args.push(q.from); where.push(`created_at >= $${args.length}`); }
    if (q.to) { args.push(q.to); where.push(`created_at <= $${args.length}`); }
    const clause = where.join(' AND ');
    const total = (await this.db.one<{ n: number }>(`SELECT count(*) AS n FROM history WHERE ${clause}`, args))!.n;
    const items = await this.db.rows<HistoryRow>(
      `SELECT ${HISTORY} FROM history WHERE ${clause} ORDER BY created_at DESC, ord DESC LIMIT $${args.length + 1} OFFSET $${args.length + 2}`,
      [...args, page(q.limit), page(q.offset)]);
    return { items, total };
  }

  async thread(conversationId: string): Promise<HistoryRow[]> {
    return this.db.rows<HistoryRow>(`SELECT ${HISTORY} FROM history WHERE conversation_id = $1 ORDER BY seq, created_at, ord`, [conversationId]);
  }

  async usageByCategory(userId: string, since: string): Promise<{ category: string; calls: number; credits: number; duration_ms: number }[]> {
    return this.db.rows(`SELECT category, count(*) AS calls, sum(credits)::bigint AS credits, sum(duration_ms)::bigint AS duration_ms FROM history
      WHERE user_id = $1 AND created_at >= $2 GROUP BY category ORDER BY calls DESC, category COLLATE "C"`, [userId, since]);
  }

  async perDay(userId: string, since: string): Promise<{ day: string; calls: number; credits: number }[]> {
    return this.db.rows(`SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) AS calls, sum(credits)::bigint AS credits FROM history
      WHERE user_id = $1 AND created_at >= $2 GROUP BY day ORDER BY day`, [userId, since]);
  }

  async purgeBefore(before: string): Promise<number> {
    const removed = (await this.db.query('DELETE FROM history WHERE created_at < $1', [before])).rowCount ?? 0;
    await this.db.query(`DELETE FROM conversations WHERE updated_at < $1
      AND NOT EXISTS (SELECT 1 FROM history h WHERE h.conversation_id = conversations.id)`, [before]);
    return removed;
  }

  /**
   * Files, lines and bytes per language over the user's repositories. It reads the index side's
   * `files` and `user_repos` (the same database on the team server), whose columns follow SQLite's.
   */
  async languages(userId: string, since?: string): Promise<{ language: string | null; files: number; lines: number; bytes: number }[]> {
    const window = since === undefined ? '' : 'AND f.indexed_at >= $2';
    return this.db.rows(`SELECT f.language AS language, count(*) AS files, sum(f.lines)::bigint AS lines, sum(f.size)::bigint AS bytes
      FROM files f JOIN user_repos u ON u.repo_id = f.repo_id WHERE u.user_id = $1 ${window}
      GROUP BY f.language ORDER BY files DESC, language COLLATE "C" NULLS FIRST`, since === undefined ? [userId] : [userId, since]);
  }
}
