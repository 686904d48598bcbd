/**
 * grep's trigram index as posting lists the index writer builds itself (store/trigram-index.ts) instead of
 * FTS5's trigram tokenizer, which cost a cold index of payload 8.4 s of the writer's CPU against 1.7 s.
 *
 * `trigram_backlog` stays and keeps its meaning (the chunks from `from_id` up have no trigram rows; readers
 * take them as candidates) but its row is now always there: no trigger writes trigram rows, every new chunk
 * waits in the backlog until the writer fills it (after a run, or once an editing session's backlog grows).
 * Existing indexes start with everything in the backlog; their next run fills it.
 *
 * A chunk id at or below the filled ones can come back (SQLite gives the largest id again after its row was
 * deleted): the trigger moves the backlog back to it, so it is a candidate until the next fill.
 * Written to run again (tests open an index with its version set back).
 */
export const sql = `
DROP TRIGGER IF EXISTS chunks_trigram_ai;
DROP TRIGGER IF EXISTS chunks_trigram_ad;
DROP TRIGGER IF EXISTS chunks_trigram_au;
DROP TABLE IF EXISTS chunks_trigram;

CREATE TABLE IF NOT EXISTS chunk_trigrams (
  tri INTEGER NOT NULL,
  seg INTEGER NOT NULL,
  ids BLOB NOT NULL,
  PRIMARY KEY (tri, seg)
) WITHOUT ROWID;
DELETE FROM chunk_trigrams;
CREATE TABLE IF NOT EXISTS trigram_segments (seg INTEGER PRIMARY KEY);
DELETE FROM trigram_segments;

INSERT OR REPLACE INTO trigram_backlog (id, from_id) VALUES (1, 1);

DROP TRIGGER IF EXISTS chunk_trigrams_reused_id;
CREATE TRIGGER chunk_trigrams_reused_id AFTER INSERT ON chunks
WHEN new.id < (SELECT from_id FROM trigram_backlog WHERE id = 1) BEGIN
  UPDATE trigram_backlog SET from_id = new.id WHERE id = 1;
END;
`;
