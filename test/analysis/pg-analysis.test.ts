import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestEngine, indexFolder } from '../helpers/engine';
import { copyOf, debianPackage } from '../helpers/real-code';
import { startPostgres, type PgCluster } from '../helpers/postgres';
import { indexReads, openSqliteStorage, type SqliteStorage } from '../../server/engine/store/storage';
import { silentLogger } from '../../server/engine/log';
import { PgDb } from '../../server/engine/store/pg/pg-db';
import { migratePg } from '../../server/engine/store/pg/migrate';
import { openPgIndexStores, PG_INDEX_MIGRATIONS, type PgIndexStores } from '../../server/engine/store/pg/index-stores';
import { Analysis } from '../../server/engine/analysis/analysis';
import { FileDocs } from '../../server/engine/docs/file-docs';
import { DOC_DEPTHS } from '../../server/engine/docs/depth';
import type { RepoRecord } from '../../server/engine/types';
import { parsedFiles } from '../helpers/parsed-files';

/**
 * One Analysis, two backends: real code nobody here wrote (Flask 2.2.2 and gin 1.8.1 from Debian) indexed by the
 * engine into SQLite, the same parsed files written into a real PostgreSQL 15 (PgFilesStore.writeBatch), and the
 * same analysis code run over each (SQLite's stores behind their async surface, `indexReads`; PostgreSQL's index
 * stores): the same blast radius (files, symbols, dependencies), blueprint, scope, dependency map, coverage gaps,
 * review signals, and file docs.
 */
let cluster: PgCluster;
let sqlite: SqliteStorage;
let pgDb: PgDb;
let pg: PgIndexStores;
const repo: Record<'flask' | 'gin', RepoRecord> = {} as Record<'flask' | 'gin', RepoRecord>;
let onSqlite: Analysis;
let onPg: Analysis;
let docsSqlite: FileDocs;
let docsPg: FileDocs;

/**
 * A repository's files as the engine parsed them, read back from SQLite (as pg-ranking.test.ts does), in the order
 * SQLite's file ids were given. The graph lists each file's imports by file id (both stores: `ORDER BY i.file_id,
 * i.line, i.id`), and dependents at one depth come in that order, so the files are written to PostgreSQL in the same
 * order for the lists, not only their sets, to compare equal.
 */

const DOC_FILES = { flask: ['app.py', 'helpers.py', 'json/__init__.py', 'testing.py'], gin: ['context.go', 'gin.go', 'render/json.go', 'binding/binding.go'] };

before(async () => {
  const t = createTestEngine();
  const flask = await indexFolder(t, copyOf(path.join(debianPackage('python3-flask', '2.2.2-3'), 'usr/lib/python3/dist-packages/flask')));
  const gin = await indexFolder(t, copyOf(path.join(debianPackage('golang-github-gin-gonic-gin-dev', '1.8.1-1'), 'usr/share/gocode/src/github.com/gin-gonic/gin')));
  await t.close();
  sqlite = openSqliteStorage(t.dataDir, silentLogger);
  repo.flask = sqlite.repos.get(flask.id)!;
  repo.gin = sqlite.repos.get(gin.id)!;

  cluster = await startPostgres();
  pgDb = new PgDb({ url: await cluster.createDatabase(), max: 4 });
  await migratePg(pgDb, PG_INDEX_MIGRATIONS);
  pg = openPgIndexStores(pgDb, { vectors: 'bytea' });
  for (const r of [repo.flask, repo.gin]) {
    await pg.repos.insert({ id: r.id, url: r.url, name: r.name, rootPath: r.rootPath, source: r.source, branch: r.branch, visibility: r.visibility });
    const files = parsedFiles(sqlite, r.id, { order: 'id' });
    for (let i = 0; i < files.length; i += 64) await pg.files.writeBatch(r.id, files.slice(i, i + 64));
  }

  const reads = indexReads(sqlite);
  onSqlite = new Analysis(reads.analysis, silentLogger, {});
  onPg = new Analysis(pg.analysis, silentLogger, {});
  // The docs' writes go to SQLite's store (the derived index's side); `get` reads through `reads`.
  docsSqlite = new FileDocs(sqlite.analysis, reads.analysis, sqlite.files, onSqlite.ctx, silentLogger);
  docsPg = new FileDocs(sqlite.analysis, pg.analysis, sqlite.files, onPg.ctx, silentLogger);
  // Generate the docs on SQLite (a first request queues them), then copy the rows to PostgreSQL under its file ids.
  for (const [name, paths] of Object.entries(DOC_FILES) as ['flask' | 'gin', string[]][]) {
    for (const p of paths) {
      const file = sqlite.files.getByPath(repo[name].id, p);
      assert.ok(file, `${p} is indexed`);
      assert.equal((await docsSqlite.get(repo[name].id, file, 'summary')).state, 'processing');
    }
  }
  await docsSqlite.idle();
  for (const [name, paths] of Object.entries(DOC_FILES) as ['flask' | 'gin', string[]][]) {
    for (const p of paths) {
      const row = sqlite.analysis.fileDoc(sqlite.files.getByPath(repo[name].id, p)!.id)!;
      const pgFile = (await pg.files.getByPath(repo[name].id, p))!;
      await pg.analysis.putFileDoc(pgFile.id, row.sourceHash, row.generator, row.doc);
    }
  }
});
after(async () => {
  sqlite?.close();
  await pgDb?.close();
  await cluster?.stop();
});

