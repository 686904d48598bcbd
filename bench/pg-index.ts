/**
 * The index on PostgreSQL against SQLite, store to store (the team server, issue 20):
 *   node --import tsx bench/pg-index.ts [--corpus phaser] [--times 4] [--database postgres://…]
 *
 * phaser's src/ is parsed once by the engine (into SQLite), read back, and written as phaser-x4 (the
 * same files under copy1/src … copy4/src, one repository, as bench/corpora.ts lays it out) into a fresh
 * SQLite index and into PostgreSQL (a private Debian cluster, or --database), through each backend's
 * FilesStore.writeBatch in batches of 256 files: write time, then the size on disk. Then lexical search
 * (BM25, the engine's weights and pool of 200) for the evaluation queries, and grep candidates for a few
 * literals, on both: p50/p95 per query. Prints one JSON object.
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
import { ftsExpression, queryTerms } from '../server/engine/search/query';
import type { ParsedFile } from '../server/engine/types';
import { startPostgres } from '../test/helpers/postgres';
import { corpus } from './corpora';
import { parsedFiles } from '../test/helpers/parsed-files';

const QUERIES = [
  'game object factory', 'texture manager add', 'camera follow', 'tween timeline', 'input keyboard key',
  'arcade physics collide', 'scene manager start', 'WebGLRenderer', 'sound manager play', 'tilemap layer',
  'loader file complete', 'particle emitter', 'matrix transform', 'event emitter once',
];
const LITERALS = [['setTexture'], ['this.scene.sys'], ['WebGLRenderingContext'], ['function (', 'return this']];
const WEIGHTS: [number, number, number] = [2, 4, 1];


const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]! * 10) / 10; };
const dirBytes = (dir: string) => fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);

async function main() {
  const { values } = parseArgs({ options: { corpus: { type: 'string', default: 'phaser' }, times: { type: 'string', default: '4' }, database: { type: 'string' }, rounds: { type: 'string', default: '3' } } });
  const times = Number(values.times);
  const rounds = Number(values.rounds);
  const folder = corpus(values.corpus!);

  // Parse once (the engine's pipeline), read the parsed files back.
  const parseDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-pgbench-'));
  const engine = new EngineCore({ dataDir: parseDir, log: silentLogger, allowedRoots: [folder] });
  const { userId } = engine.accounts.ensureOwner(newId());
  const repo = engine.repos.registerLocalFolder(userId, folder);
  await engine.queue.idle();
  await engine.close();
  const parsedStore = openSqliteStorage(parseDir, silentLogger);
  const files = parsedFiles(parsedStore, repo.id);
  parsedStore.close();
  const scaled = Array.from({ length: times }, (_, i) => files.map((f) => ({ ...f, path: `copy${i + 1}/src/${f.path}` }))).flat();
  const chunks = scaled.reduce((n, f) => n + f.chunks.length, 0);

  const batches = (list: ParsedFile[]) => Array.from({ length: Math.ceil(list.length / 256) }, (_, i) => list.slice(i * 256, (i + 1) * 256));
  const repoId = newId();
  const repoRow = { id: repoId, url: folder, name: `${values.corpus}-x${times}`, rootPath: folder, source: 'local' as const, branch: null, visibility: 'private' as const };

  // SQLite.
  const sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-pgbench-sqlite-'));
  const sqlite = openSqliteStorage(sqliteDir, silentLogger);
  sqlite.repos.insert(repoRow);
  let t0 = performance.now();
  for (const b of batches(scaled)) sqlite.files.writeBatch(repoId, b);
  const sqliteWriteMs = performance.now() - t0;
  sqlite.db.pragma('wal_checkpoint(TRUNCATE)');
  const sqliteBytes = dirBytes(sqliteDir);

  // PostgreSQL.
  const cluster = values.database ? null : await startPostgres();
  const db = new PgDb({ url: values.database ?? await cluster!.createDatabase('pgbench'), max: 4 });
  try {
    await migratePg(db, PG_INDEX_MIGRATIONS);
    const pg = openPgIndexStores(db);
    await pg.repos.insert(repoRow);
    t0 = performance.now();
    for (const b of batches(scaled)) await pg.files.writeBatch(repoId, b);
    const pgWriteMs = performance.now() - t0;
    await db.query('VACUUM ANALYZE');
    const pgBytes = Number((await db.one<{ n: string }>('SELECT pg_database_size(current_database())::text AS n'))!.n);

    const search: Record<string, { sqlite: number[]; pg: number[] }> = { lexical: { sqlite: [], pg: [] }, grep: { sqlite: [], pg: [] } };
    for (let r = 0; r < rounds; r++) {
      for (const q of QUERIES) {
        const match = ftsExpression(queryTerms(q))!;
        t0 = performance.now(); sqlite.search.lexical(match, [repoId], 200, WEIGHTS); search.lexical!.sqlite.push(performance.now() - t0);
        t0 = performance.now(); await pg.search.lexical(match, [repoId], 200, WEIGHTS); search.lexical!.pg.push(performance.now() - t0);
      }
      for (const l of LITERALS) {
        t0 = performance.now(); sqlite.search.trigramFiles([repoId], l); search.grep!.sqlite.push(performance.now() - t0);
        t0 = performance.now(); await pg.search.trigramFiles([repoId], l); search.grep!.pg.push(performance.now() - t0);
      }
    }
    console.log(JSON.stringify({
      corpus: `${values.corpus}-x${times}`, files: scaled.length, chunks,
      write: { sqliteMs: Math.round(sqliteWriteMs), pgMs: Math.round(pgWriteMs), ratio: Math.round((pgWriteMs / sqliteWriteMs) * 100) / 100 },
      bytes: { sqlite: sqliteBytes, pg: pgBytes },
      lexicalMs: { sqlite: { p50: pct(search.lexical!.sqlite, 0.5), p95: pct(search.lexical!.sqlite, 0.95) }, pg: { p50: pct(search.lexical!.pg, 0.5), p95: pct(search.lexical!.pg, 0.95) } },
      grepCandidatesMs: { sqlite: { p50: pct(search.grep!.sqlite, 0.5), p95: pct(search.grep!.sqlite, 0.95) }, pg: { p50: pct(search.grep!.pg, 0.5), p95: pct(search.grep!.pg, 0.95) } },
      loadavg: fs.readFileSync('/proc/loadavg', 'utf8').trim(),
    }));
  } finally {
    sqlite.close();
    await db.close();
    await cluster?.stop();
    for (const d of [parseDir, sqliteDir]) fs.rmSync(d, { recursive: true, force: true });
  }
}

void main();
