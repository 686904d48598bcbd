/**
 * The last walk of each repository's folder (indexer/walk.ts `walkWithCatalog`): per folder, its inode,
 * mtime and ctime when it was listed, its ignore files' stats and the entries the walk kept. A restart's
 * walk lists only the folders whose listing may have changed since (a folder's mtime moves when an entry
 * is added, removed or renamed in it) and stats every file once. One row per repository, the catalog
 * serialized as one value (read and written whole by the index writer, only when it changed).
 */
export const sql = `
CREATE TABLE walk_catalog (
  repo_id TEXT PRIMARY KEY REFERENCES repos(id) ON DELETE CASCADE,
  data BLOB NOT NULL
);
`;
