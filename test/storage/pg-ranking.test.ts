import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestEngine, indexFolder } from '../helpers/engine';
import { copyOf, debianPackage } from '../helpers/real-code';
import { startPostgres, type PgCluster } from '../helpers/postgres';
import { openSqliteStorage, type SqliteStorage } from '../../server/engine/store/storage';
import { silentLogger } from '../../server/engine/log';
import { PgDb } from '../../server/engine/store/pg/pg-db';
import { migratePg } from '../../server/engine/store/pg/migrate';
import { openPgIndexStores, PG_INDEX_MIGRATIONS, type PgIndexStores } from '../../server/engine/store/pg/index-stores';
import { PgSearchStore } from '../../server/engine/store/pg/search-store';
import { sqlOf } from '../../server/engine/store/pg/sql';
import { ftsExpression, queryTerms } from '../../server/engine/search/query';
import { parsedFiles } from '../helpers/parsed-files';

/**
 * Both backends rank alike: real code nobody here wrote (Flask 2.2.2 and gin 1.8.1 from Debian), indexed
 * by the engine into SQLite (FTS5's bm25) and the same parsed files written into a real PostgreSQL
 * (BM25 from the tables the PG store keeps); the same queries, the same weights, the same top 10 with
 * the same scores. And grep's trigram candidates on PostgreSQL are a superset of the files that hold the literal.
 */
const WEIGHTS: [number, number, number] = [2, 4, 1];
let cluster: PgCluster;
let sqlite: SqliteStorage;
let pgDb: PgDb;
let pgStores: PgIndexStores;
const repo: Record<'flask' | 'gin', string> = { flask: '', gin: '' };


before(async () => {
  const t = createTestEngine();
  repo.flask = (await indexFolder(t, copyOf(path.join(debianPackage('python3-flask', '2.2.2-3'), 'usr/lib/python3/dist-packages/flask')))).id;
  repo.gin = (await indexFolder(t, copyOf(path.join(debianPackage('golang-github-gin-gonic-gin-dev', '1.8.1-1'), 'usr/share/gocode/src/github.com/gin-gonic/gin')))).id;
  await t.close();
  sqlite = openSqliteStorage(t.dataDir, silentLogger);

  cluster = await startPostgres();
  pgDb = new PgDb({ url: await cluster.createDatabase(), max: 4 });
  await migratePg(pgDb, PG_INDEX_MIGRATIONS);
  pgStores = openPgIndexStores(pgDb);
  for (const id of [repo.flask, repo.gin]) {
    const r = sqlite.repos.get(id)!;
    await pgStores.repos.insert({ id, url: r.url, name: r.name, rootPath: r.rootPath, source: r.source, branch: r.branch, visibility: r.visibility });
    const files = parsedFiles(sqlite, id);
    for (let i = 0; i < files.length; i += 64) await pgStores.files.writeBatch(id, files.slice(i, i + 64));
  }
});
after(async () => {
  sqlite?.close();
  await pgDb?.close();
  await cluster?.stop();
});

const QUERIES = [
  'Flask.dispatch_request', 'make_response', 'url for', 'session cookie signed', 'register blueprint', 'json provider dumps',
  'template rendering context', 'request context teardown', 'Context.Next', 'Engine ServeHTTP', 'form mapping', 'tree',
  'router group middleware', 'render JSON', 'binding validation error', 'parse_signed_cookie', 'static files', 'logger',
];

type Ranked = { key: string; score: number }[];
async function ranked(store: 'sqlite' | 'pg', query: string, repoIds: string[], limit: number): Promise<Ranked> {
  const match = ftsExpression(queryTerms(query))!;
  const rows = store === 'sqlite' ? sqlite.search.lexical(match, repoIds, limit, WEIGHTS) : await pgStores.search.lexical(match, repoIds, limit, WEIGHTS);
  const s = store === 'sqlite' ? sqlite.search : pgStores.search;
  const places = new Map((await s.chunkPlaces(rows.map((r) => r.chunkId))).map((c) => [c.id, c]));
  const files = new Map((await s.filesByIds([...new Set(rows.map((r) => r.fileId))])).map((f) => [f.id, f]));
  return rows.map((r) => ({ key: `${files.get(r.fileId)!.path}:${places.get(r.chunkId)!.startLine}`, score: r.score }));
}

/** Equal scores (within floating error) may come in either order: sort each tie by key. */
const canonical = (list: Ranked) => [...list].sort((a, b) => (Math.abs(a.score - b.score) <= 1e-9 * Math.abs(a.score) ? (a.key < b.key ? -1 : 1) : b.score - a.score));

