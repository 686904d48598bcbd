import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestApp, type TestApp } from '../helpers/engine';
import { copyOf, debianPackage } from '../helpers/real-code';
import { startPostgres, type PgCluster } from '../helpers/postgres';
import { addUser } from '../accounts/helpers';
import { PgDb } from '../../server/engine/store/pg/pg-db';
import { migratePg } from '../../server/engine/store/pg/migrate';
import { openPgIndexStores, PG_INDEX_MIGRATIONS, type PgIndexStores } from '../../server/engine/store/pg/index-stores';
import type { RepoRecord } from '../../server/engine/types';
import { parsedFiles } from '../helpers/parsed-files';

/**
 * The repositories and files read path answers alike over SQLite and over the team server's
 * PostgreSQL. Flask 2.2.2 (Debian's, code nobody here wrote) is indexed by the engine into SQLite
 * (engine `lite`); the same parsed files are written into a real PostgreSQL 15, and a second engine
 * (`pg`) whose own SQLite index is empty reads the index only through the PG stores
 * (`indexReads`). The same HTTP calls (/v2/repos, /v2/repos/status, /v2/files) and the same service
 * calls (Files.resolve/content) give the same answers; anything the request path still read from
 * SQLite would be a 404 on `pg`.
 */
let cluster: PgCluster;
let pgDb: PgDb;
let pg: PgIndexStores;
let lite: TestApp;
let onPg: TestApp;
let folder: string;
let repoId: string;


before(async () => {
  folder = copyOf(path.join(debianPackage('python3-flask', '2.2.2-3'), 'usr/lib/python3/dist-packages/flask'));
  lite = await createTestApp();
  const registered = lite.engine.repos.registerLocalFolder(lite.ownerId, folder);
  await lite.engine.queue.idle();
  const r: RepoRecord = lite.engine.reposStore.get(registered.id)!;
  assert.equal(r.state, 'ready');
  repoId = r.id;

  cluster = await startPostgres();
  pgDb = new PgDb({ url: await cluster.createDatabase(), max: 4 });
  await migratePg(pgDb, PG_INDEX_MIGRATIONS);
  pg = openPgIndexStores(pgDb);
  await pg.repos.insert({ id: r.id, url: r.url, name: r.name, rootPath: r.rootPath, source: r.source, branch: r.branch, visibility: r.visibility });
  const files = parsedFiles({ files: lite.engine.storage.files, db: lite.engine.db }, r.id);
  for (let i = 0; i < files.length; i += 64) await pg.files.writeBatch(r.id, files.slice(i, i + 64));
  await pg.repos.setProgress(r.id, r.filesDone, r.filesTotal);
  await pg.repos.setState(r.id, 'ready', { headCommit: r.headCommit });

  onPg = await createTestApp({ indexReads: pg });
  await pg.repos.grantAccess(onPg.ownerId, r.id);
  assert.equal(onPg.engine.reposStore.all().length, 0, 'the PostgreSQL engine has no SQLite index of its own');
});

after(async () => {
  await onPg?.close();
  await lite?.close();
  await pgDb?.close();
  await cluster?.stop();
});

/**
 * Fields that record when a row was written (each backend wrote its own) are left out. A file's
 * `dependencies` are compared as a set: SQLite lists them in the order the imports were written,
 * PostgreSQL's store sorts them (the same names; the API promises no order).
 */
const stable = (body: any) => JSON.parse(JSON.stringify(body, (k, v) => {
  if (['created_at', 'last_updated', 'indexed_at', 'usage', 'credits', 'request_id'].includes(k)) return undefined;
  return k === 'dependencies' && Array.isArray(v) ? [...v].sort() : v;
}));
const both = async (method: string, url: string, body?: unknown) => ({ lite: await lite.call(method, url, body), pg: await onPg.call(method, url, body) });

test('GET /v2/repos and POST /v2/repos/status: the same repository, state and counts on both backends', async () => {
  const list = await both('GET', '/v2/repos?limit=10&offset=0');
  assert.equal(list.lite.status, 200, JSON.stringify(list.lite.body));
  assert.equal(list.pg.status, 200, JSON.stringify(list.pg.body));
  assert.deepEqual(stable(list.pg.body.data), stable(list.lite.body.data));
  assert.equal(list.pg.body.data.length, 1);
  assert.equal(list.pg.body.data[0].repo_id, repoId);
  assert.equal(list.pg.body.data[0].state, 'ready');
  assert.ok(list.pg.body.data[0].files_total > 20, `flask has its modules: ${list.pg.body.data[0].files_total}`);
  assert.deepEqual(list.pg.body.pagination, list.lite.body.pagination);

  const status = await both('POST', '/v2/repos/status', { url: folder });
  assert.equal(status.pg.status, 200, JSON.stringify(status.pg.body));
  assert.deepEqual(stable(status.pg.body.data), stable(status.lite.body.data));
  assert.equal(status.pg.body.data.status, true);

  assert.equal(await onPg.engine.repos.fileCount(repoId), await lite.engine.repos.fileCount(repoId));
  assert.equal(await onPg.engine.repos.fileCount(repoId), list.pg.body.data[0].files_total);
});

