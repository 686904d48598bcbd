import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFixture, createTestApp, createTestEngine } from '../helpers/engine';
import { Stats } from '../../server/engine/accounts/stats';
import { parseAccountsConfig } from '../../server/engine/accounts/config-file';
import { newId, newTimeOrderedId } from '../../server/engine/util/ids';

const DAY = 86_400_000;
const NOW = Date.parse('2026-06-15T12:34:56.789Z');
const iso = (ms: number) => new Date(ms).toISOString();

test('listings and status polls are charged but write no history row, and a few hundred of them add one ledger row a minute', async () => {
  const t = await createTestApp();
  const folder = copyFixture('ts-paths');
  try {
    await t.call('POST', '/v2/repos/index/new', { url: folder });
    await t.engine.queue.idle();
    const used = t.engine.accounts.credits.balance(t.ownerId).used;
    const historyBefore = t.engine.history.list(t.ownerId, { limit: 1, offset: 0 }).total;
    const started = Date.now();
    for (let i = 0; i < 300; i++) assert.equal((await t.call('GET', '/v2/repos')).status, 200);
    for (let i = 0; i < 100; i++) assert.equal((await t.call('POST', '/v2/repos/status', { url: folder })).status, 200);
    const minutes = Math.floor(Date.now() / 60_000) - Math.floor(started / 60_000) + 1;

    assert.equal(t.engine.history.list(t.ownerId, { limit: 1, offset: 0 }).total, historyBefore, 'no history row');
    assert.equal(t.engine.accounts.credits.balance(t.ownerId).used, used + 400, 'every call charged');
    assert.ok(t.engine.accounts.store.ledgerRows(t.ownerId) <= 2 * minutes, `one ledger row per operation and minute, got ${t.engine.accounts.store.ledgerRows(t.ownerId)}`);
    const usage = (await t.call('GET', '/v2/stats/usage')).body.data;
    assert.deepEqual(usage.by_operation.map((o: any) => [o.operation, o.calls, o.credits]), [['repos.list', 300, 300], ['repos.status', 100, 100]]);
    assert.equal(usage.credits_used, 400);
  } finally {
    await t.close();
  }
});

test('maintenance merges ledger rows older than the 90-day statistics window into daily totals; balances and statistics do not change', async () => {
  const t = createTestEngine();
  try {
    const store = t.engine.accounts.store;
    const charge = (at: number, operation: string, credits: number) => store.recordCharge(t.ownerId, operation, credits, iso(at));
    // Two old days with several minutes each, the day the window starts in, and days inside it.
    for (let m = 0; m < 5; m++) {
      charge(NOW - 200 * DAY + m * 60_000, 'search.run', 5);
      charge(NOW - 200 * DAY + m * 60_000, 'repos.list', 1);
      charge(NOW - 150 * DAY + m * 3_600_000, 'repos.list', 1);
      charge(NOW - 90 * DAY - 3_600_000 + m * 60_000, 'repos.list', 1); // straddles nothing: all before the window's first minute
      charge(NOW - 89 * DAY + m * 60_000, 'search.run', 5);
      charge(NOW - 3 * DAY + m * 60_000, 'repos.list', 1);
    }
    // A row written before charges were kept per minute (one call, no period), older than the window.
    t.engine.db.prepare('INSERT INTO credit_ledger (user_id, operation, credits, created_at) VALUES (?, ?, ?, ?)')
      .run(t.ownerId, 'search.run', 5, iso(NOW - 120 * DAY));

    const stats = new Stats(t.engine.history.store, t.engine.accounts, () => NOW);
    const snapshot = () => ({
      used: t.engine.accounts.credits.balance(t.ownerId).used,
      all: store.chargesByOperation(t.ownerId, '1970-01-01T00:00:00.000Z'),
      usage: (['7d', '30d', '90d'] as const).map((r) => stats.usage(t.ownerId, r)),
      activity: (['7d', '30d', '90d'] as const).map((r) => stats.activity(t.ownerId, r)),
    });
    const before = snapshot();
    assert.equal(before.used, 5 * (5 + 1 + 1 + 1 + 5 + 1) + 5);
    const rowsBefore = store.ledgerRows(t.ownerId);
    assert.equal(rowsBefore, 31);

    const done = t.engine.accounts.maintain(NOW);
    // Days before the window: -200 (two operations), -150 (one), -120 (one, the old row); the day
    // the window starts in keeps its minutes (the 90-day window begins within it).
    const rowsAfter = store.ledgerRows(t.ownerId);
    assert.equal(rowsAfter, 4 + 5 + 5 + 5);
    assert.equal(done.ledgerRowsMerged, rowsBefore - rowsAfter);
    assert.deepEqual(snapshot(), before, 'balances, totals and every statistics window are unchanged');
    assert.deepEqual(t.engine.accounts.maintain(NOW).ledgerRowsMerged, 0, 'a second pass has nothing to merge');
    const days = store.chargesPerDay(t.ownerId, '1970-01-01T00:00:00.000Z');
    assert.deepEqual(days.find((d) => d.day === iso(NOW - 200 * DAY).slice(0, 10)), { day: iso(NOW - 200 * DAY).slice(0, 10), calls: 10, credits: 30 });
    // New charges on a compacted day (a clock set back) add to its total.
    charge(NOW - 200 * DAY, 'search.run', 5);
    t.engine.accounts.maintain(NOW);
    assert.equal(t.engine.accounts.credits.balance(t.ownerId).used, before.used + 5);
    assert.equal(store.ledgerRows(t.ownerId), rowsAfter);
  } finally {
    await t.close();
  }
});