test('BM25 on PostgreSQL ranks as FTS5 on SQLite: the same top 10 with the same scores, per repository and across both', async () => {
  let sameRawOrder = 0;
  let compared = 0;
  for (const query of QUERIES) {
    for (const scope of [[repo.flask], [repo.gin], [repo.flask, repo.gin]]) {
      const [a, b] = [await ranked('sqlite', query, scope, 30), await ranked('pg', query, scope, 30)];
      assert.equal(b.length, a.length, `${query}: as many hits`);
      const [ca, cb] = [canonical(a).slice(0, 10), canonical(b).slice(0, 10)];
      assert.deepEqual(cb.map((r) => r.key), ca.map((r) => r.key), `${query} (${scope.length} repositories): the same top 10`);
      ca.forEach((r, i) => assert.ok(Math.abs(r.score - cb[i]!.score) <= 1e-9 * Math.abs(r.score), `${query}: ${r.key} scores ${r.score} and ${cb[i]!.score}`));
      compared++;
      if (a.slice(0, 10).every((r, i) => r.key === b[i]!.key)) sameRawOrder++;
    }
  }
  // Printed for the record (docs/team-server.md): ties are the only difference in order.
  console.log(`# ${compared} rankings compared, ${sameRawOrder} in the very same order before ties were sorted`);
  assert.ok(compared >= 36);
});

test('pruned BM25 (MaxScore) on PostgreSQL answers exactly what scoring every chunk answers, and prunes', async () => {
  const always = new PgSearchStore(sqlOf(pgDb), 0);
  const never = new PgSearchStore(sqlOf(pgDb), Infinity);
  const queries = [...QUERIES, 'request response context', 'return self app config', 'func c Context string error', 'the session of the current request'];
  for (const query of queries) {
    const match = ftsExpression(queryTerms(query))!;
    for (const scope of [[repo.flask], [repo.gin], [repo.flask, repo.gin]]) {
      for (const limit of [5, 10, 30]) {
        const [a, b] = [await always.lexical(match, scope, limit, WEIGHTS), await never.lexical(match, scope, limit, WEIGHTS)];
        const what = `${query} (${scope.length} repositories, top ${limit})`;
        assert.equal(a.length, b.length, what);
        // The same chunks with the same scores; sums taken in another order differ in the last bits.
        const [ca, cb] = [canonical(a.map((r) => ({ key: String(r.chunkId), score: r.score }))), canonical(b.map((r) => ({ key: String(r.chunkId), score: r.score })))];
        ca.forEach((r, i) => {
          assert.ok(Math.abs(r.score - cb[i]!.score) <= 1e-9 * Math.abs(r.score), `${what}: #${i + 1} scores ${r.score} and ${cb[i]!.score}`);
          if (i < ca.length - 1 || Math.abs(r.score - (cb[i + 1]?.score ?? -1)) > 1e-9 * Math.abs(r.score)) assert.equal(r.key, cb[i]!.key, `${what}: #${i + 1}`);
        });
      }
    }
  }
  // Would a wrong bound slip through? Only if no search was ever answered by pruning.
  assert.equal(never.pruning.searches, 0);
  assert.ok(always.pruning.firstTry + always.pruning.secondTry >= 20, JSON.stringify(always.pruning));
  console.log(`# pruning: ${JSON.stringify(always.pruning)}`);
});

test('grep candidates on PostgreSQL (pg_trgm) hold every file with the literal and no file SQLite\'s trigram index rules out', async () => {
  for (const literals of [['dispatch_request'], ['ShouldBind'], ['def ', 'session'], ['c.JSON(http.StatusOK'], ['zzzqqq']]) {
    const scope = [repo.flask, repo.gin];
    const pgIds = new Set(await pgStores.search.trigramFiles(scope, literals));
    const pgPaths = new Set((await pgStores.search.filesByIds([...pgIds])).map((f) => `${f.repoId}:${f.path}`));
    const sqlitePaths = new Set(sqlite.search.filesByIds(sqlite.search.trigramFiles(scope, literals)).map((f) => `${f.repoId}:${f.path}`));
    for (const p of pgPaths) assert.ok(sqlitePaths.has(p), `${literals.join(' & ')}: ${p} is a candidate on SQLite too`);
    for (const id of scope) {
      for (const p of sqlite.files.paths(id)) {
        const text = sqlite.files.content(sqlite.files.getByPath(id, p)!.id).toLowerCase();
        const chunks = (sqlite.db.prepare('SELECT content FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.repo_id = ? AND f.path = ?').all(id, p) as { content: string }[])
          .map((c) => c.content.toLowerCase());
        if (chunks.some((c) => literals.every((l) => c.includes(l.toLowerCase())))) assert.ok(pgPaths.has(`${id}:${p}`), `${literals.join(' & ')}: ${p} holds it`);
        else assert.ok(!pgPaths.has(`${id}:${p}`) || !text, `${literals.join(' & ')}: ${p} does not hold it in one chunk`);
      }
    }
  }
});
