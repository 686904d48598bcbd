import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { codeChunks, npmPackage } from '../helpers/real-code';
import { openIndexIn, tempDir } from '../helpers/engine';
import { closeDatabase, schemaVersion, type Db } from '../../server/engine/store/db';
import { MIGRATIONS } from '../../server/engine/store/migrations';
import { SqliteVectorsStore } from '../../server/engine/store/vectors-store';
import { serializeModel, trainCorpusModel } from '../../server/engine/embed/corpus-model';

let trained: Buffer | undefined;

/** A corpus model trained on code nobody here wrote (hono's published modules, by 25 lines), serialized as the index stores it; trained once. */
function realModelData(): Buffer {
  trained ??= serializeModel(trainCorpusModel(codeChunks(path.join(npmPackage('hono@4.13.19'), 'dist')), { dims: 128 })!);
  return trained;
}

/** WAL frames (pages) a write to the index wrote: the log is emptied first, then what `write` adds is counted. */
function pagesWritten(db: Db, write: () => void): number {
  db.pragma('wal_checkpoint(TRUNCATE)');
  write();
  const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
  return row.log;
}

test("activating or retiring a model writes a few pages, not the model's data again (issue 17: 29–38 ms on the answering thread)", () => {
  const data = realModelData();
  const pageSize = 4096;
  assert.ok(data.length > 100 * pageSize, `a model of ${data.length} bytes (more than 100 pages)`);
  const dataDir = tempDir('loupe-model-data-');
  const db = openIndexIn(dataDir);
  try {
    const store = new SqliteVectorsStore(db);
    const first = store.addModel('corpus', 'lsa', 128, data, 1000);
    assert.ok(pagesWritten(db, () => store.activate(first)) < 10, 'activating the first model');
    const second = store.addModel('corpus', 'lsa', 128, data, 2000);
    const retiring = pagesWritten(db, () => store.activate(second));
    assert.ok(retiring < 10, `activating the second model and retiring the first wrote ${retiring} pages`);
    assert.deepEqual(store.models().map((m) => [m.id, m.state, m.trainedChunks]), [[first, 'retired', 1000], [second, 'active', 2000]]);
    assert.ok(store.modelData(first)!.equals(data) && store.modelData(second)!.equals(data), 'each model reads back its data');
    store.dropModel(first);
    assert.equal(store.modelData(first), null, "a dropped model's data goes with it");
    assert.equal((db.prepare('SELECT count(*) AS n FROM embedding_model_data').get() as { n: number }).n, 1);
  } finally {
    closeDatabase(db);
  }
});

test("an index from before migration 29 keeps its model: the data moves to its own table, every other column stays", () => {
  const data = realModelData();
  const dataDir = tempDir('loupe-model-data-');
  let db = openIndexIn(dataDir);
  let id: number;
  try {
    const store = new SqliteVectorsStore(db);
    id = store.addModel('corpus', 'lsa', 128, data, 1234);
    store.activate(id);
    // Back to migration 28's layout (the data in the model's row, the tail index beside it), as an index written by the previous release.
    db.exec(`ALTER TABLE embedding_models ADD COLUMN data BLOB;
      UPDATE embedding_models SET data = (SELECT data FROM embedding_model_data WHERE model_id = embedding_models.id);
      DROP TABLE embedding_model_data;
      CREATE INDEX embedding_models_tail ON embedding_models (id, trained_chunks, created_at);
      PRAGMA user_version = 28;`);
  } finally {
    closeDatabase(db);
  }
  db = openIndexIn(dataDir);
  try {
    assert.equal(schemaVersion(db), MIGRATIONS.at(-1)!.version, 'every migration applied, 029 among them');
    const store = new SqliteVectorsStore(db);
    assert.deepEqual(store.models().map((m) => [m.id, m.provider, m.name, m.dims, m.state, m.trainedChunks]), [[id, 'corpus', 'lsa', 128, 'active', 1234]]);
    assert.ok(store.modelData(id)!.equals(data), 'the model reads back the same bytes');
    const columns = (db.prepare('PRAGMA table_info(embedding_models)').all() as { name: string }[]).map((c) => c.name);
    assert.ok(!columns.includes('data'), `the model's row holds no data (columns: ${columns.join(', ')})`);
  } finally {
    closeDatabase(db);
  }
});
