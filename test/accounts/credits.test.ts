import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { createTestApp, createTestEngine } from '../helpers/engine';
import { createHttpApp } from '../../server/host';
import { callerOf, send } from '../../server/transport/http/context';
import { metered } from '../../server/engine/operations/metering';
import { newId } from '../../server/engine/util/ids';
import { addUser } from './helpers';

test('50 parallel paid calls on a balance of exactly 10 charge exactly 10 and refuse the rest with 402', async () => {
  const t = await createTestApp();
  try {
    const u = addUser(t, { credits: 10 });
    const results = await Promise.all(Array.from({ length: 50 }, () => u.as('GET', '/v2/repos')));
    const okCalls = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    assert.equal(okCalls.length, 10);
    assert.equal(refused.length, 40);
    for (const r of refused) {
      assert.equal(r.body.code, 'INSUFFICIENT_CREDITS');
      assert.equal(r.body.required, 1);
      assert.equal(typeof r.body.available, 'number');
      assert.ok(r.body.available < 1);
    }
    assert.equal(t.engine.accounts.credits.balance(u.userId).used, 10);
    assert.equal(t.engine.accounts.credits.available(u.userId), 0, 'no reservation left behind');
    const meta = okCalls.map((r) => r.body.meta.credits_remaining).sort((a, b) => a - b);
    assert.deepEqual(meta, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const after = await u.as('GET', '/v2/repos');
    assert.equal(after.status, 402);
    assert.deepEqual([after.body.required, after.body.available], [1, 0]);
  } finally {
    await t.close();
  }
});

test('the pre-check holds under interleaving: paid operations that await before charging', async () => {
  const t = createTestEngine();
  // A paid operation whose work awaits (as search and research do): without reservations every call
  // would pass the balance check before the first one charges.
  const app = await createHttpApp(t.engine);
  let ran = 0;
  app.get('/test/slow', async (request, reply) => send(reply, await metered(t.engine.accounts, callerOf(request), { operation: 'test.slow', cost: 2, history: 'search' }, async (meter) => {
    await delay(5 + Math.random() * 10);
    ran += 1;
    if ((request.query as { fail?: string }).fail) throw new Error('the operation failed');
    return meter.answer({ done: true }, { history: { query: 'slow' } });
  })));
  await app.ready();
  try {
    const userId = newId();
    t.engine.accounts.store.insertUser({ id: userId, email: 'slow@example.test', display_name: null, plan: 'FREE', is_owner: 0 });
    t.engine.accounts.store.setCreditLimit(userId, 20);
    const key = newId();
    t.engine.accounts.addKey(userId, key, 'active');
    const call = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    const failing = await Promise.all(Array.from({ length: 5 }, () => call('/test/slow?fail=1')));
    assert.deepEqual(failing.map((r) => r.statusCode), [500, 500, 500, 500, 500]);
    ran = 0;
    const results = await Promise.all(Array.from({ length: 50 }, () => call('/test/slow')));
    assert.equal(ran, 10, 'refused calls are refused before the operation runs');
    assert.equal(results.filter((r) => r.statusCode === 200).length, 10);
    assert.equal(results.filter((r) => r.statusCode === 402).length, 40);
    assert.equal(t.engine.accounts.credits.balance(userId).used, 20);
    assert.equal(t.engine.history.list(userId, { limit: 100, offset: 0 }).total, 10, 'one history row per charged call');
    assert.equal(t.engine.accounts.credits.available(userId), 0);
  } finally {
    await app.close();
    await t.close();
  }
});

test('a failed operation charges nothing and releases its reservation', async () => {
  const t = await createTestApp();
  try {
    const u = addUser(t, { credits: 5 });
    const missing = await u.as('GET', '/v2/files/00000000-0000-4000-8000-000000000000');
    assert.equal(missing.status, 404);
    const invalid = await u.as('GET', '/v2/repos?limit=0');
    assert.equal(invalid.status, 400);
    assert.equal(t.engine.accounts.credits.balance(u.userId).used, 0);
    assert.equal(t.engine.accounts.credits.available(u.userId), 5);
    assert.equal(t.engine.history.list(u.userId, { limit: 10, offset: 0 }).total, 0);
  } finally {
    await t.close();
  }
});

test('settle: the operation\'s writes, the charge and the history row commit or roll back together', async () => {
  const t = await createTestApp();
  try {
    const u = addUser(t, { credits: 6 });
    const accounts = t.engine.accounts;
    // Variable cost beyond the balance: refused, and the effect's write is rolled back.
    const r = accounts.reserve(u.userId, 5, 'search.run');
    assert.throws(() => accounts.settle({ userId: u.userId, operation: 'search.run', credits: 9, reservation: r, history: { category: 'research', query: 'q' } }, () => {
      t.engine.history.record({ userId: u.userId, category: 'effect', query: 'written by the operation' });
    }), (e: any) => e.code === 'INSUFFICIENT_CREDITS' && e.details.required === 9 && e.details.available === 6);
    assert.equal(r.released, true);
    assert.equal(t.engine.history.list(u.userId, { limit: 10, offset: 0 }).total, 0, 'effect rolled back');
    assert.equal(accounts.credits.balance(u.userId).used, 0);
    // An effect that throws charges nothing.
    assert.throws(() => accounts.settle({ userId: u.userId, operation: 'x', credits: 1 }, () => { throw new Error('boom'); }), /boom/);
    assert.equal(accounts.credits.balance(u.userId).used, 0);
    // Success: charge and history row with the charged credits.
    const ok = accounts.settle({ userId: u.userId, operation: 'search.run', credits: 4, history: { category: 'search', query: 'hello', newConversation: true } });
    assert.equal(ok.charged, 4);
    const item = t.engine.history.get(u.userId, ok.history!.historyId);
    assert.equal(item.credits, 4);
    assert.equal(item.conversation_id, ok.history!.conversationId);
    // A delivered stream is capped at the balance instead of refused.
    const capped = accounts.settle({ userId: u.userId, operation: 'research', credits: 50, capAtBalance: true });
    assert.equal(capped.charged, 2);
    assert.equal(accounts.meta(u.userId).credits_remaining, 0);
  } finally {
    await t.close();
  }
});

test('costs and the owner\'s balance are configuration', async () => {
  const t = await createTestApp({ accounts: { costs: { 'repos.list': 3 }, owner: { credits: 4 } } });
  try {
    const first = await t.call('GET', '/v2/repos');
    assert.equal(first.status, 200);
    assert.equal(first.body.meta.credits_used, 3);
    assert.equal(first.body.meta.credits_remaining, 1);
    assert.equal(first.body.meta.tier, 'ENTERPRISE');
    const second = await t.call('GET', '/v2/repos');
    assert.equal(second.status, 402);
    assert.deepEqual([second.body.required, second.body.available], [3, 1]);
  } finally {
    await t.close();
  }
});
