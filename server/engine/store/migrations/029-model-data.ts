import type { Db } from '../db';

/**
 * A model's serialized data (megabytes) in a table of its own. SQLite writes a row whole, so changing
 * a model's state rewrote its data: activating payload's 6 MB model took 29–38 ms on the thread that
 * answers, at the end of every cold index (issue 17), and retiring one rewrote the old model too. A
 * model's row is now a few bytes; its data is written once and read where an embedder is built. The
 * tail index (migration 019), which let a read skip the data, goes with it. The data moves only when
 * the column is still there: a database whose version was set back (the tests of migrations 22–26)
 * has moved it already.
 */
export function moveData(db: Db): void {
  db.exec(`CREATE TABLE IF NOT EXISTS embedding_model_data (
    model_id INTEGER PRIMARY KEY REFERENCES embedding_models(id),
    data BLOB NOT NULL
  )`);
  const columns = db.prepare('PRAGMA table_info(embedding_models)').all() as { name: string }[];
  if (!columns.some((c) => c.name === 'data')) return;
  db.exec(`INSERT INTO embedding_model_data (model_id, data) SELECT id, data FROM embedding_models WHERE data IS NOT NULL;
    DROP INDEX IF EXISTS embedding_models_tail;
    ALTER TABLE embedding_models DROP COLUMN data;`);
}

export const sql = '';
