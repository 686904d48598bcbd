/**
 * The storage conformance suite on the team server's PostgreSQL (a private real cluster for this
 * file, a fresh database per case, migrated from nothing as a node opens it), and what only a
 * database shared by several nodes can show: charges from two nodes (two processes' pools) on one
 * user stay exact and never overdraw; two nodes compacting the ledger at once count each minute once.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storageConformance } from './storage-conformance';
import { openPgStorage, type PgStorage } from '../../server/engine/store/pg/storage';
import { PG_MIGRATIONS } from '../../server/engine/store/pg/migrations';
import { silentLogger } from '../../server/engine/log';
import { newId } from '../../server/engine/util/ids';
import { startPostgres, type PgCluster } from '../helpers/postgres';

let cluster: PgCluster;
before(async () => { cluster = await startPostgres(); });
after(async () => { await cluster?.stop(); });

storageConformance('PostgreSQL', async () => openPgStorage(await cluster.createDatabase(), silentLogger));

/** Two API nodes on one database: each its own pool, as two processes would have. */
async function twoNodes(run: (a: PgStorage, b: PgStorage) => Promise<void>): Promise<void> {
  const url = await cluster.createDatabase();
  const [a, b] = await Promise.all([openPgStorage(url, silentLogger, { max: 5 }), openPgStorage(url, silentLogger, { max: 5 })]);
  try {
    await run(a, b);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}

test('PostgreSQL, two nodes: 50 charges at once on one user, each checking the balance in its transaction, stop exactly at the limit', () => twoNodes(async (a, b) => {
  const user = newId();
  await a.accounts.insertUser({ id: user, email: null, display_name: null, plan: 'FREE', is_owner: 0 });
  await a.accounts.setCreditLimit(user, 100);
  // What settle does: read the balance, charge if it fits, commit; half the calls on each node.
  const charge = (node: PgStorage, cost: number) => node.transaction(async () => {
    const used = await node.accounts.creditsUsed(user);
    await new Promise((r) => setTimeout(r, 1)); // widen the window between the check and the charge
    if (100 - used < cost) return 0;
    await node.accounts.recordCharge(user, 'search.run', cost);
    return cost;
  });
  const costs = Array.from({ length: 50 }, (_, i) => 1 + (i % 4)); // 1..4, 125 credits asked in all
  const charged = await Promise.all(costs.map((cost, i) => charge(i % 2 ? a : b, cost)));
  const total = charged.reduce((n, c) => n + c, 0);
  assert.ok(total <= 100 && total > 96, `charged ${total}: no overdraft, and nothing refused that fitted`);
  for (const node of [a, b]) {
    assert.equal(await node.accounts.creditsUsed(user), total, 'both nodes read the same totals');
    const ledger = await node.accounts.chargesByOperation(user, '1970-01-01T00:00:00.000Z');
    assert.equal(ledger.reduce((n, r) => n + r.credits, 0), total, 'the ledger sums to the totals');
    assert.equal(ledger.reduce((n, r) => n + r.calls, 0), charged.filter(Boolean).length, 'one call counted per charge');
  }
}));

test('PostgreSQL, two nodes: 50 unchecked charges at once (no transaction) add up exactly in the same minute row', () => twoNodes(async (a, b) => {
  const user = newId();
  await a.accounts.insertUser({ id: user, email: null, display_name: null, plan: 'FREE', is_owner: 0 });
  const at = '2026-05-01T08:00:30.000Z';
  await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).accounts.recordCharge(user, 'repos.list', 2, at)));
  assert.deepEqual([await b.accounts.creditsUsed(user), await a.accounts.ledgerRows(user)], [100, 1]);
  assert.deepEqual(await a.accounts.chargesByOperation(user, at.slice(0, 16) + ':00.000Z'), [{ operation: 'repos.list', calls: 50, credits: 100 }]);
  // A refund on either node takes its call back out of the same row.
  await b.accounts.takeBackCharge({ userId: user, operation: 'repos.list', credits: 2, at });
  assert.deepEqual(await a.accounts.chargesByOperation(user, '1970-01-01T00:00:00.000Z'), [{ operation: 'repos.list', calls: 49, credits: 98 }]);
  assert.equal(await a.accounts.creditsUsed(user), 98);
}));

