import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { newId } from '../../server/engine/util/ids';
import { PgDb } from '../../server/engine/store/pg/pg-db';
import { migratePg } from '../../server/engine/store/pg/migrate';
import { openPgIndexStores, PG_INDEX_MIGRATIONS } from '../../server/engine/store/pg/index-stores';
import { startPostgres, type PgCluster } from '../helpers/postgres';
import { indexConformance } from './storage-conformance';
import { openPglite } from './pglite';

// The index side of the team server against the backend-neutral checks SQLite passes: on a real
// PostgreSQL 15 (Debian's, no pgvector: vectors as bytea, scanned by the node), and on PGlite with
// its bundled pgvector (vector(n), HNSW, <=>), the same stores and SQL text on both.
let cluster: PgCluster;
before(async () => { cluster = await startPostgres(); });
after(async () => { await cluster?.stop(); });

indexConformance('PostgreSQL', async () => {
  const db = new PgDb({ url: await cluster.createDatabase(), max: 4 });
  await migratePg(db, PG_INDEX_MIGRATIONS);
  const stores = openPgIndexStores(db);
  if ((await stores.vectors.storage()) !== 'bytea') throw new Error('expected no pgvector on Debian 12');
  return { ...stores, close: () => db.close() };
});

indexConformance('PGlite + pgvector', async () => {
  const lite = await openPglite(PG_INDEX_MIGRATIONS);
  const stores = openPgIndexStores(lite, { vectors: 'pgvector' });
  return { ...stores, close: () => lite.close() };
});

test('pgvector (PGlite): nearest goes through the HNSW index and finds what an exact scan finds, within the asked repositories', async () => {
  const lite = await openPglite(PG_INDEX_MIGRATIONS);
  try {
    const s = openPgIndexStores(lite, { vectors: 'pgvector' });
    const exact = openPgIndexStores(lite, { vectors: 'bytea' });
    const repos = [newId(), newId()];
    for (const id of repos) await s.repos.insert({ id, url: `/r/${id}`, name: id, rootPath: `/r/${id}`, source: 'local', branch: null, visibility: 'private' });
    const dims = 16;
    const chunks = Array.from({ length: 300 }, (_, i) => ({ startLine: i + 1, endLine: i + 1, symbols: [], content: `line ${i}` }));
    for (const [n, id] of repos.entries()) {
      await s.files.writeBatch(id, [{ path: `f${n}.ts`, language: 'typescript', size: 1, lines: 300, hash: 'h', mtimeMs: 1, description: null, generated: false, unit: null, symbols: [], imports: [], chunks }]);
    }
    let seed = 3;
    const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) - 0.5;
    const vectorOf = () => new Float32Array(Array.from({ length: dims }, rnd));
    const hnsw = await s.vectors.addModel('test', 'hnsw', dims, null, 0);
    const scan = await exact.vectors.addModel('test', 'scan', dims, null, 0);
    for (const id of repos) {
      const todo = await s.vectors.missing(hnsw, id, 1000);
      const rows = todo.map((c) => ({ chunkId: c.id, repoId: id, vector: vectorOf() }));
      await s.vectors.put(hnsw, rows);
      await exact.vectors.put(scan, rows);
    }
    const plan = (await lite.query(`EXPLAIN SELECT chunk_id FROM vec_m${hnsw} ORDER BY embedding <=> '[${Array(dims).fill(0.1).join(',')}]'::vector LIMIT 5`)).rows
      .map((r) => String(Object.values(r)[0])).join('\n');
    assert.match(plan, new RegExp(`vec_m${hnsw}_hnsw`), plan);
    let same = 0;
    for (let q = 0; q < 20; q++) {
      const query = vectorOf();
      const [a, b] = [await s.vectors.nearest(hnsw, query, [repos[0]!], 10), await exact.vectors.nearest(scan, query, [repos[0]!], 10)];
      assert.equal(a.length, 10, 'a repository filter still fills k');
      assert.ok(a.every((r) => r.chunkId <= 300), 'only the asked repository');
      b.forEach((r, i) => assert.ok(Math.abs(r.distance - (a.find((x) => x.chunkId === r.chunkId)?.distance ?? r.distance)) < 1e-5, `distance ${i}`));
      same += a.filter((r) => b.some((x) => x.chunkId === r.chunkId)).length;
    }
    assert.ok(same / 200 >= 0.9, `recall@10 ${same / 200}`);
  } finally {
    await lite.close();
  }
});

test('the parse-again migrations SQLite runs (30, 31, 32) run on PostgreSQL too (111, 112, 113), and mark the same files', async () => {
  const lite = await openPglite(PG_INDEX_MIGRATIONS.filter((m) => m.version <= 110));
  try {
    const s = openPgIndexStores(lite, { vectors: 'bytea' });
    const repo = newId();
    await s.repos.insert({ id: repo, url: `/r/${repo}`, name: 'r', rootPath: `/r/${repo}`, source: 'local', branch: null, visibility: 'private' });
    const gemless = newId();
    await s.repos.insert({ id: gemless, url: `/r/${gemless}`, name: 'g', rootPath: `/r/${gemless}`, source: 'local', branch: null, visibility: 'private' });
    const file = (path: string, language: string | null, content: string, imports: { specifier: string; targetPath: string | null; packageName: string | null }[]) => ({
      path, language, size: 1, lines: 1, hash: 'h', mtimeMs: 1, description: null, generated: false, unit: null, symbols: [],
      imports: imports.map((i) => ({ ...i, kind: language === 'ruby' ? 'require' as const : 'import' as const, typeOnly: false, names: [], line: 1 })),
      chunks: [{ startLine: 1, endLine: 1, symbols: [], content }],
    });
    await s.files.writeBatch(repo, [
      file('pkg/writer.py', 'python', 'import pkg.utils.roman as roman', [
        { specifier: 'pkg', targetPath: 'pkg/__init__.py', packageName: null },
        { specifier: 'pkg.utils.roman', targetPath: null, packageName: null }]),
      file('pkg/other.py', 'python', 'import requests.adapters', [{ specifier: 'requests.adapters', targetPath: null, packageName: 'requests' }]),
      file('types/index.d.ts', 'typescript', '/// <reference types="node" />', []),
      file('src/app.ts', 'typescript', "import './x';", [{ specifier: './x', targetPath: null, packageName: null }]),
      file('lib/c/c.rb', 'ruby', "require 'c/map'", [{ specifier: 'c/map', targetPath: null, packageName: 'c' }]),
      file('c.gemspec', null, 's.require_paths = ["lib/c"]', []),
    ]);
    await s.files.writeBatch(gemless, [file('lib/d.rb', 'ruby', "require 'd/map'", [{ specifier: 'd/map', targetPath: null, packageName: 'd' }])]);
    for (const m of PG_INDEX_MIGRATIONS.filter((m) => m.version > 110)) await lite.lite.exec(m.sql);
    const rows = await lite.query("SELECT path FROM files WHERE hash = '' ORDER BY path");
    assert.deepEqual(rows.rows.map((r) => r.path), ['lib/c/c.rb', 'pkg/writer.py', 'types/index.d.ts']);
  } finally {
    await lite.close();
  }
});
