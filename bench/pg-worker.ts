/**
 * The team server's index worker against the engine's own indexing:
 *   node --import tsx bench/pg-worker.ts [--times 4] [--rounds 1]
 *
 * 1. Cold index of phaser's src ×times (one folder, copies side by side): the Indexer into SQLite (its
 *    writer thread, no derived indexes) against one worker process (npm run worker) into PostgreSQL,
 *    measured from the job's enqueue to the repository's `ready` in the repos table.
 * 2. Four repositories (phaser's src each) with one worker and with two, from enqueue to all ready.
 * A private PostgreSQL 15 cluster on loopback (fsync off, as test/helpers/postgres.ts starts it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openWorkerUtils } from '../server/engine/team/worker-utils';
import { silentLogger } from '../server/engine/log';
import { newId } from '../server/engine/util/ids';
import { openSqliteStorage } from '../server/engine/store/storage';
import { Indexer } from '../server/engine/indexer/indexer';
import { PgDb } from '../server/engine/store/pg/pg-db';
import { migratePg } from '../server/engine/store/pg/migrate';
import { PG_MIGRATIONS } from '../server/engine/store/pg/migrations';
import { openPgIndexStores } from '../server/engine/store/pg/index-stores';
import { enqueueIndexing } from '../server/engine/team/index-worker';
import { startPostgres, type PgCluster } from '../test/helpers/postgres';
import { npmPackage } from '../test/helpers/real-code';

const ROOT = path.join(__dirname, '..');
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2; };
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

function copies(times: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-pgworker-'));
  const src = path.join(npmPackage('phaser@3.90.0'), 'src');
  for (let i = 1; i <= times; i++) fs.cpSync(src, path.join(dir, `copy${i}`, 'src'), { recursive: true });
  return dir;
}

async function sqliteCold(folder: string): Promise<{ ms: number; files: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-pgworker-sqlite-'));
  const s = openSqliteStorage(dataDir, silentLogger);
  const repo = { id: newId(), url: folder, name: 'corpus', rootPath: folder, source: 'local' as const, branch: null, visibility: 'private' as const };
  s.repos.insert(repo);
  const indexer = new Indexer(s.repos, s.files, silentLogger, { maxFileBytes: 1024 * 1024 }, s.db);
  const t0 = performance.now();
  await indexer.indexRepository(s.repos.get(repo.id)!);
  const ms = performance.now() - t0;
  const files = s.files.count(repo.id);
  await indexer.close();
  s.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return { ms, files };
}

function startWorker(url: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server', 'worker.ts'), '--database', url, '--poll-ms', '250',
    '--work-dir', fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-pgworker-w-'))], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d) => { err += d; if (/index worker ready/.test(err)) resolve(child); });
    child.on('exit', (code) => reject(new Error(`worker exited ${code}: ${err}`)));
  });
}

/** Enqueues every folder as a repository and waits until all are ready; ms from the first enqueue. */
async function pgRun(cluster: PgCluster, folders: string[], workers: number): Promise<{ ms: number; files: number }> {
  const url = await cluster.createDatabase();
  const db = new PgDb({ url, max: 2 });
  await migratePg(db, PG_MIGRATIONS);
  const stores = openPgIndexStores(db, { vectors: 'bytea' });
  const { utils, close: closeUtils } = await openWorkerUtils(url);
  await utils.migrate();
  const procs = await Promise.all(Array.from({ length: workers }, () => startWorker(url)));
  try {
    const ids: string[] = [];
    for (const f of folders) {
      const id = newId();
      ids.push(id);
      await stores.repos.insert({ id, url: f, name: path.basename(f), rootPath: f, source: 'local', branch: null, visibility: 'private' });
    }
    const t0 = performance.now();
    for (const id of ids) await enqueueIndexing(utils, stores.repos, id);
    for (;;) {
      const states = await Promise.all(ids.map((id) => stores.repos.get(id)));
      if (states.some((r) => r?.state === 'failed')) throw new Error(`failed: ${states.map((r) => r?.error).join('; ')}`);
      if (states.every((r) => r?.state === 'ready')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const ms = performance.now() - t0;
    let files = 0;
    for (const id of ids) files += await stores.files.count(id);
    return { ms, files };
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.on('exit', r)))));
    await closeUtils();
    await db.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { times: { type: 'string', default: '4' }, rounds: { type: 'string', default: '1' }, part: { type: 'string', default: 'all' } } });
  const times = Number(values.times);
  const rounds = Number(values.rounds);
  const cluster = await startPostgres();
  try {
    if (values.part !== 'workers') {
      const folder = copies(times);
      const ratios: number[] = [], sq: number[] = [], pgs: number[] = [];
      for (let r = 0; r < rounds; r++) {
        const l0 = load();
        const s = await sqliteCold(folder);
        const l1 = load();
        const p = await pgRun(cluster, [folder], 1);
        console.log(`cold phaser-src x${times}: SQLite (Indexer) ${(s.ms / 1000).toFixed(1)} s [${s.files} files, load ${l0}] | PostgreSQL (1 worker) ${(p.ms / 1000).toFixed(1)} s [${p.files} files, load ${l1}] | ratio ${(p.ms / s.ms).toFixed(2)}`);
        sq.push(s.ms); pgs.push(p.ms); ratios.push(p.ms / s.ms);
      }
      if (rounds > 1) console.log(`cold phaser-src x${times}, median of ${rounds}: SQLite ${(median(sq) / 1000).toFixed(1)} s | PostgreSQL ${(median(pgs) / 1000).toFixed(1)} s | ratio (median of the paired ratios) ${median(ratios).toFixed(2)}`);
    }
    if (values.part !== 'cold') {
      const four = Array.from({ length: 4 }, () => copies(1));
      const one: number[] = [], two: number[] = [], ratios: number[] = [];
      for (let r = 0; r < rounds; r++) {
        // Side by side: the order alternates between rounds, so a load that drifts favours neither.
        const order = r % 2 ? [2, 1] : [1, 2];
        const ms: Record<number, number> = {};
        for (const workers of order) {
          const l = load();
          const p = await pgRun(cluster, four, workers);
          ms[workers] = p.ms;
          console.log(`four repositories (phaser src each), ${workers} worker(s): ${(p.ms / 1000).toFixed(1)} s [${p.files} files, load ${l} -> ${load()}]`);
        }
        one.push(ms[1]!); two.push(ms[2]!); ratios.push(ms[2]! / ms[1]!);
        console.log(`  round ${r + 1}: two workers / one = ${(ms[2]! / ms[1]!).toFixed(2)}`);
      }
      console.log(`four repositories, median of ${rounds}: one worker ${(median(one) / 1000).toFixed(1)} s | two ${(median(two) / 1000).toFixed(1)} s | two/one (median of the paired ratios) ${median(ratios).toFixed(2)}`);
    }
  } finally {
    await cluster.stop();
  }
}

main().then(() => process.exit(0), (error: Error) => { console.error(error); process.exit(1); });
