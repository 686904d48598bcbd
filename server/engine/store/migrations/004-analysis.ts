/**
 * Analysis support: a per-repository generation counter that triggers bump on every write to a
 * repository's files or import edges (so in-memory graphs know when they are stale without a
 * query per request), and generated per-file documentation keyed by the source hash it describes.
 *
 * repo_generations has no foreign key on purpose: the delete trigger fires while a repository's
 * files cascade away, after the repository row itself is gone.
 */
export const sql = `
CREATE TABLE repo_generations (
  repo_id TEXT PRIMARY KEY,
  generation INTEGER NOT NULL
);

CREATE TRIGGER files_generation_insert AFTER INSERT ON files BEGIN
  INSERT INTO repo_generations (repo_id, generation) VALUES (NEW.repo_id, 1)
    ON CONFLICT (repo_id) DO UPDATE SET generation = generation + 1;
END;

CREATE TRIGGER files_generation_update AFTER UPDATE OF hash, indexed_at ON files BEGIN
  INSERT INTO repo_generations (repo_id, generation) VALUES (NEW.repo_id, 1)
    ON CONFLICT (repo_id) DO UPDATE SET generation = generation + 1;
END;

CREATE TRIGGER files_generation_delete AFTER DELETE ON files BEGIN
  INSERT INTO repo_generations (repo_id, generation) VALUES (OLD.repo_id, 1)
    ON CONFLICT (repo_id) DO UPDATE SET generation = generation + 1;
END;

CREATE TRIGGER imports_generation_relink AFTER UPDATE OF target_path, package ON imports BEGIN
  UPDATE repo_generations SET generation = generation + 1
    WHERE repo_id = (SELECT repo_id FROM files WHERE id = NEW.file_id);
END;

-- Exported top-level symbols (blueprint, map): a small slice of the symbol table.
CREATE INDEX symbols_exported ON symbols(file_id) WHERE exported = 1 AND parent IS NULL;

CREATE TABLE file_docs (
  file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
  source_hash TEXT NOT NULL,
  generator TEXT NOT NULL,
  doc TEXT NOT NULL,
  generated_at TEXT NOT NULL
);
`;
