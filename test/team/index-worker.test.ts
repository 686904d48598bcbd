import { test, before, after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { makeWorkerUtils, type WorkerUtils } from 'graphile-worker';
import { createTestEngine, indexFolder, tempDir } from '../helpers/engine';
import { copyOf, debianPackage } from '../helpers/real-code';
import { startPostgres, type PgCluster } from '../helpers/postgres';
import { openSqliteStorage } from '../../server/engine/store/storage';
import { silentLogger } from '../../server/engine/log';
import { PgDb } from '../../server/engine/store/pg/pg-db';
import { migratePg } from '../../server/engine/store/pg/migrate';
import { PG_MIGRATIONS } from '../../server/engine/store/pg/migrations';
import { openPgIndexStores, type PgIndexStores } from '../../server/engine/store/pg/index-stores';
import { enqueueIndexing, INDEX_TASK, indexQueue } from '../../server/engine/team/index-worker';
import type { FilesStore } from '../../server/engine/store/files-store';
import type { Async } from '../../server/engine/store/surface';

/**
 * The team server's index worker as a real process (npm run worker's entry, from source) over a real
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

const gin = () => copyOf(path.join(debianPackage('golang-github-gin-gonic-gin-dev', '1.8.1-1'), 'usr/share/gocode/src/github.com/gin-gonic/gin'));
const flask = () => copyOf(path.join(debianPackage('python3-flask', '2.2.2-3'), 'usr/lib/python3/dist-packages/flask'));

test('a worker process indexes gin into PostgreSQL: files, hashes, symbols, imports with their targets, chunks equal the engine\'s SQLite index', { timeout: 300_000 }, async (t) => {
  const folder = gin();
  const ref = await sqliteReference([folder]);
  const id = ref.ids[0]!;
  await registerPg(id, folder);
  const w = startWorker(t, 'A');
  await w.ready;
  await enqueueIndexing(utils, pgStores.repos, id);
  await waitState(id, 'ready', 240_000);
  const repo = (await pgStores.repos.get(id))!;
  assert.equal(repo.filesDone, repo.filesTotal, 'progress complete in the repos table');
  assert.ok(repo.filesTotal > 50, `gin has files (${repo.filesTotal})`);
  const pg = await snapshot(pgStores.files, pgQuery, id);
  assertSameIndex(pg, ref.snaps[0]!, 'gin');
  const resolved = Object.values(pg).flatMap((f) => ((f as { imports?: { targetPath: string | null }[] }).imports ?? [])).filter((i) => i.targetPath);
  assert.ok(resolved.length > 0, 'some imports resolve to files of the repository');

  w.child.kill('SIGTERM');
  assert.equal(await w.exited, 0, 'a clean exit on SIGTERM');
  assert.match(w.stderr(), /index worker stopped/);
});

test('two workers, four repositories: each indexed once, a repository never by two workers at once, every index right', { timeout: 400_000 }, async (t) => {
  const folders = [gin(), flask(), gin(), flask()];
  const ref = await sqliteReference(folders);
  for (const [i, id] of ref.ids.entries()) await registerPg(id, folders[i]!);
  const workers = [startWorker(t, 'A'), startWorker(t, 'B')];
  await Promise.all(workers.map((w) => w.ready));
  for (const id of ref.ids) await enqueueIndexing(utils, pgStores.repos, id);
  // One more job for the first repository on its queue (no job key): it must wait for the first.
  await utils.addJob(INDEX_TASK, { repoId: ref.ids[0] }, { queueName: indexQueue(ref.ids[0]!) });
  for (const id of ref.ids) await waitState(id, 'ready', 300_000);
  // Wait for the extra job to finish too.
  const deadline = Date.now() + 120_000;
  while ((await db.query('SELECT 1 FROM graphile_worker.jobs')).rows.length) {
    assert.ok(Date.now() < deadline, 'every job done');
    await sleep(200);
  }
  const runs = workers.flatMap((w) => [...w.stderr().matchAll(/index job (\S+) (\d+)-(\d+)/g)].map((m) => ({ worker: w.name, repo: m[1]!, from: Number(m[2]), to: Number(m[3]) })));
  for (const [i, id] of ref.ids.entries()) {
    const mine = runs.filter((r) => r.repo === id).sort((a, b) => a.from - b.from);
    assert.equal(mine.length, i === 0 ? 2 : 1, `${id}: ${JSON.stringify(mine)}`);
    for (let k = 1; k < mine.length; k++) assert.ok(mine[k]!.from >= mine[k - 1]!.to, `never two runs of one repository at once: ${JSON.stringify(mine)}`);
    assertSameIndex(await snapshot(pgStores.files, pgQuery, id), ref.snaps[i]!, folders[i]!);
  }
  assert.ok(new Set(runs.map((r) => r.worker)).size === 2, `both workers took jobs: ${JSON.stringify(runs)}`);
  for (const w of workers) w.child.kill('SIGTERM');
  for (const w of workers) assert.equal(await w.exited, 0);
});