test('history retention: rows older than it go (365 days by default, configurable, 0 keeps all); conversations still continued stay', async () => {
  const row = (userId: string, ageDays: number, conversationId: string | null = null) => ({
    id: newTimeOrderedId(), user_id: userId, conversation_id: conversationId, seq: conversationId ? 1 : 0, category: 'search', operation: 'search.run',
    query: `${ageDays} days old`, repo_ids: '[]', summary: null, result: null, credits: 5, duration_ms: 1, created_at: iso(NOW - ageDays * DAY),
  });
  const kept = async (config: { historyRetentionDays?: number }) => {
    const t = createTestEngine({ accounts: config });
    try {
      const old = newId();
      const live = newId();
      t.engine.history.store.insertConversation({ id: old, user_id: t.ownerId, title: 'old', created_at: iso(NOW - 500 * DAY), updated_at: iso(NOW - 400 * DAY) });
      t.engine.history.store.insertConversation({ id: live, user_id: t.ownerId, title: 'live', created_at: iso(NOW - 500 * DAY), updated_at: iso(NOW - DAY) });
      for (const r of [row(t.ownerId, 400, old), row(t.ownerId, 450, live), row(t.ownerId, 100), row(t.ownerId, 10), row(t.ownerId, 1, live)]) t.engine.history.store.insert(r);
      const deleted = t.engine.accounts.maintain(NOW).historyRowsDeleted;
      const left = t.engine.history.list(t.ownerId, { limit: 100, offset: 0 }).items.map((h) => h.query);
      return { deleted, left, conversations: [old, live].filter((id) => t.engine.history.store.conversation(id)).length };
    } finally {
      await t.close();
    }
  };
  assert.deepEqual(await kept({}), { deleted: 2, left: ['1 days old', '10 days old', '100 days old'], conversations: 1 });
  assert.deepEqual(await kept({ historyRetentionDays: 30 }), { deleted: 3, left: ['1 days old', '10 days old'], conversations: 1 });
  assert.deepEqual(await kept({ historyRetentionDays: 0 }), { deleted: 0, left: ['1 days old', '10 days old', '100 days old', '400 days old', '450 days old'], conversations: 2 });
  assert.equal(parseAccountsConfig({ historyRetentionDays: 30 }).historyRetentionDays, 30);
  assert.throws(() => parseAccountsConfig({ historyRetentionDays: -1 }), /historyRetentionDays: must be a whole number >= 0/);
});