test('GET /v2/files/:repo_id: the same listing, pages and search on both backends, by UUID and by path', async () => {
  const all = await both('GET', `/v2/files/${repoId}?limit=100&offset=0&order_by=file_path&order=asc`);
  assert.equal(all.pg.status, 200, JSON.stringify(all.pg.body));
  assert.ok(all.pg.body.data.length > 20);
  assert.deepEqual(stable(all.pg.body.data), stable(all.lite.body.data));
  assert.deepEqual(all.pg.body.pagination, all.lite.body.pagination);
  assert.ok(all.pg.body.data.some((f: any) => f.file_path === 'app.py' && f.function_count > 10), 'app.py with its functions');

  // Pages: two of 7 make the first 14 of the whole listing, on both.
  for (const app of [lite, onPg]) {
    const p1 = (await app.call('GET', `/v2/files/${repoId}?limit=7&offset=0&order_by=file_path&order=asc`)).body;
    const p2 = (await app.call('GET', `/v2/files/${repoId}?limit=7&offset=7&order_by=file_path&order=asc`)).body;
    assert.deepEqual([...p1.data, ...p2.data].map((f: any) => f.file_path), all.pg.body.data.slice(0, 14).map((f: any) => f.file_path));
    assert.equal(p2.pagination.total, all.pg.body.pagination.total);
  }

  const search = await both('GET', `/v2/files/${repoId}?limit=20&offset=0&search=blueprint`);
  assert.deepEqual(stable(search.pg.body.data), stable(search.lite.body.data));
  assert.ok(search.pg.body.data.some((f: any) => f.file_path === 'blueprints.py'));

  // By the folder path (percent-encoded) instead of the UUID: the same answer.
  const byUrl = await onPg.call('GET', `/v2/files/${encodeURIComponent(folder)}?limit=100&offset=0&order_by=file_path&order=asc`);
  assert.equal(byUrl.status, 200, JSON.stringify(byUrl.body));
  assert.deepEqual(stable(byUrl.body.data), stable(all.pg.body.data));
});

test('Files: one file by path and by UUID, its content, and a 404 / 400 for paths that are not in the repository, alike on both', async () => {
  for (const app of [lite, onPg]) {
    const owner = { userId: app.ownerId, keyId: '', plan: 'FREE', isOwner: true };
    const repo = await app.engine.repos.resolve(owner, repoId);
    const byPath = await app.engine.files.resolve(repo, 'app.py');
    const byUid = await app.engine.files.resolve(repo, byPath.uid.toUpperCase());
    assert.equal(byUid.path, 'app.py');
    assert.equal(byUid.uid, byPath.uid);
    const content = await app.engine.files.content(byPath);
    assert.equal(content, fs.readFileSync(path.join(folder, 'app.py'), 'utf8'));
    assert.match(content, /class Flask\(Scaffold\)/);
    await assert.rejects(app.engine.files.resolve(repo, 'no/such/file.py'), (e: any) => e.code === 'NOT_FOUND');
    await assert.rejects(app.engine.files.resolve(repo, '../../etc/passwd'), (e: any) => e.code === 'VALIDATION_FAILED');
    await assert.rejects(app.engine.files.resolve(repo, '/etc/passwd'), (e: any) => e.code === 'VALIDATION_FAILED');
  }
  const lr = await lite.engine.repos.resolve({ userId: lite.ownerId, keyId: '', plan: 'FREE', isOwner: true }, repoId);
  const pr = await onPg.engine.repos.resolve({ userId: onPg.ownerId, keyId: '', plan: 'FREE', isOwner: true }, repoId);
  const [a, b] = [await lite.engine.files.resolve(lr, 'json/provider.py'), await onPg.engine.files.resolve(pr, 'json/provider.py')];
  assert.deepEqual({ ...b, id: 0, indexedAt: '' }, { ...a, id: 0, indexedAt: '' });
});

test('the access rule on both backends: another user cannot see the owner\'s local folder (404, not 403)', async () => {
  for (const app of [lite, onPg]) {
    const other = addUser(app);
    const files = await other.as('GET', `/v2/files/${repoId}?limit=5&offset=0`);
    assert.equal(files.status, 404, JSON.stringify(files.body));
    const status = await other.as('POST', '/v2/repos/status', { url: folder });
    assert.equal(status.status, 404, JSON.stringify(status.body));
    const list = await other.as('GET', '/v2/repos?limit=10&offset=0');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data, []);
    await assert.rejects(app.engine.repos.resolve({ userId: other.userId, keyId: other.keyId, plan: 'FREE', isOwner: false }, repoId), (e: any) => e.code === 'NOT_FOUND');
  }
});

test('POST /v2/repos/index/new on PostgreSQL registers through the PG stores (queued, the caller granted) and nothing in SQLite', async () => {
  const another = copyOf(path.join(folder, 'json'), 'loupe-pg-register-');
  const res = await onPg.call('POST', '/v2/repos/index/new', { url: another });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.data.created, true);
  const id = res.body.data.repo.repo_id;
  const row = await pg.repos.get(id);
  assert.equal(row?.rootPath, fs.realpathSync(another));
  assert.equal(row?.state, 'queued');
  assert.equal(await pg.repos.hasAccess(onPg.ownerId, id), true);
  assert.equal(onPg.engine.reposStore.get(id), undefined, 'the API node wrote nothing to its SQLite');
  const status = await onPg.call('POST', '/v2/repos/status', { url: another });
  assert.equal(status.status, 200);
  assert.equal(status.body.data.state, 'queued');
  // Registering it again is the same repository, not a second one.
  const again = await onPg.call('POST', '/v2/repos/index/new', { url: another });
  assert.equal(again.body.data.created, false);
  assert.equal(again.body.data.repo.repo_id, id);
});
