/**
 * The account side on PostgreSQL against SQLite: what a paid call's storage costs (the settle
 * transaction: lock and read the balance, add to the ledger's minute row, write a history row),
 * and what authenticating a call costs (a key by its hash, then its user), one at a time and with
 * 32 calls in flight from one or two nodes (separate pools) on one database. A private cluster
 * (test/helpers/postgres.ts: fsync off, loopback), so this is the SQL and round-trip cost, not a
 * disk's.
 *
 *   node_modules/.bin/node --import tsx bench/pg-accounts.ts [--calls 2000]
 */
import { parseArgs } from 'node:util';
import { silentLogger } from '../server/engine/log';
import { openSqliteStorage, type Storage } from '../server/engine/store/storage';
import { openPgStorage, type PgStorage } from '../server/engine/store/pg/storage';
import { newId, newTimeOrderedId, sha256 } from '../server/engine/util/ids';
import { startPostgres } from '../test/helpers/postgres';
import { tempDir } from '../test/helpers/engine';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '2000' } } });
const CALLS = Number(values.calls);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;
const fmt = (ms: number) => ms.toFixed(3);

const historyRow = (user: string) => ({
  id: newTimeOrderedId(), user_id: user, conversation_id: null, seq: 0, category: 'search', operation: 'search.run', query: 'q',
  repo_ids: '[]', summary: '3 results', result: null, credits: 1, duration_ms: 5, created_at: new Date().toISOString(),
});

async function seed(s: Storage | PgStorage): Promise<{ user: string; hash: string }> {
  const user = newId();
  const hash = sha256(`key-${user}`);
  await s.accounts.insertUser({ id: user, email: null, display_name: null, plan: 'ENTERPRISE', is_owner: 0 });
  await s.accounts.setCreditLimit(user, 1_000_000_000);
  await s.accounts.insertKey({ id: newId(), user_id: user, key_hash: hash, key_hint: 'x', state: 'active', is_primary: 1 });
  return { user, hash };
}

async function timeEach(n: number, call: () => Promise<unknown> | unknown): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call();
    times.push(performance.now() - t);
  }
  return times;
}

/** `n` calls with `inFlight` running at a time, spread over `nodes`; calls per second. */
async function throughput(n: number, inFlight: number, call: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < n) await call(next++);
  }));
  return n / ((performance.now() - t) / 1000);
}

async function main(): Promise<void> {
  const load = (await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').trim();
  console.log(`calls ${CALLS}; load average at start: ${load}`);

  // SQLite: the settle transaction as credits.ts runs it (synchronous, BEGIN IMMEDIATE).
  const sqlite = openSqliteStorage(tempDir('loupe-bench-accounts-'), silentLogger);
  const sq = await seed(sqlite);
  const sqliteSettle = () => sqlite.db.transaction(() => {
    sqlite.accounts.creditsUsed(sq.user);
    sqlite.accounts.recordCharge(sq.user, 'search.run', 1);
    sqlite.history.insert(historyRow(sq.user));
  }).immediate();
  const sqliteAuth = () => { const key = sqlite.accounts.keyByHash(sq.hash)!; sqlite.accounts.user(key.user_id); };
  await timeEach(200, sqliteSettle);
  const sqSettle = await timeEach(CALLS, sqliteSettle);
  const sqAuth = await timeEach(CALLS, sqliteAuth);
  sqlite.close();

  const cluster = await startPostgres();
  try {
    const url = await cluster.createDatabase();
    const [a, b] = [await openPgStorage(url, silentLogger, { max: 16 }), await openPgStorage(url, silentLogger, { max: 16 })];
    try {
      const pgUser = await seed(a);
      const settle = (s: PgStorage) => s.transaction(async () => {
        await s.accounts.creditsUsed(pgUser.user); // SELECT … FOR UPDATE on the totals row
        await s.accounts.recordCharge(pgUser.user, 'search.run', 1);
        await s.history.insert(historyRow(pgUser.user));
      });
      const auth = async (s: PgStorage) => { const key = (await s.accounts.keyByHash(pgUser.hash))!; await s.accounts.user(key.user_id); };
      await timeEach(200, () => settle(a));
      const pgSettle = await timeEach(CALLS, () => settle(a));
      const pgAuth = await timeEach(CALLS, () => auth(a));
      const oneNode = await throughput(CALLS, 32, () => settle(a));
      const twoNodes = await throughput(CALLS, 32, (i) => settle(i % 2 ? a : b));
      // Different users: the totals rows do not contend, so this is the database's own ceiling here.
      const users = await Promise.all(Array.from({ length: 32 }, () => seed(a)));
      const spread = (s: PgStorage, user: string) => s.transaction(async () => {
        await s.accounts.creditsUsed(user);
        await s.accounts.recordCharge(user, 'search.run', 1);
        await s.history.insert(historyRow(user));
      });
      const twoNodesSpread = await throughput(CALLS, 32, (i) => spread(i % 2 ? a : b, users[i % 32]!.user));
      const authTwo = await throughput(CALLS, 32, (i) => auth(i % 2 ? a : b));
      const used = await a.accounts.creditsUsed(pgUser.user);
      const ledger = (await a.accounts.chargesByOperation(pgUser.user, '1970-01-01T00:00:00.000Z')).reduce((n, r) => n + r.credits, 0);

      console.log('\n| measure | SQLite | PostgreSQL | ratio |\n|---|---|---|---|');
      console.log(`| settle transaction, one at a time, p50 ms | ${fmt(median(sqSettle))} | ${fmt(median(pgSettle))} | ${(median(pgSettle) / median(sqSettle)).toFixed(1)}× |`);
      console.log(`| settle transaction, one at a time, p95 ms | ${fmt(p95(sqSettle))} | ${fmt(p95(pgSettle))} | ${(p95(pgSettle) / p95(sqSettle)).toFixed(1)}× |`);
      console.log(`| key by hash + its user, p50 ms | ${fmt(median(sqAuth))} (remembered) | ${fmt(median(pgAuth))} | ${(median(pgAuth) / median(sqAuth)).toFixed(0)}× |`);
      console.log('\n| PostgreSQL, 32 calls in flight | calls/s |\n|---|---|');
      console.log(`| settle, one user, one node | ${oneNode.toFixed(0)} |`);
      console.log(`| settle, one user, two nodes | ${twoNodes.toFixed(0)} |`);
      console.log(`| settle, 32 users, two nodes | ${twoNodesSpread.toFixed(0)} |`);
      console.log(`| key by hash + user, two nodes | ${authTwo.toFixed(0)} |`);
      console.log(`\none user's totals ${used} = ledger ${ledger} (${used === ledger ? 'exact' : 'NOT EXACT'})`);
      console.log(`load average at end: ${(await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').trim()}`);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  } finally {
    await cluster.stop();
  }
}

void main();
