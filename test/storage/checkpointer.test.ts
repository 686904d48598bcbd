import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openSqliteStorage } from '../../server/engine/store/storage';
import { silentLogger } from '../../server/engine/log';
import { tempDir } from '../helpers/engine';
import { Checkpointer } from '../../server/engine/store/checkpointer';

test('the connection that answers requests never checkpoints: its logs are checkpointed in a worker thread', async () => {
  const dataDir = tempDir('loupe-checkpoint-');
  const s = openSqliteStorage(dataDir, silentLogger);
  try {
    assert.equal(s.db.pragma('wal_autocheckpoint', { simple: true }), 0);
    s.db.exec('CREATE TABLE scratch (body BLOB)');
    const insert = s.db.prepare('INSERT INTO scratch (body) VALUES (randomblob(40000))');
    // ~3,000 pages in thirty commits: SQLite's default would have checkpointed at the commit past 1,000.
    for (let i = 0; i < 30; i++) s.transaction(() => { for (let j = 0; j < 10; j++) insert.run(); });
    await s.checkpointer.poll();
    assert.equal(s.checkpointer.runs, 1);
    const [index] = s.checkpointer.last;
    assert.ok(index.log > 2500, `every frame was still in the log for the worker (${index.log})`);
    assert.equal(index.checkpointed, index.log, 'the worker checkpointed all of them');
    await s.checkpointer.poll();
    assert.equal(s.checkpointer.runs, 1, 'nothing written since: no second checkpoint');
  } finally {
    s.close();
  }
  for (const file of ['loupe.db', 'accounts.db']) {
    assert.equal(fs.existsSync(path.join(dataDir, `${file}-wal`)), false, `${file}: the worker closed before the main connection, which removed the log`);
  }
});

test('a small log is left as it is: light use starts no checkpoint worker', async () => {
  const s = openSqliteStorage(tempDir('loupe-checkpoint-small-'), silentLogger);
  try {
    s.db.exec('CREATE TABLE scratch (body BLOB)');
    s.db.prepare('INSERT INTO scratch (body) VALUES (randomblob(4000))').run();
    await s.checkpointer.poll();
    assert.equal(s.checkpointer.runs, 0);
  } finally {
    s.close();
  }
});

test('a worker that cannot start stops the checkpointer and hands the checkpoints back', async () => {
  const dir = tempDir('loupe-checkpoint-gone-');
  const file = path.join(dir, 'gone.db');
  // A log of 1 MB beside a database file that is not there: the worker's open fails.
  fs.writeFileSync(`${file}-wal`, Buffer.alloc(1 << 20));
  const failures: string[] = [];
  const checkpointer = new Checkpointer([file], (message) => failures.push(message));
  try {
    await checkpointer.poll();
    assert.equal(failures.length, 1, 'told once');
    assert.equal(checkpointer.runs, 0);
    await checkpointer.poll();
    assert.equal(failures.length, 1, 'stopped: no second worker');
  } finally {
    checkpointer.close();
  }
});
