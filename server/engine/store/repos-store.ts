import { type Db, pageClause } from './db';
import type { RepoRecord, RepoState } from '../types';
import { nowIso } from '../util/ids';
import type { Surface } from './surface';

interface RepoRow {
  id: string; url: string; name: string; root_path: string; source: 'local' | 'git'; branch: string | null;
  visibility: 'private' | 'public'; state: RepoState; updating: number; active: number; error: string | null;
  files_total: number; files_done: number; head_commit: string | null; created_at: string; last_updated: string | null;
}

const toRecord = (r: RepoRow): RepoRecord => ({
  id: r.id, url: r.url, name: r.name, rootPath: r.root_path, source: r.source, branch: r.branch,
  visibility: r.visibility, state: r.state, updating: r.updating === 1, active: r.active === 1, error: r.error,
  filesTotal: r.files_total, filesDone: r.files_done, headCommit: r.head_commit, createdAt: r.created_at,
  lastUpdated: r.last_updated,
});

export interface RepoListQuery {
  userId: string;
  scope: 'private' | 'public';
  search?: string;
  limit: number;
  offset: number;
  orderBy: 'created_at' | 'name' | 'last_updated' | 'url';
  order: 'asc' | 'desc';
}

/** Column names are the one thing SQL cannot take as a parameter: only these ever reach it, whoever calls. */
const REPO_ORDER_COLUMNS: Record<string, string> = { created_at: 'created_at', name: 'name', last_updated: 'last_updated', url: 'url' };

export class SqliteReposStore {
  constructor(private readonly db: Db) {}

  insert(repo: Pick<RepoRecord, 'id' | 'url' | 'name' | 'rootPath' | 'source' | 'branch' | 'visibility'>): void {
    this.db.prepare(
      `INSERT INTO repos (id, url, name, root_path, source, branch, visibility, state, updating, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', 1, ?)`,
    ).run(repo.id, repo.url, repo.name, repo.rootPath, repo.source, repo.branch, repo.visibility, nowIso());
  }

  grantAccess(userId: string, repoId: string): void {
    this.db.prepare('INSERT OR IGNORE INTO user_repos (user_id, repo_id, created_at) VALUES (?, ?, ?)').run(userId, repoId, nowIso());
  }

  hasAccess(userId: string, repoId: string): boolean {
    return this.db.prepare('SELECT 1 FROM user_repos WHERE user_id = ? AND repo_id = ?').get(userId, repoId) !== undefined;
  }

  /** The users who added a repository (or were given it), first come first. */
  readersOf(repoId: string): string[] {
    return (this.db.prepare('SELECT user_id FROM user_repos WHERE repo_id = ? ORDER BY created_at').all(repoId) as { user_id: string }[]).map((r) => r.user_id);
  }

  countForUser(userId: string): number {
    return (this.db.prepare('SELECT count(*) AS n FROM user_repos WHERE user_id = ?').get(userId) as { n: number }).n;
  }

  get(id: string): RepoRecord | undefined {
    const row = this.db.prepare('SELECT * FROM repos WHERE id = ?').get(id) as RepoRow | undefined;
    return row && toRecord(row);
  }

  getByUrl(url: string): RepoRecord | undefined {
    const row = this.db.prepare('SELECT * FROM repos WHERE url = ?').get(url) as RepoRow | undefined;
    return row && toRecord(row);
  }

  all(): RepoRecord[] {
    return (this.db.prepare('SELECT * FROM repos ORDER BY created_at').all() as RepoRow[]).map(toRecord);
  }

  /** Repositories the user may read: their own, plus public ones when scope is public. */
  list(q: RepoListQuery): { items: RepoRecord[]; total: number } {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.scope === 'public') {
      where.push("r.visibility = 'public'");
    } else {
      where.push('r.id IN (SELECT repo_id FROM user_repos WHERE user_id = ?)');
      params.push(q.userId);
    }
    if (q.search) {
      where.push("(r.name LIKE ? ESCAPE '\\' OR r.url LIKE ? ESCAPE '\\')");
      const like = `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      params.push(like, like);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = (this.db.prepare(`SELECT count(*) AS n FROM repos r ${clause}`).get(...params) as { n: number }).n;
    const rows = this.db.prepare(
      `SELECT r.* FROM repos r ${clause} ORDER BY r.${REPO_ORDER_COLUMNS[q.orderBy] ?? 'created_at'} ${q.order === 'asc' ? 'ASC' : 'DESC'}, r.id ${pageClause(q.limit, q.offset)}`,
    ).all(...params) as RepoRow[];
    return { items: rows.map(toRecord), total };
  }

  listPublic(limit: number, offset: number, since?: string): { items: RepoRecord[]; total: number } {
    const clause = since ? "WHERE visibility = 'public' AND coalesce(last_updated, created_at) >= ?" : "WHERE visibility = 'public'";
    const params = since ? [since] : [];
    const total = (this.db.prepare(`SELECT count(*) AS n FROM repos ${clause}`).get(...params) as { n: number }).n;
    const rows = this.db.prepare(`SELECT * FROM repos ${clause} ORDER BY created_at DESC, id ${pageClause(limit, offset)}`)
      .all(...params) as RepoRow[];
    return { items: rows.map(toRecord), total };
  }

  setState(id: string, state: RepoState, fields: { error?: string | null; headCommit?: string | null } = {}): void {
    const updating = state === 'queued' || state === 'indexing' ? 1 : 0;
    const touch = state === 'ready' ? nowIso() : null;
    this.db.prepare(
      `UPDATE repos SET state = ?, updating = ?, error = ?, head_commit = coalesce(?, head_commit),
         last_updated = coalesce(?, last_updated) WHERE id = ?`,
    ).run(state, updating, fields.error ?? null, fields.headCommit ?? null, touch, id);
  }

  setProgress(id: string, done: number, total: number): void {
    this.db.prepare('UPDATE repos SET files_done = ?, files_total = ? WHERE id = ?').run(done, total, id);
  }

  setBranch(id: string, branch: string | null): void {
    this.db.prepare('UPDATE repos SET branch = ? WHERE id = ?').run(branch, id);
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM repos WHERE id = ?').run(id);
  }
}

/** What the engine programs against; SqliteReposStore is the implementation on SQLite. */
export type ReposStore = Surface<SqliteReposStore>;
