import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asyncStore } from '../../server/engine/store/async-store';
import { indexReads, openSqliteStorage } from '../../server/engine/store/storage';
import { silentLogger } from '../../server/engine/log';

test('asyncStore: every method answers a promise, a throw becomes a rejection, `this` is the store', async () => {
  class Base { protected n = 2; twice(x: number) { return x * this.n; } }
  class Store extends Base {
    fails(): number { throw new Error('refused'); }
    get nothing() { return 1; }
  }
  const store = asyncStore(new Store());
  const answer = store.twice(21);
  assert.ok(answer instanceof Promise);
  assert.equal(await answer, 42);
  await assert.rejects(store.fails(), /refused/);
});

test('indexReads: SQLite stores read through the async surface answer what the store answers', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-reads-'));
  const storage = openSqliteStorage(dir, silentLogger);
  t.after(() => { storage.close(); fs.rmSync(dir, { recursive: true, force: true }); });
  const reads = indexReads(storage);
  const id = '11111111-2222-4333-8444-555555555555';
  storage.repos.insert({ id, url: 'local:///x', name: 'x', source: 'local', rootPath: dir, branch: null, visibility: 'private' } as never);
  assert.deepEqual(await reads.repos.get(id), storage.repos.get(id));
  assert.equal(await reads.files.count(id), 0);
});
