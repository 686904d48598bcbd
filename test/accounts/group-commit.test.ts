import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createTestApp, createTestEngine } from '../helpers/engine';
import { newId } from '../../server/engine/util/ids';
import { addUser } from './helpers';

/** Commits recorded in a WAL file: frames whose header carries the database size after a commit. */
function commitsInWal(file: string): number {
  const wal = fs.readFileSync(file);
  const pageSize = wal.readUInt32BE(8);
  let commits = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) if (wal.readUInt32BE(at + 4) !== 0) commits++;
  return commits;
}

const ledgerRows = (db: Database.Database, userId: string) =>
  (db.prepare('SELECT operation, credits FROM credit_ledger WHERE user_id = ? ORDER BY id').all(userId) as { operation: string; credits: number }[]);

test('charges settled in one turn share a commit; a refused one loses only itself', async () => {
  const t = createTestEngine();
  try {
    const history = { category: 'search', query: 'q' };
    t.engine.accounts.credits.loneChargeGapMs = Number.POSITIVE_INFINITY; // as under load: every charge waits to share
    t.engine.db.pragma('wal_autocheckpoint = 0');
    t.engine.db.pragma('wal_checkpoint(TRUNCATE)');
    // Three paid operations running at once, as concurrent requests are: each holds its reservation.
    const reservation = (credits: number) => t.engine.accounts.reserve(t.ownerId, credits, 'test');
    const [ra, rb, rc] = [reservation(1), reservation(2), reservation(3)];
    const results = await Promise.allSettled([
      t.engine.accounts.settleSoon({ userId: t.ownerId, operation: 'a', credits: 1, history, reservation: ra }),
      t.engine.accounts.settleSoon({ userId: t.ownerId, operation: 'b', credits: 2, history: { ...history, conversationId: newId() }, reservation: rb }),
      t.engine.accounts.settleSoon({ userId: t.ownerId, operation: 'c', credits: 3, history, reservation: rc }),
    ]);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.match(String((results[1] as PromiseRejectedResult).reason.message), /conversation/);
    assert.deepEqual(ledgerRows(t.engine.db, t.ownerId), [{ operation: 'a', credits: 1 }, { operation: 'c', credits: 3 }]);
    assert.equal(t.engine.history.list(t.ownerId, { limit: 10, offset: 0 }).total, 2, 'no history row for the refused charge');
    // Each settled charge reports the balance right after itself.
    const [first, , third] = results as PromiseFulfilledResult<{ balance: { used: number } }>[];
    assert.deepEqual([first.value.balance.used, third.value.balance.used], [1, 4]);
    assert.equal(t.engine.accounts.credits.balance(t.ownerId).used, 4);
    assert.equal(commitsInWal(path.join(t.dataDir, 'accounts.db-wal')), 1, 'one commit for the three charges');
  } finally {
    await t.close();
  }
});

test('a storage failure while writing a batch fails every charge of it and keeps none', async () => {
  const t = createTestEngine();
  try {
    // A real SQLite error in the middle of the batch's writes (as a full disk would raise).
    t.engine.accounts.credits.loneChargeGapMs = Number.POSITIVE_INFINITY;
    t.engine.db.exec(`CREATE TEMP TRIGGER refuse_boom BEFORE INSERT ON credit_ledger WHEN NEW.operation = 'boom'
      BEGIN SELECT RAISE(ABORT, 'simulated write failure'); END`);
    const reservation = () => t.engine.accounts.reserve(t.ownerId, 1, 'test');
    const [r1, r2] = [reservation(), reservation()];
    const results = await Promise.allSettled([
      t.engine.accounts.settleSoon({ userId: t.ownerId, operation: 'ok', credits: 1, history: { category: 'repos' }, reservation: r1 }),
      t.engine.accounts.settleSoon({ userId: t.ownerId, operation: 'boom', credits: 1, reservation: r2 }),
    ]);
    assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
    assert.deepEqual(ledgerRows(t.engine.db, t.ownerId), []);
    assert.equal(t.engine.history.list(t.ownerId, { limit: 10, offset: 0 }).total, 0);
    assert.equal(t.engine.accounts.credits.available(t.ownerId), t.engine.accounts.credits.balance(t.ownerId).remaining, 'no reservation left');
    // The next one commits normally; alone (no charge in the last millisecond), it does not wait for
    // the end of the turn.
    t.engine.accounts.credits.loneChargeGapMs = 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const alone = t.engine.accounts.settleSoon({ userId: t.ownerId, operation: 'ok', credits: 1, reservation: reservation() });
    assert.deepEqual(ledgerRows(t.engine.db, t.ownerId), [{ operation: 'ok', credits: 1 }], 'committed before the promise is awaited');
    await alone;
  } finally {
    await t.close();
  }
});

test('a key disabled by another process stops working at the next request', async () => {
  const t = await createTestApp();
  try {
    const u = addUser(t, { credits: 100 });
    assert.equal((await u.as('GET', '/v2/repos')).status, 200);
    assert.equal((await u.as('GET', '/v2/repos')).status, 200, 'the key and user rows are now remembered');
    // Another connection to the same file, as a second Loupe process would have.
    const other = new Database(path.join(t.dataDir, 'accounts.db'));
    try {
      other.prepare("UPDATE api_keys SET state = 'disabled' WHERE id = ?").run(u.keyId);
    } finally {
      other.close();
    }
    const after = await u.as('GET', '/v2/repos');
    assert.equal(after.status, 401);
    // A plan changed by another process is seen as well.
    const owner = await t.call('GET', '/v2/repos');
    assert.equal(owner.body.meta.tier, 'ENTERPRISE');
    const again = new Database(path.join(t.dataDir, 'accounts.db'));
    try {
      again.prepare("UPDATE users SET plan = 'PRO' WHERE id = ?").run(t.ownerId);
    } finally {
      again.close();
    }
    assert.equal((await t.call('GET', '/v2/repos')).body.meta.tier, 'PRO');
  } finally {
    await t.close();
  }
});
