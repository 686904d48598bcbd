/**
 * The trigram index filled in bulk during a large run. Kept row by row by a trigger inside each write
 * slice, it cost the index writer nearly half of its time on a cold index (phaser ×4: 5.2 of 11.8 s of
 * CPU); with the same rows added afterwards by `INSERT … SELECT` over ~1,000 chunks per transaction the whole
 * write took 6.5 s (docs/benchmarks.md, h17w).
 *
 * `trigram_backlog` (at most one row): the chunks whose id is `from_id` or above have no trigram rows yet.
 * The triggers leave those chunks alone (an insert adds nothing, a delete takes nothing out: FTS5's external
 * content must be told exactly what it holds), and the index writer fills them after the run's files are
 * written (files-store.ts `deferTrigram`, `fillTrigram`). Readers of the trigram index take the backlog's
 * chunks as candidates too, so a grep stays complete while the backlog is there (a killed run leaves it
 * for the next one to fill).
 */
export const sql = `
CREATE TABLE trigram_backlog (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  from_id INTEGER NOT NULL
);

DROP TRIGGER chunks_trigram_ai;
DROP TRIGGER chunks_trigram_ad;
DROP TRIGGER chunks_trigram_au;

CREATE TRIGGER chunks_trigram_ai AFTER INSERT ON chunks
WHEN NOT EXISTS (SELECT 1 FROM trigram_backlog WHERE new.id >= from_id) BEGIN
  INSERT INTO chunks_trigram(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER chunks_trigram_ad AFTER DELETE ON chunks
WHEN NOT EXISTS (SELECT 1 FROM trigram_backlog WHERE old.id >= from_id) BEGIN
  INSERT INTO chunks_trigram(chunks_trigram, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER chunks_trigram_au AFTER UPDATE OF content ON chunks
WHEN NOT EXISTS (SELECT 1 FROM trigram_backlog WHERE old.id >= from_id) BEGIN
  INSERT INTO chunks_trigram(chunks_trigram, rowid, content) VALUES ('delete', old.id, old.content);
  INSERT INTO chunks_trigram(rowid, content) VALUES (new.id, new.content);
END;
`;
