/**
 * Files the indexer leaves out of the index (generated, minified, oversized, binary), with the size
 * and mtime they had. A re-index does not read them again while those stay the same, and grep_code
 * scans the text ones from disk, as ripgrep does. They are listed at each search, not cached, so writes
 * here need not bump the repository's generation (a file that enters or leaves the index does, in files).
 */
export const sql = `
CREATE TABLE skipped_files (
  id INTEGER PRIMARY KEY,
  repo_id TEXT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms INTEGER NOT NULL,
  reason TEXT NOT NULL,
  UNIQUE (repo_id, path)
);

`;
