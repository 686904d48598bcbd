import { test, before, after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { makeWorkerUtils, type WorkerUtils } from 'graphile-worker';
import { createTestEngine, indexFolder, tempDir } from '../helpers/engine';
import { copyOf, npmPackage } from '../helpers/real-code';
import { startPostgres, type PgCluster } from '../helpers/postgres';
import { openSqliteStorage } from '../../server/engine/store/storage';
import { silentLogger } from '../../server/engine/log';
import { newId } from '../../server/engine/util/ids';
import { PgDb } from '../../server/engine/store/pg/pg-db';
import { migratePg } from '../../server/engine/store/pg/migrate';
import { PG_MIGRATIONS } from '../../server/engine/store/pg/migrations';
import { openPgIndexStores, type PgIndexStores } from '../../server/engine/store/pg/index-stores';
import { enqueueIndexing } from '../../server/engine/team/index-worker';
import type { FilesStore } from '../../server/engine/store/files-store';
import type { Async } from '../../server/engine/store/surface';

/**
 * Faults (split from index-worker.test.ts, which has the helpers' explanation; one file each keeps each under the
 * runner's 600 s on a loaded machine). The team server's index worker as a real process (npm run worker's entry, from source) over a real
 * PostgreSQL 15: it indexes real code (gin, Flask from Debian; phaser's src from npm) and the index
 * equals the engine's SQLite index of the same folder, row for row; two workers share four repositories
 * (each indexed once, one repository never by two at once); a worker killed with SIGKILL mid-job loses
 * its lease and the other worker finishes the job, ending with the same index as a clean run.
 */
const ROOT = path.join(__dirname, '..', '..');
let cluster: PgCluster;
let url: string;
let db: PgDb;
let pgStores: PgIndexStores;
let utils: WorkerUtils;
const children = new Set<ChildProcess>();

before(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase();
  db = new PgDb({ url, max: 4 });
  await migratePg(db, PG_MIGRATIONS);
  pgStores = openPgIndexStores(db, { vectors: 'bytea' });
  utils = await makeWorkerUtils({ connectionString: url });
  await utils.migrate();
});
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await utils?.release();
  await db?.close();
  await cluster?.stop();
});

/** `npm run worker` from source, with a short lease so a kill is noticed in seconds. */
function startWorker(t: TestContext, name: string) {
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function registerPg(id: string, folder: string): Promise<void> {
  await pgStores.repos.insert({ id, url: folder, name: path.basename(folder), rootPath: folder, source: 'local', branch: null, visibility: 'private' });
}

async function waitState(repoId: string, state: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await pgStores.repos.get(repoId);
    if (r?.state === state && !r.updating === (state === 'ready')) return;
    if (r?.state === 'failed') throw new Error(`repository ${repoId} failed: ${r.error}`);
    if (Date.now() > deadline) throw new Error(`repository ${repoId} not ${state} within ${timeoutMs} ms (${r?.state} ${r?.filesDone}/${r?.filesTotal})`);
    await sleep(100);
  }
}

type Query = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

