/**
 * The account side's transaction seam (store/account-side.ts) on both backends: work written once
 * runs as one transaction, nested work is a savepoint, a throw keeps nothing; on SQLite the work never
 * leaves the stack inside its transaction (a promise there is refused, so no other request's write
 * can join it), on PostgreSQL it awaits each store call.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../server/engine/log';
import { newId } from '../../server/engine/util/ids';
import { openSqliteStorage } from '../../server/engine/store/storage';
import { openPgStorage } from '../../server/engine/store/pg/storage';
import { asyncAccountSide, savepoint, sq, sqliteAccountSide, type AccountSide, type Work } from '../../server/engine/store/account-side';
import { startPostgres, type PgCluster } from '../helpers/postgres';
import { tempDir } from '../helpers/engine';

let cluster: PgCluster;
before(async () => { cluster = await startPostgres(); });
after(async () => { await cluster?.stop(); });

function* addUser(side: AccountSide, id: string): Work<void> {
  yield* sq(side.stores.accounts.insertUser({ id, email: null, display_name: null, plan: 'FREE', is_owner: 0 }));
}

async function checks(side: AccountSide): Promise<void> {
  const kept = newId();
  const undone = newId();
  const inner = newId();
  // One transaction: a savepoint that throws undoes only its own writes; the outer work goes on.
  const result = await side.transaction(function* () {
    yield* addUser(side, kept);
    try {
      yield* savepoint(function* () {
        yield* addUser(side, inner);
        throw new Error('inner');
      });
    } catch (error) {
      assert.equal((error as Error).message, 'inner');
    }
    yield* sq(side.stores.accounts.recordCharge(kept, 'op', 3));
    return yield* sq(side.stores.accounts.creditsUsed(kept));
  });
  assert.equal(result, 3, 'the work reads its own writes');
  assert.ok(await side.stores.accounts.user(kept));
  assert.equal(await side.stores.accounts.user(inner), undefined, 'the failed savepoint kept nothing');
  // A throw keeps nothing of the whole transaction.
  await assert.rejects(side.transaction(function* () {
    yield* addUser(side, undone);
    yield* sq(side.stores.accounts.recordCharge(undone, 'op', 2));
    throw new Error('outer');
  }), /outer/);
  assert.equal(await side.stores.accounts.user(undone), undefined);
  assert.equal(await side.stores.accounts.creditsUsed(undone), 0);
}

test('SQLite: one transaction, savepoints, rollback; the work runs on the stack and a promise in it is refused', async () => {
  const storage = openSqliteStorage(tempDir(), silentLogger);
  try {
    const side = sqliteAccountSide(storage);
    await checks(side);
    // The whole transaction ran before transaction() returned: nothing else could run in between.
    const id = newId();
    let done = false;
    const pending = side.transaction(function* () {
      yield* addUser(side, id);
      done = true;
    });
    assert.ok(done && !storage.db.inTransaction && storage.accounts.user(id), 'committed synchronously');
    await pending;
    // A store answering a promise inside the transaction is refused, and the transaction rolled back.
    const refused = newId();
    await assert.rejects(side.transaction(function* () {
      yield* addUser(side, refused);
      yield* sq(Promise.resolve(1));
    }), (error: { code?: string }) => error.code === 'INTERNAL');
    assert.equal(storage.accounts.user(refused), undefined);
    assert.equal(side.transactionSync(() => addUser(side, newId())), undefined);
  } finally {
    storage.close();
  }
});

test('PostgreSQL: the same work awaited in one transaction; synchronous runs are refused', async () => {
  const storage = await openPgStorage(await cluster.createDatabase(), silentLogger);
  try {
    const side = asyncAccountSide(storage);
    await checks(side);
    assert.throws(() => side.runSync(() => addUser(side, newId())), /SQLite/);
    // Another connection does not see the work's writes before the commit.
    const id = newId();
    let seenOutside: unknown = 'unset';
    await side.transaction(function* () {
      yield* addUser(side, id);
      seenOutside = yield* sq(storage.db.pool.query('SELECT 1 FROM users WHERE id = $1', [id]).then((r) => r.rowCount));
    });
    assert.equal(seenOutside, 0, 'uncommitted inside, invisible to another connection');
    assert.ok(await storage.accounts.user(id));
  } finally {
    await storage.close();
  }
});
