import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PgDb } from '../../server/engine/store/pg/pg-db';
import { migratePg } from '../../server/engine/store/pg/migrate';
import { LoupeError } from '../../server/engine/errors';
import { startPostgres, type PgCluster } from '../helpers/postgres';

let cluster: PgCluster;
before(async () => { cluster = await startPostgres(); });
after(async () => { await cluster?.stop(); });

const MIGRATIONS = [
  { version: 1, name: 'things', sql: 'CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT NOT NULL);' },
  { version: 2, name: 'more', sql: 'ALTER TABLE things ADD COLUMN size INTEGER; CREATE INDEX things_name ON things(name);' },
];

test('PgDb: stores join the running transaction through awaits; a throw keeps nothing; a nested throw only undoes its savepoint', async () => {
  const db = new PgDb({ url: await cluster.createDatabase() });
  try {
    assert.equal(await migratePg(db, MIGRATIONS), 2);
    const insert = (id: number) => db.query('INSERT INTO things (id, name) VALUES ($1, $2)', [id, `t${id}`]);
    await assert.rejects(db.transaction(async () => {
      await insert(1);
      await new Promise((r) => setTimeout(r, 5));
      await insert(2);
      throw new Error('abandoned');
    }), /abandoned/);
    assert.equal((await db.rows('SELECT * FROM things')).length, 0);

    await db.transaction(async () => {
      await insert(3);
      await assert.rejects(db.transaction(async () => { await insert(4); throw new Error('inner'); }), /inner/);
      assert.equal(db.inTransaction, true);
      await insert(5);
    });
    assert.deepEqual((await db.rows<{ id: number }>('SELECT id FROM things ORDER BY id')).map((r) => r.id), [3, 5]);
    assert.equal(db.inTransaction, false);
  } finally {
    await db.close();
  }
});

test('migratePg: several nodes (separate pools) starting at once migrate once; a later start finds the schema current', async () => {
  const url = await cluster.createDatabase();
  const nodes = [1, 2, 3, 4].map(() => new PgDb({ url, max: 2 }));
  try {
    const applied = await Promise.all(nodes.map((db) => migratePg(db, MIGRATIONS)));
    assert.deepEqual(applied.sort(), [0, 0, 0, 2]);
    assert.equal(await migratePg(nodes[0]!, MIGRATIONS), 0);
    const versions = await nodes[1]!.rows<{ version: number }>('SELECT version FROM loupe_schema ORDER BY version');
    assert.deepEqual(versions.map((r) => r.version), [1, 2]);
  } finally {
    await Promise.all(nodes.map((db) => db.close()));
  }
});

test('PgDb: a server that cannot be reached is a coded STORAGE_UNAVAILABLE error, not a raw socket error', async () => {
  const db = new PgDb({ url: 'postgres://postgres@127.0.0.1:1/none' });
  try {
    await assert.rejects(db.query('SELECT 1'), (e: unknown) => e instanceof LoupeError && e.code === 'STORAGE_UNAVAILABLE' && /cannot be reached/.test(e.message));
    await assert.rejects(db.transaction(async () => 1), (e: unknown) => e instanceof LoupeError && e.code === 'STORAGE_UNAVAILABLE');
  } finally {
    await db.close();
  }
});
