import type { RepoRecord, RepoState } from '../../types';
import { nowIso } from '../../util/ids';
import type { RepoListQuery, ReposStore } from '../repos-store';
import type { Async } from '../surface';
import { likeEscape, type PgSql } from './sql';

type RepoRow = {
  id: string; url: string; name: string; root_path: string; source: 'local' | 'git'; branch: string | null;
  visibility: 'private' | 'public'; state: RepoState; updating: boolean; active: boolean; error: string | null;
  files_total: number; files_done: number; head_commit: string | null; created_at: string; last_updated: string | null;
};

const toRecord = (r: RepoRow): RepoRecord => ({
  id: r.id, url: r.url, name: r.name, rootPath: r.root_path, source: r.source, branch: r.branch,
  visibility: r.visibility, state: r.state, updating: r.updating, active: r.active, error: r.error,
  filesTotal: r.files_total, filesDone: r.files_done, headCommit: r.head_commit, createdAt: r.created_at,
  lastUpdated: r.last_updated,
});

/** SQLite's order: NULL first ascending, bytes compared (COLLATE "C"); LIKE ignores ASCII case (ILIKE). */
const ORDER_COLUMNS: Record<string, string> = { created_at: 'created_at', name: 'name', last_updated: 'last_updated', url: 'url' };

/** Repositories and who reads them, on PostgreSQL: SqliteReposStore's surface, awaited. */
export class PgReposStore implements Async<ReposStore> {
  constructor(private readonly db: PgSql) {}

  async insert(repo: Pick<RepoRecord, 'id' | 'url' | 'name' | 'rootPath' | 'source' | 'branch' | 'visibility'>): Promise<void> {
    await this.db.query(
      `INSERT INTO repos (id, url, name, root_path, source, branch, visibility, state, updating, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued', true, $8)`,
      [repo.id, repo.url, repo.name, repo.rootPath, repo.source, repo.branch, repo.visibility, nowIso()],
    );
  }

  async grantAccess(userId: string, repoId: string): Promise<void> {
    await this.db.query('INSERT INTO user_repos (user_id, repo_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [userId, repoId, nowIso()]);
  }

  async hasAccess(userId: string, repoId: string): Promise<boolean> {
    return (await this.db.one('SELECT 1 FROM user_repos WHERE user_id = $1 AND repo_id = $2', [userId, repoId])) !== undefined;
  }

  async readersOf(repoId: string): Promise<string[]> {
    return (await this.db.rows<{ user_id: string }>('SELECT user_id FROM user_repos WHERE repo_id = $1 ORDER BY created_at', [repoId])).map((r) => r.user_id);
  }

  async countForUser(userId: string): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT count(*)::int AS n FROM user_repos WHERE user_id = $1', [userId]))!.n;
  }

  async get(id: string): Promise<RepoRecord | undefined> {
    const row = await this.db.one<RepoRow>('SELECT * FROM repos WHERE id = $1', [id]);
    return row && toRecord(row);
  }

  async getByUrl(url: string): Promise<RepoRecord | undefined> {
    const row = await this.db.one<RepoRow>('SELECT * FROM repos WHERE url = $1', [url]);
    return row && toRecord(row);
  }

  async all(): Promise<RepoRecord[]> {
    return (await this.db.rows<RepoRow>('SELECT * FROM repos ORDER BY created_at')).map(toRecord);
  }

  async list(q: RepoListQuery): Promise<{ items: RepoRecord[]; total: number }> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.scope === 'public') where.push("r.visibility = 'public'");
    else {
      params.push(q.userId);
      where.push(`r.id IN (SELECT repo_id FROM user_repos WHERE user_id = $${params.length})`);
    }
    if (q.search) {
      params.push(`%${likeEscape(q.search)}%`);
      where.push(`(r.name ILIKE $${params.length} OR r.url ILIKE $${params.length})`);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = (await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM repos r ${clause}`, params))!.n;
    const rows = await this.db.rows<RepoRow>(
      `SELECT r.* FROM repos r ${clause} ORDER BY r.${ORDER_COLUMNS[q.orderBy] ?? 'created_at'} COLLATE "C" ${q.order === 'asc' ? 'ASC NULLS FIRST' : 'DESC NULLS LAST'}, r.id COLLATE "C"
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, q.limit, q.offset],
    );
    return { items: rows.map(toRecord), total };
  }

  async listPublic(limit: number, offset: number, since?: string): Promise<{ items: RepoRecord[]; total: number }> {
    const clause = since ? "WHERE visibility = 'public' AND coalesce(last_updated, created_at) >= $1" : "WHERE visibility = 'public'";
    const params = since ? [since] : [];
    const total = (await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM repos ${clause}`, params))!.n;
    const rows = await this.db.rows<RepoRow>(
      `SELECT * FROM repos ${clause} ORDER BY created_at COLLATE "C" DESC, id COLLATE "C" LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [...params, limit, offset]);
    return { items: rows.map(toRecord), total };
  }

  async setState(id: string, state: RepoState, fields: { error?: string | null; headCommit?: string | null } = {}): Promise<void> {
    const updating = state === 'queued' || state === 'indexing';
    const touch = state === 'ready' ? nowIso() : null;
    await this.db.query(
      `UPDATE repos SET state = $1, updating = $2, error = $3, head_commit = coalesce($4, head_commit),
         last_updated = coalesce($5, last_updated) WHERE id = $6`,
      [state, updating, fields.error ?? null, fields.headCommit ?? null, touch, id],
    );
  }

  async setProgress(id: string, done: number, total: number): Promise<void> {
    await this.db.query('UPDATE repos SET files_done = $1, files_total = $2 WHERE id = $3', [done, total, id]);
  }

  async setBranch(id: string, branch: string | null): Promise<void> {
    await this.db.query('UPDATE repos SET branch = $1 WHERE id = $2', [branch, id]);
  }

  /** The repository and everything indexed of it; the lexical index's rows first (they hold no foreign keys). */
  async delete(id: string): Promise<void> {
    await this.db.transaction(async () => {
      await this.db.query(
        `DELETE FROM fts_postings p USING (SELECT d.chunk_id, unnest(d.terms) AS term FROM fts_docs d WHERE d.repo_id = $1) g
         WHERE p.term = g.term AND p.chunk_id = g.chunk_id`, [id]);
      await this.db.query('DELETE FROM fts_docs WHERE repo_id = $1', [id]);
      await this.db.query('DELETE FROM repos WHERE id = $1', [id]);
    });
  }
}
