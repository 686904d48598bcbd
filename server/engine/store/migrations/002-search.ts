/**
 * Search: a trigram index over chunk text for grep candidates, and the embedding models whose
 * vectors live in per-model vec0 tables (created by VectorsStore, since their width depends on the model).
 *
 * The trigram table is an external-content FTS5 table over `chunks`, kept in step by triggers so the
 * core indexer needs to know nothing about it. detail='none' keeps it small: grep only needs
 * "which chunks may contain this literal" (LIKE), and confirms by scanning the file.
 */
export const sql = `
CREATE VIRTUAL TABLE chunks_trigram USING fts5(
  content,
  content='chunks', content_rowid='id',
  tokenize='trigram', detail='none'
);
INSERT INTO chunks_trigram(chunks_trigram) VALUES ('rebuild');

CREATE TRIGGER chunks_trigram_ai AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_trigram(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER chunks_trigram_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_trigram(chunks_trigram, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER chunks_trigram_au AFTER UPDATE OF content ON chunks BEGIN
  INSERT INTO chunks_trigram(chunks_trigram, rowid, content) VALUES ('delete', old.id, old.content);
  INSERT INTO chunks_trigram(rowid, content) VALUES (new.id, new.content);
END;

-- One row per embedding model ever used. state: building (vectors being computed), active (search
-- uses it), retired (its table is being dropped). data holds a learned model (the corpus embedder).
CREATE TABLE embedding_models (
  id INTEGER PRIMARY KEY,
  provider TEXT NOT NULL,
  name TEXT NOT NULL,
  dims INTEGER NOT NULL,
  state TEXT NOT NULL,
  data BLOB,
  trained_chunks INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  activated_at TEXT
);
`;
