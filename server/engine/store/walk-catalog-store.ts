import type { Db } from './db';

/**
 * The last walk of a repository's folder, as bytes (migration 017; indexer/walk.ts says what they hold).
 * Written by the index writer after a walk that changed it; a repository's row goes with it.
 */
export class WalkCatalogStore {
  constructor(private readonly db: Db) {}

  load(repoId: string): Buffer | null {
    const row = this.db.prepare('SELECT data FROM walk_catalog WHERE repo_id = ?').get(repoId) as { data: Buffer } | undefined;
    return row?.data ?? null;
  }

  save(repoId: string, data: Buffer): void {
    this.db.prepare('INSERT INTO walk_catalog (repo_id, data) VALUES (?, ?) ON CONFLICT (repo_id) DO UPDATE SET data = excluded.data').run(repoId, data);
  }
}
