/**
 * Files the indexer leaves out of the index (generated, minified, oversized, binary), with the size
 * and mtime they had. A re-index does not read them again while those stay the same, and grep_code
 * scans the text ones from disk, as ripgrep does. Writes bump the repository's generation, which keys
 * grep's file listing.
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

CREATE TRIGGER skipped_files_generation_insert AFTER INSERT ON skipped_files BEGIN
  INSERT INTO repo_generations (repo_id, generation) VALUES (NEW.repo_id, 1)
    ON CONFLICT (repo_id) DO UPDATE SET generation = generation + 1;
END;

CREATE TRIGGER skipped_files_generation_update AFTER UPDATE ON skipped_files BEGIN
  INSERT INTO repo_generations (repo_id, generation) VALUES (NEW.repo_id, 1)
    ON CONFLICT (repo_id) DO UPDATE SET generation = generation + 1;
END;

CREATE TRIGGER skipped_files_generation_delete AFTER DELETE ON skipped_files BEGIN
  INSERT INTO repo_generations (repo_id, generation) VALUES (OLD.repo_id, 1)
    ON CONFLICT (repo_id) DO UPDATE SET generation = generation + 1;
END;
`;
