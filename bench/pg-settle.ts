/**
 * What a paid call's accounting costs through the engine: `metered()` as every operation runs it
 * (reserve → answer → settle: the charge and its history row in one group-committed transaction →
 * release), and authenticating the call's key (`ops.auth.caller`). One call at a time (a lone
 * charge commits at once), and 32 calls in the same turn of the event loop (they share one commit).
 *
 * Runs on any checkout that has `metered` and `EngineCore` (so the same file measures main and a
 * branch side by side); `--pg` puts the account side on a private PostgreSQL 15 cluster
 * (`EngineConfig.accountStorage`, fsync off, loopback), two engines on one database with `--nodes 2`.
 *
 *   node_modules/.bin/node --import tsx bench/pg-settle.ts [--calls 3000] [--pg] [--nodes 2]
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { silentLogger } from '../server/engine/log';
import { EngineCore, type EngineConfig } from '../server/engine/core';
import { metered } from '../server/engine/operations/metering';
import { newId } from '../server/engine/util/ids';
import { tempDir } from '../test/helpers/engine';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '3000' }, pg: { type: 'boolean', default: false }, nodes: { type: 'string', default: '1' } } });
const CALLS = Number(values.calls);
const NODES = Number(values.nodes);

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => sorted(xs)[Math.floor(xs.length * 0.95)]!;
const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').trim();

type Caller = { userId: string; keyId: string; plan: string; isOwner: boolean };

async function main(): Promise<void> {
  console.log(`calls ${CALLS}, ${values.pg ? `PostgreSQL, ${NODES} node(s)` : 'SQLite'}; load average at start: ${loadavg()}`);
  let stopCluster: () => Promise<void> = async () => undefined;
  const extra: Partial<EngineConfig>[] = [];
  if (values.pg) {
    const { startPostgres } = await import('../test/helpers/postgres');
    const { openPgStorage } = await import('../server/engine/store/pg/storage');
    const cluster = await startPostgres();
    stopCluster = () => cluster.stop();
    const url = await cluster.createDatabase();
    for (let i = 0; i < NODES; i++) extra.push({ accountStorage: await openPgStorage(url, silentLogger, { max: 16 }) } as Partial<EngineConfig>);
  } else {
    extra.push({});
  }
  const engines = extra.map((config) => new EngineCore({ dataDir: tempDir('loupe-bench-settle-'), log: silentLogger, ...config }));
  try {
    const key = newId();
    const owner = await engines[0].ops.owner.ensure(key);
    const callers: Caller[] = await Promise.all(engines.map((e) => e.ops.auth.caller({ apiKey: key }) as Promise<Caller>));
    const paid = (i: number) => {
      const e = engines[i % engines.length];
      return metered(e.accounts, callers[i % engines.length], { operation: 'search.run', cost: 1, history: 'search' }, (meter) =>
        meter.answer({ ok: true }, { history: { query: `q${i}`, summary: '1 result' } }));
    };
    // One call at a time, back to back; each commits alone (no lone-charge gap, as for requests that
    // arrive apart). Wall time per call, and CPU time per call (less sensitive to a loaded machine).
    const oneAtATime = async (n: number, call: (i: number) => Promise<unknown>) => {
      for (const e of engines) e.accounts.credits.loneChargeGapMs = -1;
      const times: number[] = [];
      const cpu = process.cpuUsage();
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await call(i);
        times.push(performance.now() - t);
      }
      const used = process.cpuUsage(cpu);
      for (const e of engines) e.accounts.credits.loneChargeGapMs = 1;
      return Object.assign(times, { cpuMs: (used.user + used.system) / 1000 / n });
    };
    // The settle transaction alone (SQLite only: the synchronous path both checkouts have), back to back.
    const tight: number[] = [];
    if (!values.pg) {
      const e = engines[0];
      for (let i = 0; i < CALLS + 200; i++) {
        const t0 = performance.now();
        e.accounts.settle({ userId: owner.userId, operation: 'search.run', credits: 1, history: { category: 'search', query: `t${i}`, summary: '1 result' } });
        if (i >= 200) tight.push(performance.now() - t0);
      }
    }
    await oneAtATime(200, paid);
    const lone = await oneAtATime(CALLS, paid);
    const auth = await oneAtATime(CALLS, (i) => engines[i % engines.length].ops.auth.caller({ apiKey: key }));
    // 32 calls in one turn of the event loop: group commit.
    const rounds = Math.max(1, Math.floor(CALLS / 32));
    const t = performance.now();
    const cpuBatched = process.cpuUsage();
    for (let r = 0; r < rounds; r++) await Promise.all(Array.from({ length: 32 }, (_, i) => paid(r * 32 + i)));
    const batched = (rounds * 32) / ((performance.now() - t) / 1000);
    const batchedCpu = process.cpuUsage(cpuBatched);
    const batchedCpuMs = (batchedCpu.user + batchedCpu.system) / 1000 / (rounds * 32);
    const balance = await engines[0].ops.stats.usage(callers[0] as never, { range: '7d' });
    console.log(`\n| measure | value |\n|---|---|`);
    console.log(`| paid call accounting (metered: reserve, settle with history, release), one at a time, p50 ms | ${median(lone).toFixed(3)} |`);
    console.log(`| same, p95 ms | ${p95(lone).toFixed(3)} |`);
    console.log(`| same, CPU ms per call | ${lone.cpuMs.toFixed(3)} |`);
    if (tight.length) console.log(`| settle() transaction alone (charge + history row), back to back, p50 ms | ${median(tight).toFixed(4)} |`);
    console.log(`| authenticate a key (ops.auth.caller), p50 ms | ${median(auth).toFixed(3)} |`);
    console.log(`| same, CPU ms per call | ${auth.cpuMs.toFixed(4)} |`);
    console.log(`| 32 paid calls per turn (group commit), calls/s | ${batched.toFixed(0)} |`);
    console.log(`| same, CPU ms per call | ${batchedCpuMs.toFixed(4)} |`);
    console.log(`\nowner ${owner.userId.slice(0, 8)}: credits used ${(balance.meta as { credits_used: number }).credits_used} (expected ${200 + CALLS + rounds * 32 + (tight.length ? CALLS + 200 : 0)})`);
    console.log(`load average at end: ${loadavg()}`);
  } finally {
    for (const e of engines) await e.close();
    await stopCluster();
  }
}

void main();
