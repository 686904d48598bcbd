/**
 * Where a cold index's writes spend their time on PostgreSQL (issue 20):
 *   node --import tsx bench/pg-write-profile.ts [--times 2] [--slice 64] [--rounds 3]
 *
 * phaser's src/ is parsed once by the engine (into SQLite; cached as JSON under .tmp/), then written
 * ×times (copyN/src/…, one repository) in slices of --slice files, each slice one transaction with the
 * run's progress as the index worker commits it: into a fresh SQLite index (SqliteFilesStore.writeBatch)
 * and into a fresh database of a private PostgreSQL cluster (PgFilesStore.writeBatch). Prints, per
 * round, both write times and their ratio, and on PostgreSQL the time per statement kind (the first
 * words of each statement, as the client saw it: round trip + server work) and the client's own CPU.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { EngineCore } from '../server/engine/core';
import { silentLogger } from '../server/engine/log';
import { newId } from '../server/engine/util/ids';
import { openSqliteStorage } from '../server/engine/store/storage';
import { PgDb } from '../server/engine/store/pg/pg-db';
import { migratePg } from '../server/engine/store/pg/migrate';
import { openPgIndexStores, PG_INDEX_MIGRATIONS } from '../server/engine/store/pg/index-stores';
import type { ParsedFile } from '../server/engine/types';
import { startPostgres } from '../test/helpers/postgres';
import { parsedFiles } from '../test/helpers/parsed-files';
import { corpus } from './corpora';

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2; };

async function parse(): Promise<ParsedFile[]> {
  const cache = path.join(__dirname, '..', '.tmp', 'pg-write-profile-phaser.json');
  if (fs.existsSync(cache)) return JSON.parse(fs.readFileSync(cache, 'utf8')) as ParsedFile[];
  const folder = corpus('phaser');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-pgprof-'));
  const engine = new EngineCore({ dataDir: dir, log: silentLogger, allowedRoots: [folder] });
  const { userId } = engine.accounts.ensureOwner(newId());
  const repo = engine.repos.registerLocalFolder(userId, folder);
  await engine.queue.idle();
  await engine.close();
  const s = openSqliteStorage(dir, silentLogger);
  const files = parsedFiles(s, repo.id);
  s.close();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(cache), { recursive: true });
  fs.writeFileSync(cache, JSON.stringify(files));
  return files;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { times: { type: 'string', default: '2' }, slice: { type: 'string', default: '64' }, rounds: { type: 'string', default: '3' }, sql: { type: 'string' } } });
  const files = await parse();
  const times = Number(values.times);
  const sliceN = Number(values.slice);
  const scaled = Array.from({ length: times }, (_, i) => files.map((f) => ({ ...f, path: `copy${i + 1}/src/${f.path}` }))).flat();
  const slices = Array.from({ length: Math.ceil(scaled.length / sliceN) }, (_, i) => scaled.slice(i * sliceN, (i + 1) * sliceN));
  const cluster = await startPostgres();
  const rows: { sqlite: number; pg: number }[] = [];
  try {
    for (let r = 0; r < Number(values.rounds); r++) {
      const load0 = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
      const repoId = newId();
      const repoRow = { id: repoId, url: `/x/${repoId}`, name: 'p', rootPath: '/x', source: 'local' as const, branch: null, visibility: 'private' as const };
      // SQLite.
      const sdir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-pgprof-sqlite-'));
      const sqlite = openSqliteStorage(sdir, silentLogger);
      sqlite.repos.insert(repoRow);
      let done = 0;
      let t0 = performance.now();
      for (const s of slices) {
        sqlite.transaction(() => { sqlite.files.writeBatch(repoId, s); done += s.length; sqlite.repos.setProgress(repoId, done, scaled.length); });
      }
      const sqliteMs = performance.now() - t0;
      sqlite.close();
      fs.rmSync(sdir, { recursive: true, force: true });

      // PostgreSQL, each statement timed.
      const db = new PgDb({ url: await cluster.createDatabase(), max: 2 });
      await migratePg(db, PG_INDEX_MIGRATIONS);
      // --sql: a statement run after the migrations (an experiment: an index dropped, a setting changed).
      if (values.sql) await db.query(values.sql);
      const stores = openPgIndexStores(db, { vectors: 'bytea' });
      await stores.repos.insert(repoRow);
      const byKind = new Map<string, { ms: number; n: number }>();
      const query = db.query.bind(db);
      db.query = (async (text: string, values?: unknown[]) => {
        const q0 = performance.now();
        try {
          return await query(text, values);
        } finally {
          const kind = text.replace(/\s+/g, ' ').trim().slice(0, 40);
          const k = byKind.get(kind) ?? { ms: 0, n: 0 };
          k.ms += performance.now() - q0; k.n++;
          byKind.set(kind, k);
        }
      }) as typeof db.query;
      const copy = db.copyFrom.bind(db);
      db.copyFrom = (async (text: string, data: string) => {
        const q0 = performance.now();
        try {
          return await copy(text, data);
        } finally {
          const kind = text.slice(0, 40);
          const k = byKind.get(kind) ?? { ms: 0, n: 0 };
          k.ms += performance.now() - q0; k.n++;
          byKind.set(kind, k);
        }
      }) as typeof db.copyFrom;
      done = 0;
      const cpu0 = process.cpuUsage();
      t0 = performance.now();
      for (const s of slices) {
        await db.transaction(async () => { await stores.files.writeBatch(repoId, s); done += s.length; await stores.repos.setProgress(repoId, done, scaled.length); });
      }
      const pgMs = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      db.query = query;
      db.copyFrom = copy;
      await db.close();
      rows.push({ sqlite: sqliteMs, pg: pgMs });
      console.log(`round ${r + 1}: ${scaled.length} files in ${slices.length} slices of ${sliceN}: SQLite ${sqliteMs.toFixed(0)} ms, PostgreSQL ${pgMs.toFixed(0)} ms (client CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms), ratio ${(pgMs / sqliteMs).toFixed(2)} [load ${load0}]`);
      for (const [kind, k] of [...byKind].sort((a, b) => b[1].ms - a[1].ms).slice(0, 14)) console.log(`  ${k.ms.toFixed(0).padStart(6)} ms ${String(k.n).padStart(5)}×  ${kind}`);
    }
    console.log(`median: SQLite ${median(rows.map((x) => x.sqlite)).toFixed(0)} ms, PostgreSQL ${median(rows.map((x) => x.pg)).toFixed(0)} ms, ratio ${median(rows.map((x) => x.pg / x.sqlite)).toFixed(2)}`);
  } finally {
    await cluster.stop();
  }
}

main().then(() => process.exit(0), (error: Error) => { console.error(error); process.exit(1); });