test('PostgreSQL, two nodes: compacting the ledger on both at once merges each minute once; the balance does not move', () => twoNodes(async (a, b) => {
  const users = [newId(), newId()];
  for (const user of users) await a.accounts.insertUser({ id: user, email: null, display_name: null, plan: 'FREE', is_owner: 0 });
  for (const user of users) {
    for (let minute = 0; minute < 30; minute++) {
      const at = `2026-01-0${1 + (minute % 3)}T10:${String(minute).padStart(2, '0')}:00.000Z`;
      await a.accounts.recordCharge(user, minute % 2 ? 'search.run' : 'files.get', 1 + (minute % 5), at);
    }
  }
  const before = await Promise.all(users.map((u) => a.accounts.creditsUsed(u)));
  const removed = await Promise.all([a.accounts.compactLedger('2026-02-01T00:00:00.000Z'), b.accounts.compactLedger('2026-02-01T00:00:00.000Z')]);
  assert.equal(removed[0] + removed[1], 2 * (30 - 6), '30 minute rows per user became 6 day rows (3 days × 2 operations), counted once');
  for (const [i, user] of users.entries()) {
    assert.equal(await a.accounts.ledgerRows(user), 6);
    assert.equal(await b.accounts.creditsUsed(user), before[i]);
    const sum = (await a.accounts.chargesByOperation(user, '1970-01-01T00:00:00.000Z')).reduce((n, r) => n + r.credits, 0);
    assert.equal(sum, before[i], 'the ledger still sums to the totals');
  }
}));

test('PostgreSQL: two nodes opening one database at once migrate it once; a user\'s totals row exists from its creation', async () => {
  const url = await cluster.createDatabase();
  const nodes = await Promise.all([1, 2, 3].map(() => openPgStorage(url, silentLogger, { max: 2 })));
  try {
    const versions = await nodes[0]!.db.rows<{ version: number }>('SELECT version FROM loupe_schema ORDER BY version');
    assert.deepEqual(versions.map((r) => r.version), PG_MIGRATIONS.map((m) => m.version).sort((x, y) => x - y));
    const user = newId();
    await nodes[1]!.accounts.insertUser({ id: user, email: null, display_name: null, plan: 'FREE', is_owner: 0 });
    assert.deepEqual(await nodes[2]!.db.rows('SELECT used FROM credit_totals WHERE user_id = $1', [user]), [{ used: 0 }]);
    await assert.rejects(nodes[0]!.accounts.insertUser({ id: newId(), email: null, display_name: null, plan: 'X', is_owner: 1 }).then(() =>
      nodes[1]!.accounts.insertUser({ id: newId(), email: null, display_name: null, plan: 'X', is_owner: 1 })), /users_one_owner/, 'one owner at most');
  } finally {
    await Promise.all(nodes.map((n) => n.close()));
  }
});

