import { type Db, pageClause } from './db';
import type { Surface } from './surface';

export interface HistoryRow {
  id: string;
  user_id: string;
  conversation_id: string | null;
  seq: number;
  category: string;
  operation: string;
  query: string | null;
  repo_ids: string;
  summary: string | null;
  result: string | null;
  credits: number;
  duration_ms: number;
  created_at: string;
}

export interface ConversationRow {
  id: string;
  user_id: string;
  title: string | null;
  created_at: string;
  updated_at: string;
}

export interface HistoryRange {
  userId: string;
  from?: string;
  to?: string;
  limit: number;
  offset: number;
}

/** Query history, conversations, and the aggregates the statistics routes read. */
export class SqliteHistoryStore {
  constructor(private readonly db: Db) {}

  conversation(id: string): ConversationRow | undefined {
    return this.db.prepare('SELECT * FROM conversations WHERE id = ?').get(id) as ConversationRow | undefined;
  }

  insertConversation(row: ConversationRow): void {
    this.db.prepare('INSERT INTO conversations (id, user_id, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
      .run(row.id, row.user_id, row.title, row.created_at, row.updated_at);
  }

  touchConversation(id: string, at: string): void {
    this.db.prepare('UPDATE conversations SET updated_at = ? WHERE id = ?').run(at, id);
  }

  nextSeq(conversationId: string): number {
    return (this.db.prepare('SELECT coalesce(max(seq), 0) + 1 AS n FROM history WHERE conversation_id = ?').get(conversationId) as { n: number }).n;
  }

  insert(row: HistoryRow): void {
    this.db.prepare(
      `INSERT INTO history (id, user_id, conversation_id, seq, category, operation, query, repo_ids, summary, result, credits, duration_ms, created_at)
       VALUES (@id, @user_id, @conversation_id, @seq, @category, @operation, @query, @repo_ids, @summary, @result, @credits, @duration_ms, @created_at)`,
    ).run(row);
  }

  /** Takes back one row (a call that did not succeed after all); a conversation it alone made goes with it. */
  delete(id: string): void {
    const row = this.db.prepare('SELECT conversation_id FROM history WHERE id = ?').get(id) as { conversation_id: string | null } | undefined;
    this.db.prepare('DELETE FROM history WHERE id = ?').run(id);
    if (row?.conversation_id) {
      this.db.prepare('DELETE FROM conversations WHERE id = ? AND NOT EXISTS (SELECT 1 FROM history WHERE conversation_id = ?)').run(row.conversation_id, row.conversation_id);
    }
  }

  get(id: string): HistoryRow | undefined {
    return this.db.prepare('SELECT * FROM history WHERE id = ?').get(id) as HistoryRow | undefined;
  }

  /** Newest first. `from`/`to` are inclusive ISO timestamps (stored as UTC ISO, so text order is time order). */
  list(q: HistoryRange): { items: HistoryRow[]; total: number } {
    const where = ['user_id = ?'];
    const args: unknown[] = [q.userId];
    if (q.from) { where.push('created_at >= ?'); args.push(q.from); }
    if (q.to) { where.push('created_at <= ?'); args.push(q.to); }
    const clause = where.join(' AND ');
    const total = (this.db.prepare(`SELECT count(*) AS n FROM history WHERE ${clause}`).get(...args) as { n: number }).n;
    const items = this.db.prepare(`SELECT * FROM history WHERE ${clause} ORDER BY created_at DESC, rowid DESC ${pageClause(q.limit, q.offset)}`)
      .all(...args) as HistoryRow[];
    return { items, total };
  }

  thread(conversationId: string): HistoryRow[] {
    return this.db.prepare('SELECT * FROM history WHERE conversation_id = ? ORDER BY seq, created_at').all(conversationId) as HistoryRow[];
  }

  /** Calls, credits and time per category since `since`. */
  usageByCategory(userId: string, since: string): { category: string; calls: number; credits: number; duration_ms: number }[] {
    return this.db.prepare(`SELECT category, count(*) AS calls, sum(credits) AS credits, sum(duration_ms) AS duration_ms FROM history
      WHERE user_id = ? AND created_at >= ? GROUP BY category ORDER BY calls DESC, category`).all(userId, since) as never;
  }

  /** Rows per UTC day (YYYY-MM-DD) since `since`; days without rows are absent (the caller fills them). */
  perDay(userId: string, since: string): { day: string; calls: number; credits: number }[] {
    return this.db.prepare(`SELECT substr(created_at, 1, 10) AS day, count(*) AS calls, sum(credits) AS credits FROM history
      WHERE user_id = ? AND created_at >= ? GROUP BY day ORDER BY day`).all(userId, since) as never;
  }

  /**
   * Deletes history rows created before `before` (ISO), and the conversations left with no rows
   * that were last continued before it. Returns how many history rows went.
   */
  purgeBefore(before: string): number {
    const users = this.db.prepare('SELECT id AS user_id FROM users').all() as { user_id: string }[];
    let removed = 0;
    // Per user, so each delete walks the (user_id, created_at) index instead of the whole table.
    for (const { user_id } of users) {
      removed += this.db.prepare('DELETE FROM history WHERE user_id = ? AND created_at < ?').run(user_id, before).changes;
    }
    this.db.prepare(`DELETE FROM conversations WHERE updated_at < ?
      AND NOT EXISTS (SELECT 1 FROM history h WHERE h.conversation_id = conversations.id)`).run(before);
    return removed;
  }

  /** Files and lines per language over the user's repositories (only files indexed since `since`, when given). */
  languages(userId: string, since?: string): { language: string | null; files: number; lines: number; bytes: number }[] {
    return this.db.prepare(`SELECT f.language AS language, count(*) AS files, sum(f.lines) AS lines, sum(f.size) AS bytes
      FROM files f JOIN user_repos u ON u.repo_id = f.repo_id WHERE u.user_id = ? AND f.indexed_at >= ?
      GROUP BY f.language ORDER BY files DESC, language`).all(userId, since ?? '') as never;
  }
}

/** What the engine programs against; SqliteHistoryStore is the implementation on SQLite. */
export type HistoryStore = Surface<SqliteHistoryStore>;