/** Runs one question on both backends and asserts the same answer; returns it. */
async function same<T>(what: string, ask: (a: Analysis) => Promise<T>): Promise<T> {
  const a = await ask(onSqlite);
  const b = await ask(onPg);
  assert.deepEqual(b, a, what);
  return a;
}

/**
 * As `same`, for radius: call sites are parsed within a 5 ms budget and the rest in the background, so a first
 * answer's `call_graph_complete` (and its call edges) depends on timing. Ask, let the background finish, ask again.
 */
async function sameSettled<T>(what: string, ask: (a: Analysis) => Promise<T>): Promise<T> {
  for (const a of [onSqlite, onPg]) {
    await ask(a);
    for (let i = 0; i < 600 && a.ctx.pendingWarm() > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(a.ctx.pendingWarm(), 0, 'the background parsing finished');
  }
  return same(what, ask);
}

test('the import graph read from PostgreSQL equals SQLite\'s (files, edges, adjacency)', async () => {
  for (const r of [repo.flask, repo.gin]) {
    const a = await onSqlite.ctx.graph(r.id);
    const b = await onPg.ctx.graph(r.id);
    assert.ok(a.files.length > 20 && a.edges.length > 50, `${r.name}: a real graph (${a.files.length} files, ${a.edges.length} edges)`);
    assert.deepEqual(b.files.map(({ id: _id, ...f }) => f), a.files.map(({ id: _id, ...f }) => f), `${r.name}: files`);
    const edge = (g: typeof a) => g.edges.map(({ fileId, ...e }) => ({ file: g.path(g.indexOfFileId.get(fileId)!), ...e }));
    assert.deepEqual(edge(b), edge(a), `${r.name}: edges`);
    assert.deepEqual(b.in.map((l) => l.map((e) => [e.from, e.to, e.typeOnly, e.reexport])), a.in.map((l) => l.map((e) => [e.from, e.to, e.typeOnly, e.reexport])));
    // The cached graph is kept while the generation stays.
    assert.equal(await onPg.ctx.graph(r.id), b);
  }
});

test('blast radius of several files, symbols and dependencies: the same answer on SQLite and PostgreSQL', async () => {
  const all = { include: undefined, limit: 10_000 } as const;
  const flask = await sameSettled('flask radius', (a) => a.radius(repo.flask, {
    ...all, files: ['globals.py', 'helpers.py', 'json/__init__.py', 'wrappers.py', 'helpers.py#url_for', 'no/such.py'], dependencies: ['werkzeug', 'typing'],
  }));
  assert.equal(flask.summary.found, 7, JSON.stringify(flask.summary));
  assert.ok(flask.summary.total_dependents > 10, `globals.py is imported widely (${flask.summary.total_dependents})`);
  const gin = await sameSettled('gin radius', (a) => a.radius(repo.gin, {
    ...all, files: ['context.go', 'render/render.go', 'binding/binding.go', 'internal/json/json.go'], dependencies: ['net/http'],
  }));
  assert.ok(gin.targets.every((t) => t.found), JSON.stringify(gin.summary));
  assert.ok(gin.summary.total_dependents > 20, `gin's render package reaches much (${gin.summary.total_dependents})`);
  // A capped list keeps exact totals on both.
  await sameSettled('capped', (a) => a.radius(repo.gin, { files: ['render/render.go'], dependencies: [], limit: 3 }));
});

test('blueprint, scope, dependency map, coverage gaps and review: the same answers', async () => {
  for (const r of [repo.flask, repo.gin]) {
    const bp = await same(`${r.name} blueprint`, (a) => a.blueprint(r, { symbolLimit: 30, conventions: true }));
    assert.ok(bp.documentation.length > 500 && bp.conventions, `${r.name}: a real blueprint`);
    await same(`${r.name} blueprint under a prefix`, (a) => a.blueprint(r, { symbolLimit: 5, conventions: true, conventionsPathPrefix: r === repo.gin ? 'render/' : 'json/' }));
    const sc = await same(`${r.name} scope`, (a) => a.scope(r, {
      include: ['dependencies', 'functions', 'variables'], compare: [{ id: repo.gin.id, repo: repo.gin }, { id: 'nope', repo: null }], limit: 50, offset: 0, order: 'usage',
    }));
    assert.ok(sc.summary.functions > 50 && sc.summary.dependencies > 5, JSON.stringify(sc.summary));
    await same(`${r.name} coverage gaps`, (a) => a.coverageGaps(r, { limit: 100, offset: 0 }));
    await same(`${r.name} review`, (a) => a.review(r, { files: r === repo.gin ? ['context.go', 'gin.go', 'nope.go'] : ['app.py', 'helpers.py'] }));
  }
  const expanded = await same('flask scope expanded by functions', (a) => a.scope(repo.flask, {
    include: ['dependencies'], name: 'werkzeug', expand: 'functions', compare: [], limit: 10, offset: 0, order: 'name',
  }));
  assert.ok(expanded.expanded, 'an expansion');
  await same('gin scope expanded by files', (a) => a.scope(repo.gin, { include: ['functions'], name: 'render', expand: 'files', compare: [], limit: 10, offset: 0, order: 'usage' }));
  const map = await same('dependency map', (a) => a.map(repo.flask, {
    types: ['package', 'import', 'export', 'env'], compare: [], candidates: [repo.flask, repo.gin], includePublicIndex: false, limit: 200, filesPerRepo: 5,
  }));
  assert.ok(map.dependencies.length > 5, `${map.dependencies.length} rows`);
  await same('dependency map, gin against flask', (a) => a.map(repo.gin, {
    types: ['package', 'import', 'env'], compare: [{ id: repo.flask.id, repo: repo.flask }], candidates: [], includePublicIndex: false, limit: 200, filesPerRepo: 5,
  }));
});

test('file docs read from PostgreSQL render the same markdown at every depth', async () => {
  let ready = 0;
  for (const [name, paths] of Object.entries(DOC_FILES) as ['flask' | 'gin', string[]][]) {
    for (const p of paths) {
      const fileA = sqlite.files.getByPath(repo[name].id, p)!;
      const fileB = (await pg.files.getByPath(repo[name].id, p))!;
      assert.equal(fileB.hash, fileA.hash);
      for (const depth of DOC_DEPTHS) {
        const a = await docsSqlite.get(repo[name].id, fileA, depth);
        const b = await docsPg.get(repo[name].id, fileB, depth);
        assert.equal(a.state, 'ready', `${p} ${depth}`);
        assert.equal(b.state, 'ready', `${p} ${depth}`);
        if (a.state !== 'ready' || b.state !== 'ready') continue;
        assert.equal(b.markdown, a.markdown, `${p} at ${depth}`);
        assert.equal(b.generator, a.generator);
        ready++;
      }
    }
  }
  assert.equal(ready, 8 * DOC_DEPTHS.length);
});
