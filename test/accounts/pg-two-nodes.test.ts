/**
 * The engine's account side on PostgreSQL: two engines, each an HTTP server on 127.0.0.1 with its
 * own data dir (the index stays SQLite), sharing one real PostgreSQL 15 cluster for users, keys,
 * ledger, history, codes and sessions. What only a shared database can show, through the real API:
 * a burst of paid calls spread over both nodes never overdraws a small limit and leaves the ledger
 * and history exact; an account signed up on one node signs in and is used on the other; a key
 * disabled on one node is refused by the other at once; a failed call is free; two nodes starting at
 * once make one owner.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import type { FastifyInstance } from 'fastify';
import { EngineCore } from '../../server/engine/core';
import { createHttpApp } from '../../server/host';
import { silentLogger } from '../../server/engine/log';
import { newId } from '../../server/engine/util/ids';
import { openPgStorage, type PgStorage } from '../../server/engine/store/pg/storage';
import { startPostgres, type PgCluster } from '../helpers/postgres';
import { FIXTURES, tempDir } from '../helpers/engine';

let cluster: PgCluster;
before(async () => { cluster = await startPostgres(); });
after(async () => { await cluster?.stop(); });

interface Node {
  engine: EngineCore;
  app: FastifyInstance;
  base: string;
  /** The code of the last mail this node sent, per address. */
  codes: Map<string, string>;
}

interface Reply { status: number; body: any }

