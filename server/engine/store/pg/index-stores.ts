/**
 * The index side of the team server's storage on PostgreSQL: the six stores over one connection,
 * for the bundle (pg/storage.ts) to hand out beside the accounts side. Migrations: PG_INDEX_MIGRATIONS.
 */
import { PgAnalysisStore } from './analysis-store';
import { PgFilesStore } from './files-store';
import { PgReposStore } from './repos-store';
import { PgResearchStore } from './research-store';
import { PgSearchStore } from './search-store';
import { sqlOf, type PgConnection } from './sql';
import { PgVectorsStore, type VectorStorage } from './vectors-store';

export { PG_INDEX_MIGRATIONS } from './index-migrations';

export interface PgIndexStores {
  repos: PgReposStore;
  files: PgFilesStore;
  search: PgSearchStore;
  analysis: PgAnalysisStore;
  research: PgResearchStore;
  vectors: PgVectorsStore;
}

export interface PgIndexOptions {
  /** Vector storage: pgvector when it can be had (auto, the default), or always bytea. */
  vectors?: VectorStorage | 'auto';
}

export function openPgIndexStores(connection: PgConnection, options: PgIndexOptions = {}): PgIndexStores {
  const db = sqlOf(connection);
  return {
    repos: new PgReposStore(db),
    files: new PgFilesStore(db),
    search: new PgSearchStore(db),
    analysis: new PgAnalysisStore(db),
    research: new PgResearchStore(db),
    vectors: new PgVectorsStore(db, options.vectors ?? 'auto'),
  };
}