/** Everything the index holds of a repository, by path (row ids differ between databases). */
async function snapshot(files: FilesStore | Async<FilesStore>, query: Query, repoId: string) {
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
async function sqliteReference(folders: string[]): Promise<{ ids: string[]; snaps: Record<string, unknown>[] }> {
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

const pgQuery: Query = async (sql, params) => (await db.query(sql, params)).rows;

function assertSameIndex(actual: Record<string, unknown>, expected: Record<string, unknown>, what: string) {
  assert.deepEqual(Object.keys(actual), Object.keys(expected), `${what}: the same files`);
  for (const k of Object.keys(expected)) assert.deepEqual(actual[k], expected[k], `${what}: ${k}`);
}


test('kill -9 a worker mid-job: its lease ends, the other worker resumes the job, and the index equals a clean one', { timeout: 600_000 }, async (t) => {
  const folder = copyOf(path.join(npmPackage('phaser@3.90.0'), 'src'));
  const ref = await sqliteReference([folder]);
  const id = ref.ids[0]!;
  await registerPg(id, folder);
  const a = startWorker(t, 'A');
  await a.ready;
  await enqueueIndexing(utils, pgStores.repos, id);
  // Pull the plug once some slices are committed but not all.
  let at = { done: 0, total: 0 };
  const deadline = Date.now() + 240_000;
  for (;;) {
    const r = (await pgStores.repos.get(id))!;
    at = { done: r.filesDone, total: r.filesTotal };
    if (r.state === 'indexing' && at.done > 0 && at.done < at.total * 0.6) break;
    assert.ok(r.state !== 'ready' && Date.now() < deadline, `caught mid-run (${r.state} ${at.done}/${at.total})`);
    await sleep(20);
  }
  a.child.kill('SIGKILL');
  assert.equal(await a.exited, 'SIGKILL');
  const stuck = await db.query('SELECT locked_by, attempts, last_error FROM graphile_worker.jobs');
  assert.ok(stuck.rows.length === 1 && stuck.rows[0]!.locked_by, `the dead worker still holds the job: ${JSON.stringify(stuck.rows)}\n${a.stderr()}`);

  const b = startWorker(t, 'B');
  await b.ready;
  await waitState(id, 'ready', 400_000);
  assert.match(b.stderr(), /unlocking the jobs of 1 worker/, 'the lease ended by the heartbeat sweep');
  for (const end = Date.now() + 30_000; !/index job /.test(b.stderr()) && Date.now() < end;) await sleep(50);
  const resumed = [...b.stderr().matchAll(/index job \S+ \d+-\d+ \+(\d+)/g)].map((m) => Number(m[1]));
  assert.equal(resumed.length, 1, b.stderr());
  assert.ok(resumed[0]! < at.total, `the retry parsed only what was missing (${resumed[0]} of ${at.total})`);
  assertSameIndex(await snapshot(pgStores.files, pgQuery, id), ref.snaps[0]!, 'phaser src after a kill');
  b.child.kill('SIGTERM');
  assert.equal(await b.exited, 0);
});

test('SIGTERM mid-job: the worker exits 0 at once, the repository is queued again, and another worker completes the job', { timeout: 600_000 }, async (t) => {
  const folder = copyOf(path.join(npmPackage('phaser@3.90.0'), 'src'));
  const id = newId();
  await registerPg(id, folder);
  const a = startWorker(t, 'A');
  await a.ready;
  await enqueueIndexing(utils, pgStores.repos, id);
  const deadline = Date.now() + 240_000;
  for (;;) {
    const r = (await pgStores.repos.get(id))!;
    if (r.state === 'indexing' && r.filesDone > 0 && r.filesDone < r.filesTotal * 0.6) break;
    assert.ok(r.state !== 'ready' && Date.now() < deadline, `caught mid-run (${r.state} ${r.filesDone}/${r.filesTotal})`);
    await sleep(20);
  }
  const stopAt = Date.now();
  a.child.kill('SIGTERM');
  assert.equal(await a.exited, 0, a.stderr());
  assert.ok(Date.now() - stopAt < 20_000, `stopped within 20 s (${Date.now() - stopAt} ms)`);
  const after = (await pgStores.repos.get(id))!;
  assert.equal(after.state, 'queued', 'aborted, to be retried');
  const jobs = await db.query('SELECT locked_by, attempts FROM graphile_worker.jobs');
  assert.ok(jobs.rows.length === 1 && jobs.rows[0]!.locked_by === null, `released, not locked: ${JSON.stringify(jobs.rows)}`);
  const ids = /index worker ready \(([^)]*)\)/.exec(a.stderr())![1]!.split(', ');
  assert.equal((await db.query('SELECT 1 FROM loupe_worker_heartbeats WHERE worker_id = ANY($1::text[])', [ids])).rows.length, 0, 'its heartbeats removed');

  // The retry waits out graphile-worker's backoff (exp(attempts) s), then resumes.
  const b = startWorker(t, 'B');
  await b.ready;
  await waitState(id, 'ready', 400_000);
  const done = (await pgStores.repos.get(id))!;
  assert.equal(done.filesDone, done.filesTotal);
  assert.equal(await pgStores.files.count(id), done.filesTotal - (await pgStores.files.skipped(id)).size);
  b.child.kill('SIGTERM');
  assert.equal(await b.exited, 0);
});