async function call(node: Node, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(`${node.base}${url}`, {
    method, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, body: parsed };
}

/** Two nodes on one fresh database, each its own engine, pool and HTTP server; all stopped after `run`. */
async function twoNodes(run: (a: Node, b: Node, db: PgStorage) => Promise<void>, accounts: Record<string, unknown> = {}): Promise<void> {
  const url = await cluster.createDatabase();
  const nodes: Node[] = [];
  const inspect = await openPgStorage(url, silentLogger, { max: 2 });
  try {
    for (let i = 0; i < 2; i++) {
      const engine = new EngineCore({
        dataDir: tempDir(`loupe-node${i}-`), log: silentLogger, allowedRoots: [os.tmpdir(), FIXTURES], githubApiUrl: 'http://127.0.0.1:9',
        accounts, accountStorage: await openPgStorage(url, silentLogger, { max: 5 }),
      });
      const app = await createHttpApp(engine);
      const codes = new Map<string, string>();
      engine.ops.auth.onMail((m) => { const code = /\b(\d{6})\b/.exec(m.subject)?.[1]; if (code) codes.set(m.to, code); });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      nodes.push({ engine, app, base: `http://127.0.0.1:${port}`, codes });
    }
    await run(nodes[0], nodes[1], inspect);
  } finally {
    for (const node of nodes) {
      await node.app.close();
      await node.engine.close();
    }
    await inspect.close();
  }
}

/** A user made on node `a` through the engine (stored in PostgreSQL), with a credit limit and an active key. */
async function addUser(a: Node, db: PgStorage, credits: number): Promise<{ userId: string; key: string; keyId: string }> {
  const userId = newId();
  await db.accounts.insertUser({ id: userId, email: `${userId}@example.test`, display_name: null, plan: 'FREE', is_owner: 0 });
  await db.accounts.setCreditLimit(userId, credits);
  const key = newId();
  const keyId = await a.engine.accounts.addKeyAsync(userId, key, 'active');
  return { userId, key, keyId };
}

test('two nodes starting at once on one database make one owner, and each accepts the seeded key', () => twoNodes(async (a, b, db) => {
  const key = newId();
  const [ra, rb] = await Promise.all([a.engine.ops.owner.ensure(key), b.engine.ops.owner.ensure(key)]);
  assert.equal(ra.userId, rb.userId, 'one owner, read by the second node');
  assert.equal((await db.accounts.owner())?.id, ra.userId);
  assert.equal((await db.accounts.keysOf(ra.userId)).length, 1, 'the seeded key stored once');
  for (const node of [a, b]) {
    const res = await call(node, 'GET', '/v2/keys', undefined, { 'x-api-key': key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.meta.tier, 'ENTERPRISE');
  }
}));

test('a burst of paid calls over both nodes never overdraws a small limit; ledger and history stay exact', () => twoNodes(async (a, b, db) => {
  const users = await Promise.all([addUser(a, db, 23), addUser(a, db, 40), addUser(a, db, 17)]);
  const [small] = users;
  // 60 calls for the small user, alternating nodes: listings (1 credit, no history) and searches
  // (5 credits, a history row each); the other users' calls at the same time share the nodes' batches.
  const plan = Array.from({ length: 60 }, (_, i) => ({ node: i % 2 ? b : a, search: i % 3 === 0 }));
  const send = (node: Node, key: string, search: boolean) => search
    ? call(node, 'POST', '/v2/search', { query: `needle ${newId()}` }, { 'x-api-key': key })
    : call(node, 'GET', '/v2/repos', undefined, { 'x-api-key': key });
  const others = users.slice(1).flatMap((u) => Array.from({ length: 30 }, (_, i) => send(i % 2 ? a : b, u.key, i % 4 === 0)));
  const [replies] = await Promise.all([Promise.all(plan.map((p) => send(p.node, small.key, p.search))), Promise.all(others)]);

  const statuses = replies.map((r) => r.status);
  assert.ok(statuses.every((s) => s === 200 || s === 402), `only answers and refusals: ${JSON.stringify(replies.find((r) => r.status !== 200 && r.status !== 402)?.body)}`);
  for (const r of await Promise.all(others)) assert.ok(r.status === 200 || r.status === 402, `other users: ${r.status} ${JSON.stringify(r.body)}`);
  const ok = replies.filter((r) => r.status === 200);
  const searches = ok.filter((r) => r.body.meta.history_id);
  const spent = searches.length * 5 + (ok.length - searches.length);
  assert.ok(spent <= 23, `charged ${spent} on a limit of 23`);
  assert.ok(spent >= 23 - 4, `charged ${spent}: a call that fitted was not refused (at most a search's worth left)`);
  for (const r of replies.filter((x) => x.status === 402)) assert.equal(r.body.code, 'INSUFFICIENT_CREDITS');

  // The ledger, the totals and the history agree with what the callers were told, on both nodes.
  assert.equal(await db.accounts.creditsUsed(small.userId), spent);
  const ledger = await db.accounts.chargesByOperation(small.userId, '1970-01-01T00:00:00.000Z');
  assert.equal(ledger.reduce((n, row) => n + row.credits, 0), spent, 'the ledger sums to the totals');
  assert.equal(ledger.reduce((n, row) => n + row.calls, 0), ok.length, 'one call in the ledger per answer');
  const history = await db.history.list({ userId: small.userId, limit: 100, offset: 0 });
  assert.equal(history.total, searches.length, 'one history row per search answered, none for refusals');
  assert.deepEqual(new Set(history.items.map((h) => h.id)), new Set(searches.map((r) => r.body.meta.history_id)));
  assert.ok(history.items.every((h) => h.credits === 5 && h.category === 'search'));
  const remaining = ok.map((r) => r.body.meta.credits_remaining);
  assert.equal(Math.min(...remaining), 23 - spent, 'the last answer reports what is left');
  assert.equal(new Set(remaining).size, remaining.length, 'every answer saw its own balance (each charge serialised on the totals row)');
  for (const node of [a, b]) {
    const stats = await call(node, 'GET', '/v2/stats/usage?range=7d', undefined, { 'x-api-key': small.key });
    assert.equal(stats.status, 200);
    assert.equal(stats.body.data.credits_used, spent, 'both nodes report the same usage');
    assert.equal(stats.body.data.credits_remaining, 23 - spent);
  }
  for (const u of users.slice(1)) {
    const used = await db.accounts.creditsUsed(u.userId);
    const limit = (await db.accounts.user(u.userId))!.credit_limit!;
    assert.ok(used <= limit, `user with ${limit} credits charged ${used}`);
  }
}));

test('sign-up on one node, verify and use the key on the other; a key disabled on one node is refused by both', () => twoNodes(async (a, b) => {
  const email = `ada-${newId().slice(0, 8)}@example.test`;
  const signup = await call(a, 'POST', '/v2/auth/authenticate', { auth_mode: 'otp', email, should_create_user: true });
  assert.equal(signup.status, 200, JSON.stringify(signup.body));
  const pendingKey: string = signup.body.data.api_key.key;
  assert.equal((await call(b, 'GET', '/v2/keys', undefined, { 'x-api-key': pendingKey })).status, 401, 'pending until verified');
  const code = a.codes.get(email);
  assert.ok(code, 'node a mailed the code');
  const verified = await call(b, 'POST', '/v2/auth/verify', { email, token: code });
  assert.equal(verified.status, 200, JSON.stringify(verified.body));
  const session: string = verified.body.data.session.access_token;
  for (const node of [a, b]) {
    assert.equal((await call(node, 'GET', '/v2/keys', undefined, { 'x-api-key': pendingKey })).status, 200, 'the key is active on every node');
    assert.equal((await call(node, 'GET', '/v2/history', undefined, { authorization: `Bearer ${session}` })).status, 200, 'the session works on every node');
  }
  // The code was used once: verifying again on the first node fails.
  assert.equal((await call(a, 'POST', '/v2/auth/verify', { email, token: code })).status, 400);
  // Sign in again (a sign-in code) on b, verify on a.
  const signin = await call(b, 'POST', '/v2/auth/authenticate', { auth_mode: 'otp', email });
  assert.equal(signin.status, 200);
  const again = await call(a, 'POST', '/v2/auth/verify', { email, token: b.codes.get(email) });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  const signinKey: string = again.body.data.api_key.key;
  const keys = await call(b, 'GET', '/v2/keys', undefined, { 'x-api-key': signinKey });
  assert.equal(keys.body.data.length, 2);
  const primary = keys.body.data.find((k: { kind: string }) => k.kind === 'primary');
  assert.equal((await call(a, 'DELETE', `/v2/keys/${primary.key_id}`, undefined, { 'x-api-key': signinKey })).status, 200);
  for (const node of [a, b]) {
    assert.equal((await call(node, 'GET', '/v2/keys', undefined, { 'x-api-key': pendingKey })).status, 401, 'disabled on every node at once');
  }
}));

test('a failed call is free on PostgreSQL too, and a refund after a settled answer takes back charge and history', () => twoNodes(async (a, b, db) => {
  const u = await addUser(a, db, 50);
  const missing = await call(b, 'GET', `/v2/files/${newId()}`, undefined, { 'x-api-key': u.key });
  assert.equal(missing.status, 404);
  const badRepo = await call(a, 'POST', '/v2/search', { query: 'x', repo_ids: [newId()] }, { 'x-api-key': u.key });
  assert.ok(badRepo.status >= 400, `search of an unknown repository: ${badRepo.status}`);
  assert.equal(await db.accounts.creditsUsed(u.userId), 0, 'nothing charged for failures');
  assert.equal((await db.history.list({ userId: u.userId, limit: 10, offset: 0 })).total, 0, 'no history for failures');
  assert.equal((await a.engine.accounts.credits.balanceOf(u.userId)).remaining, 50);
  assert.equal(await b.engine.accounts.credits.reserveAsync(u.userId, 50, 'x').then((r) => { b.engine.accounts.credits.release(r); return r.credits; }), 50,
    'no reservation was left behind on either node');

  // A settled answer that is then taken back (the transport could not deliver it).
  const settled = await a.engine.accounts.settleSoon({ userId: u.userId, operation: 'search.run', credits: 5, history: { category: 'search', query: 'q' } });
  assert.equal(await db.accounts.creditsUsed(u.userId), 5);
  await a.engine.accounts.refundAsync(settled);
  assert.equal(await db.accounts.creditsUsed(u.userId), 0);
  assert.equal((await db.history.list({ userId: u.userId, limit: 10, offset: 0 })).total, 0);
  // The synchronous paths are SQLite's: here they refuse instead of running half the work.
  assert.throws(() => a.engine.accounts.settle({ userId: u.userId, operation: 'x', credits: 1 }), /SQLite|await/);
}));

test('group commit on PostgreSQL (when turned on): two nodes batching the same users in opposite orders neither deadlock nor overdraw', () => twoNodes(async (a, b, db) => {
  // Group commit is off on PostgreSQL by default (per-charge transactions run side by side on the
  // pool); turned on, a batch must take its totals rows in user-id order like every other node.
  for (const node of [a, b]) node.engine.accounts.credits.groupCommit = true;
  const users = await Promise.all(Array.from({ length: 6 }, () => addUser(a, db, 60)));
  const ids = users.map((u) => u.userId);
  let asked = 0;
  const round = (node: Node, order: string[]) => {
    // One turn of the event loop: the first charge settles alone, the rest share one transaction.
    const calls = order.flatMap((userId) => [1, 2, 3].map((credits) => {
      asked += credits;
      return node.engine.accounts.settleSoon({ userId, operation: 'test.batch', credits, history: { category: 'search', query: 'batched' } })
        .then((s) => s.charged, (error: { code?: string }) => {
          if (error.code !== 'INSUFFICIENT_CREDITS') throw error;
          return 0;
        });
    }));
    return Promise.all(calls);
  };
  let charged = 0;
  for (let r = 0; r < 8; r++) {
    const results = await Promise.all([round(a, ids), round(b, [...ids].reverse())]);
    charged += results.flat().reduce((n, c) => n + c, 0);
  }
  assert.ok(asked > 6 * 60, 'more was asked than the limits allow');
  let total = 0;
  for (const u of users) {
    const used = await db.accounts.creditsUsed(u.userId);
    assert.ok(used <= 60 && used >= 57, `user charged ${used} of 60`);
    const history = await db.history.list({ userId: u.userId, limit: 200, offset: 0 });
    assert.equal(history.items.reduce((n, h) => n + h.credits, 0), used, 'history rows carry exactly the credits charged');
    total += used;
  }
  assert.equal(total, charged, 'what the callers were told is what the ledger holds');
}));
