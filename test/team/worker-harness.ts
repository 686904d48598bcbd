import { before, after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { WorkerUtils } from 'graphile-worker';
import { openWorkerUtils } from '../../server/engine/team/worker-utils';
import { createTestEngine, indexFolder, tempDir } from '../helpers/engine';
import { startPostgres, type PgCluster } from '../helpers/postgres';
import { openSqliteStorage } from '../../server/engine/store/storage';
import { silentLogger } from '../../server/engine/log';
import { PgDb } from '../../server/engine/store/pg/pg-db';
import { migratePg } from '../../server/engine/store/pg/migrate';
import { PG_MIGRATIONS } from '../../server/engine/store/pg/migrations';
import { openPgIndexStores, type PgIndexStores } from '../../server/engine/store/pg/index-stores';
import type { FilesStore } from '../../server/engine/store/files-store';
import type { Async } from '../../server/engine/store/surface';

/**
 * What the index worker's tests share (index-worker.test.ts, index-worker-faults.test.ts: two files, so that
 * each stays under the runner's 600 s on a loaded machine): a private PostgreSQL 15 cluster migrated for
 * the index and graphile-worker, started and stopped around the importing file (`useWorkerCluster()`),
 * `npm run worker` as a real process, and a row-for-row snapshot of an index to compare PostgreSQL with
 * the engine's SQLite index of the same folder.
 */
const ROOT = path.join(__dirname, '..', '..');
let cluster: PgCluster;
let url: string;
let db: PgDb;
let pgStores: PgIndexStores;
let utils: WorkerUtils;
let closeUtils: (() => Promise<void>) | undefined;
const children = new Set<ChildProcess>();

/** The cluster, the PG index stores and graphile-worker's utils, live between the file's before() and after(). */
export const team = {
  get db() { return db; },
  get pgStores() { return pgStores; },
  get utils() { return utils; },
};

/** Starts the cluster before the importing file's tests and stops it (and every worker) after them. */
export function useWorkerCluster(): void {
  before(async () => {
    cluster = await startPostgres();
    url = await cluster.createDatabase();
    db = new PgDb({ url, max: 4 });
    await migratePg(db, PG_MIGRATIONS);
    pgStores = openPgIndexStores(db, { vectors: 'bytea' });
    ({ utils, close: closeUtils } = await openWorkerUtils(url));
    await utils.migrate();
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await closeUtils?.();
    await db?.close();
    await cluster?.stop();
  });
}

/** `npm run worker` from source, with a short lease so a kill is noticed in seconds. */
export function startWorker(t: TestContext, name: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server', 'worker.ts'), '--database', url,
    '--heartbeat-ms', '250', '--stale-ms', '2000', '--poll-ms', '250', '--work-dir', tempDir('loupe-worker-')], {
    cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); });
  let stderr = '';
  child.stderr!.on('data', (d) => { stderr += d; });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  const ready = (async () => {
    const deadline = Date.now() + 60_000;
    while (!/index worker ready/.test(stderr)) {
      if (child.exitCode !== null) throw new Error(`worker ${name} exited: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`worker ${name} not ready: ${stderr}`);
      await sleep(50);
    }
  })();
  return { name, child, exited, ready, stderr: () => stderr };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function registerPg(id: string, folder: string): Promise<void> {
  await pgStores.repos.insert({ id, url: folder, name: path.basename(folder), rootPath: folder, source: 'local', branch: null, visibility: 'private' });
}

export async function waitState(repoId: string, state: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await pgStores.repos.get(repoId);
    if (r?.state === state && !r.updating === (state === 'ready')) return;
    if (r?.state === 'failed') throw new Error(`repository ${repoId} failed: ${r.error}`);
    if (Date.now() > deadline) throw new Error(`repository ${repoId} not ${state} within ${timeoutMs} ms (${r?.state} ${r?.filesDone}/${r?.filesTotal})`);
    await sleep(100);
  }
}

export type Query = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

/** Everything the index holds of a repository, by path (row ids differ between databases). */
export async function snapshot(files: FilesStore | Async<FilesStore>, query: Query, repoId: string) {
  const out: Record<string, unknown> = {};
  for (const p of [...await files.paths(repoId)].sort()) {
    const f = (await files.getByPath(repoId, p))!;
    const [extra] = await query('SELECT uid, generated, unit FROM files WHERE id = $1', [f.id]);
    const chunks = await query('SELECT seq, start_line, end_line, symbols, content FROM chunks WHERE file_id = $1 ORDER BY seq', [f.id]);
    out[p] = {
      uid: extra!.uid, generated: Boolean(extra!.generated), unit: extra!.unit ?? null,
      language: f.language, size: f.size, lines: f.lines, hash: f.hash, mtimeMs: f.mtimeMs, description: f.description,
      symbols: (await files.symbols(f.id)).map(({ id: _id, ...s }) => s),
      imports: await files.imports(f.id),
      chunks,
    };
  }
  out['(skipped)'] = [...(await files.skipped(repoId)).values()].sort((a, b) => a.path.localeCompare(b.path));
  return out;
}

/** The engine's SQLite index of `folder` (the reference), and its snapshot. */
export async function sqliteReference(folders: string[]): Promise<{ ids: string[]; snaps: Record<string, unknown>[] }> {
  const t = createTestEngine();
  const ids: string[] = [];
  for (const f of folders) ids.push((await indexFolder(t, f)).id);
  await t.close();
  const s = openSqliteStorage(t.dataDir, silentLogger);
  try {
    const q: Query = async (sql, params) => s.db.prepare(sql.replace(/\$\d+/g, '?')).all(...params) as Record<string, unknown>[];
    const snaps = [];
    for (const id of ids) snaps.push(await snapshot(s.files, q, id));
    return { ids, snaps };
  } finally {
    s.close();
  }
}

export const pgQuery: Query = async (sql, params) => (await db.query(sql, params)).rows;

export function assertSameIndex(actual: Record<string, unknown>, expected: Record<string, unknown>, what: string) {
  assert.deepEqual(Object.keys(actual), Object.keys(expected), `${what}: the same files`);
  for (const k of Object.keys(expected)) assert.deepEqual(actual[k], expected[k], `${what}: ${k}`);
}

