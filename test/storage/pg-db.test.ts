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

test('PgDb: the server ending a transaction\'s session while its work awaits does not crash the process; the transaction rejects, keeps nothing, and the pool goes on', async () => {
  const url = await cluster.createDatabase();
  const db = new PgDb({ url, max: 2 });
  const admin = new PgDb({ url, max: 1 });
  try {
    await migratePg(db, MIGRATIONS);
    let gotPid!: (pid: number) => void;
    const pid = { promise: new Promise<number>((r) => { gotPid = r; }) };
    const running = db.transaction(async () => {
      await db.query("INSERT INTO things (id, name) VALUES (1, 'one')");
      gotPid((await db.one<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!.pid);
      await new Promise((r) => setTimeout(r, 500)); // the session ends during this wait
      await db.query("INSERT INTO things (id, name) VALUES (2, 'two')");
    });
    await admin.query('SELECT pg_terminate_backend($1)', [await pid.promise]);
    await assert.rejects(running, (e: unknown) => e instanceof LoupeError && e.code === 'STORAGE_UNAVAILABLE' && /nothing|Nothing/.test(e.message));
    assert.deepEqual(await db.rows('SELECT * FROM things'), [], 'nothing of it was kept');
    await db.transaction(async () => { await db.query("INSERT INTO things (id, name) VALUES (3, 'three')"); });
    assert.deepEqual((await db.rows<{ id: number }>('SELECT id FROM things')).map((r) => r.id), [3]);
  } finally {
    await Promise.all([db.close(), admin.close()]);
  }
});

test('PgDb: rows come back as the SQLite stores return them: timestamptz as ISO text with milliseconds in UTC, bigint as a number', async () => {
  const db = new PgDb({ url: await cluster.createDatabase() });
  try {
    const row = await db.one<{ at: unknown; plus: unknown; n: unknown; big: unknown }>(
      "SELECT '2026-01-01T10:00:01.5Z'::timestamptz AS at, '2026-01-01 12:00:00+02:00'::timestamptz AS plus, count(*) AS n, 9007199254740991::bigint AS big FROM (VALUES (1), (2)) v");
    assert.deepEqual(row, { at: '2026-01-01T10:00:01.500Z', plus: '2026-01-01T10:00:00.000Z', n: 2, big: 9007199254740991 });
    assert.deepEqual(await db.rows('SHOW TimeZone'), [{ TimeZone: 'UTC' }]);
  } finally {
    await db.close();
  }
});