test('PostgreSQL, two nodes: a node that stalls in the middle of a charge holds the user\'s balance only until the idle timeout', async () => {
  const url = await cluster.createDatabase();
  const [a, b] = [await openPgStorage(url, silentLogger, { max: 2, idleInTransactionMs: 300 }), await openPgStorage(url, silentLogger, { max: 2 })];
  try {
    const user = newId();
    await a.accounts.insertUser({ id: user, email: null, display_name: null, plan: 'FREE', is_owner: 0 });
    let lockTaken!: () => void;
    const locked = new Promise<void>((r) => { lockTaken = r; });
    const stalled = a.transaction(async () => {
      await a.accounts.creditsUsed(user); // takes the totals row
      lockTaken();
      await new Promise((r) => setTimeout(r, 3000)); // hangs past the timeout
      await a.accounts.recordCharge(user, 'search.run', 50);
    });
    await locked;
    const t = performance.now();
    await b.transaction(async () => { await b.accounts.creditsUsed(user); await b.accounts.recordCharge(user, 'search.run', 5); });
    const waited = performance.now() - t;
    assert.ok(waited >= 200 && waited < 2500, `the other node waited ${waited.toFixed(0)} ms, until the stalled transaction was ended`);
    await assert.rejects(stalled, (e: unknown) => e instanceof Error && /idle/.test(e.message));
    assert.equal(await b.accounts.creditsUsed(user), 5, 'only the charge that committed');
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('PostgreSQL, two nodes: turns of one conversation written at once get successive numbers; a one-time code is consumed by one node only', () => twoNodes(async (a, b) => {
  const user = newId();
  await a.accounts.insertUser({ id: user, email: 'turns@example.test', display_name: null, plan: 'FREE', is_owner: 0 });
  const conversation = newId();
  await a.history.insertConversation({ id: conversation, user_id: user, title: 't', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' });
  // What history.record does in the settle transaction: number the turn, then write it.
  const turn = (node: PgStorage) => node.transaction(async () => {
    const seq = await node.history.nextSeq(conversation);
    await new Promise((r) => setTimeout(r, 5)); // both nodes would read the same max without the lock
    await node.history.insert({ id: newId(), user_id: user, conversation_id: conversation, seq, category: 'research', operation: 'search.research',
      query: 'q', repo_ids: '[]', summary: null, result: null, credits: 0, duration_ms: 0, created_at: new Date().toISOString() });
    return seq;
  });
  const seqs = await Promise.all(Array.from({ length: 6 }, (_, i) => turn(i % 2 ? a : b)));
  assert.deepEqual(seqs.sort((x, y) => x - y), [1, 2, 3, 4, 5, 6]);
  assert.deepEqual((await b.history.thread(conversation)).map((r) => r.seq), [1, 2, 3, 4, 5, 6]);

  await a.auth.insertOtp({ id: 'code', email: 'turns@example.test', user_id: user, purpose: 'signin', code_hash: 'h', key_id: null, expires_at: '2999-01-01T00:00:00.000Z' });
  const consumed = await Promise.all([a, b, a, b].map((node) => node.auth.consumeOtp('code')));
  assert.deepEqual(consumed.filter(Boolean).length, 1, 'one verify wins');
}));

test('PostgreSQL, two nodes: checked charges, unchecked charges and refunds of one user in one minute, all at once, never deadlock', () => twoNodes(async (a, b) => {
  const user = newId();
  await a.accounts.insertUser({ id: user, email: null, display_name: null, plan: 'FREE', is_owner: 0 });
  const at = new Date().toISOString();
  // Every path that writes the ledger takes the user's totals row first; a path that took the
  // minute's ledger row first (its trigger then waiting for the totals row) would deadlock with a
  // checked charge holding the totals row and waiting for that ledger row.
  const checked = (node: PgStorage) => node.transaction(async () => {
    await node.accounts.creditsUsed(user);
    await new Promise((r) => setTimeout(r, 2));
    await node.accounts.recordCharge(user, 'search.run', 2, at);
  });
  const unchecked = (node: PgStorage) => node.accounts.recordCharge(user, 'search.run', 2, at);
  const refund = (node: PgStorage) => node.transaction(async () => {
    await node.accounts.recordCharge(user, 'search.run', 2, at);
    await new Promise((r) => setTimeout(r, 2));
    await node.accounts.takeBackCharge({ userId: user, operation: 'search.run', credits: 2, at });
  });
  const ops = Array.from({ length: 60 }, (_, i) => [checked, unchecked, refund][i % 3]!(i % 2 ? a : b));
  const outcomes = await Promise.allSettled(ops);
  const failed = outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason));
  assert.deepEqual(failed, [], 'no call failed');
  assert.equal(await a.accounts.creditsUsed(user), 2 * 40, '20 checked + 20 unchecked charges; the 20 refunded ones took themselves back');
  assert.deepEqual(await b.accounts.chargesByOperation(user, '1970-01-01T00:00:00.000Z'), [{ operation: 'search.run', calls: 40, credits: 80 }]);
}));
