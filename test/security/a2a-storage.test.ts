import { test } from 'node:test';
import assert from 'node:assert/strict';
import { a2aApp, operation, userMessage } from './a2a-helpers';

/**
 * Attacks on A2A storage (issue 13): 100 keyless message/send calls with a 900 KB text part added
 * 92 MB in 9 s and thousands of tasks that never expired. Now parts and messages are capped, a
 * keyless caller is rate-limited, each caller keeps a bounded number of tasks, and old ones expire.
 */
test('A2A: a 900 KB text part and an oversized keyless message are refused with -32602, and nothing is stored', async () => {
  const t = await a2aApp();
  try {
    const huge = await t.rpc('message/send', userMessage([{ kind: 'text', text: 'x'.repeat(900 * 1024) }]));
    assert.equal(huge.body.error.code, -32602);
    assert.match(huge.body.error.message, /params\.message\.parts\[0\]\.text: at most 32768 characters/);
    const wide = await t.rpc('message/send', userMessage(Array.from({ length: 4 }, () => ({ kind: 'text', text: 'y'.repeat(10_000) }))));
    assert.equal(wide.body.error.code, -32602);
    assert.match(wide.body.error.message, /params\.message: at most 32768 bytes as JSON without a key/);
    // A caller with a key may send more (bodies of operations), up to its own cap.
    const keyed = await t.rpc('message/send', operation({ operationKey: 'GET /v2/repos', body: undefined, note: 'z'.repeat(100_000) }), { 'x-api-key': t.key });
    assert.equal(keyed.body.result.status.state, 'completed');
    const tooBig = await t.rpc('message/send', operation({ operationKey: 'GET /v2/repos', note: 'z'.repeat(300_000) }), { 'x-api-key': t.key });
    assert.equal(tooBig.body.error.code, -32602);
    assert.equal(t.taskCount(), 1);
  } finally {
    await t.close();
  }
});

test('A2A: keyless callers are rate-limited (429 with Retry-After, nothing stored); callers with a key are not', async () => {
  const t = await a2aApp({ limits: { keylessRate: { max: 5, windowMs: 60_000 } } });
  try {
    for (let i = 0; i < 5; i += 1) assert.equal((await t.rpc('message/send', userMessage([{ kind: 'text', text: 'help' }]))).status, 200);
    const before = t.taskCount();
    const limited = await t.rpc('message/send', userMessage([{ kind: 'text', text: 'help' }]));
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal(limited.body.error.data.code, 'RATE_LIMITED');
    assert.equal(t.taskCount(), before);
    const rest = await t.app.inject({ method: 'POST', url: '/a2a/rest/v1/message:send', headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ message: { messageId: 'm-1', role: 'ROLE_USER', content: [{ text: 'help' }] } }) });
    assert.equal(rest.statusCode, 429);
    const keyed = await t.rpc('message/send', userMessage([{ kind: 'text', text: 'help' }]), { 'x-api-key': t.key });
    assert.equal(keyed.status, 200);
  } finally {
    await t.close();
  }
});

test('A2A: each caller keeps its newest tasks only; waiting anonymous tasks are capped too', async () => {
  const t = await a2aApp({ retention: { maxPerUser: 5, maxAnonymous: 3 } });
  try {
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      ids.push((await t.rpc('message/send', operation({ operationKey: 'GET /v2/repos' }), { 'x-api-key': t.key })).body.result.id);
    }
    const owned = (t.engine.db.prepare('SELECT count(*) AS n FROM a2a_tasks WHERE owner_user_id IS NOT NULL').get() as { n: number }).n;
    assert.equal(owned, 5);
    assert.equal((await t.rpc('tasks/get', { id: ids[0] }, { 'x-api-key': t.key })).body.error.code, -32001);
    assert.equal((await t.rpc('tasks/get', { id: ids[7] }, { 'x-api-key': t.key })).body.result.id, ids[7]);
    for (let i = 0; i < 6; i += 1) await t.rpc('message/send', userMessage([{ kind: 'text', text: 'help' }]));
    const anonymous = (t.engine.db.prepare('SELECT count(*) AS n FROM a2a_tasks WHERE owner_user_id IS NULL').get() as { n: number }).n;
    assert.equal(anonymous, 3);
  } finally {
    await t.close();
  }
});

test('A2A: tasks expire (30 days for a user, 10 minutes for a waiting anonymous task)', async () => {
  let now = Date.now();
  const t = await a2aApp({ now: () => now });
  try {
    const mine = (await t.rpc('message/send', operation({ operationKey: 'GET /v2/repos' }), { 'x-api-key': t.key })).body.result.id;
    const waiting = (await t.rpc('message/send', userMessage([{ kind: 'text', text: 'help' }]))).body.result.id;
    // Rows carry the real time of their last update; the clock moves on.
    now += 11 * 60_000;
    assert.equal((await t.rpc('tasks/get', { id: waiting })).body.error.code, -32001);
    assert.equal((await t.rpc('tasks/get', { id: mine }, { 'x-api-key': t.key })).body.result.id, mine);
    now += 31 * 24 * 3_600_000;
    assert.equal((await t.rpc('tasks/get', { id: mine }, { 'x-api-key': t.key })).body.error.code, -32001);
    assert.equal(t.taskCount(), 0);
  } finally {
    await t.close();
  }
});
