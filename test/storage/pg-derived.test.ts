import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../../server/engine/log';
import { newId } from '../../server/engine/util/ids';
import type { ParsedFile } from '../../server/engine/types';
import { PgDb } from '../../server/engine/store/pg/pg-db';
import { migratePg } from '../../server/engine/store/pg/migrate';
import { openPgIndexStores, PG_INDEX_MIGRATIONS, type PgIndexStores } from '../../server/engine/store/pg/index-stores';
import { PgDocsStore } from '../../server/engine/store/pg/docs-store';
import { sqlOf, type PgConnection } from '../../server/engine/store/pg/sql';
import { VectorIndex, type ActiveModel, type VectorLocks } from '../../server/engine/embed/vector-index';
import { vectorsLock } from '../../server/engine/team/index-worker';
import { Indexer } from '../../server/engine/indexer/indexer';
import { PgIndexWriter } from '../../server/engine/indexer/pg-index-writer';
import { FileDocs } from '../../server/engine/docs/file-docs';
import { GraphCache } from '../../server/engine/analysis/import-graph';
import { startPostgres, type PgCluster } from '../helpers/postgres';
import { debianPackage } from '../helpers/real-code';
import { openPglite } from './pglite';

// The team server's derived indexes on PostgreSQL (issue 20): vectors in pgvector (tested on PGlite's
// bundled pgvector, Debian 12 has none) answer the same semantic hits as bytea scanned by the node, and
// the node holds none of them; workers embed different repositories at once under the shared vectors
// lock while choosing a model stays exclusive; file docs are built in batches. Flask 2.2.2 (Debian).
let cluster: PgCluster;
let flask: string;
before(async () => {
  cluster = await startPostgres();
  flask = path.join(debianPackage('python3-flask', '2.2.2-3'), 'usr/lib/python3/dist-packages/flask');
});
after(async () => { await cluster?.stop(); });

const noop = async () => undefined;
const run = async (gen: AsyncGenerator<unknown>) => { for await (const p of gen) void p; };

/** Flask's Python files as parsed files of 30-line chunks (real text; vectors need nothing else). */
function flaskFiles(): ParsedFile[] {
  const files: ParsedFile[] = [];
  for (const name of fs.readdirSync(flask).filter((f) => f.endsWith('.py')).sort()) {
    const lines = fs.readFileSync(path.join(flask, name), 'utf8').split('\n');
    const chunks = [];
    for (let i = 0; i < lines.length; i += 30) {
      chunks.push({ startLine: i + 1, endLine: Math.min(lines.length, i + 30), symbols: [], content: lines.slice(i, i + 30).join('\n') });
    }
    files.push({ path: name, language: 'python', size: lines.join('\n').length, lines: lines.length, hash: `h-${name}`, mtimeMs: 1,
      description: null, generated: false, unit: null, symbols: [], imports: [], chunks });
  }
  return files;
}

async function addRepo(s: PgIndexStores, id: string, files: ParsedFile[]): Promise<void> {
  await s.repos.insert({ id, url: `/r/${id}`, name: id, rootPath: `/r/${id}`, source: 'local', branch: null, visibility: 'private' });
  await s.files.writeBatch(id, files);
}

/** The worker's vector index over a store (no memory), and an API node's (memory kept, as under a live LISTEN). */
function indexes(s: PgIndexStores, locks?: VectorLocks, options: { retrainGrowth?: number } = {}) {
  const worker = new VectorIndex(null, silentLogger, { kind: 'corpus' }, { memoryFloats: 0, ...options }, s.vectors);
  if (locks) worker.useLocks(locks);
  const node = new VectorIndex(null, silentLogger, { kind: 'corpus' }, {}, s.vectors);
  node.keepInMemoryWhile(() => true);
  return { worker, node };
}

const QUERIES = ['render a template with a context', 'register a blueprint url rule', 'json response encoder', 'session cookie signing secret key',
  'teardown application context', 'command line interface run server'];

async function hits(node: VectorIndex, model: ActiveModel, repoId: string, q: string) {
  const [vector] = await model.embedder.embed([q], 'query');
  return node.nearestAsync(model, vector!, [repoId], 10);
}

test('pgvector (PGlite) and bytea (PostgreSQL 15) give the same semantic hits for the same model; the node holds no vectors with pgvector', async () => {
  const files = flaskFiles();
  const repoId = newId();
  const db = new PgDb({ url: await cluster.createDatabase(), max: 4 });
  const lite = await openPglite(PG_INDEX_MIGRATIONS);
  try {
    await migratePg(db, PG_INDEX_MIGRATIONS);
    const bytea = openPgIndexStores(db); // 'auto', as the worker opens them: Debian 12 has no pgvector
    const vector = openPgIndexStores(lite); // 'auto': PGlite's pgvector
    assert.equal(await bytea.vectors.storage(), 'bytea');
    assert.equal(await vector.vectors.storage(), 'pgvector');
    await addRepo(bytea, repoId, files);
    await addRepo(vector, repoId, files);
    const b = indexes(bytea, { shared: (signal) => vectorsLock(db, 'shared', signal), exclusive: (signal) => vectorsLock(db, 'exclusive', signal) });
    const v = indexes(vector, { shared: async () => noop, exclusive: async () => noop });
    await run(b.worker.update(repoId, new AbortController().signal));
    await run(v.worker.update(repoId, new AbortController().signal));

    const [mb, mv] = [(await b.node.activeAsync())!, (await v.node.activeAsync())!];
    assert.ok(mb && mv, 'both trained and activated a model');
    assert.equal(mb.row.name, 'lsa');
    assert.equal(await bytea.vectors.countMissing(mb.id, null), 0);
    assert.equal(await vector.vectors.countMissing(mv.id, null), 0);
    assert.ok((await bytea.vectors.modelData(mb.id))!.equals((await vector.vectors.modelData(mv.id))!), 'the same files train the same model');
    assert.equal(await vector.vectors.indexedKnn(mv.id), true);
    assert.equal(await bytea.vectors.indexedKnn(mb.id), false);
    const plan = (await lite.query(`EXPLAIN SELECT chunk_id FROM vec_m${mv.id} ORDER BY embedding <=> '[${Array(mv.row.dims).fill(0.1).join(',')}]'::vector LIMIT 10`)).rows
      .map((r) => String(Object.values(r)[0])).join('\n');
    assert.match(plan, new RegExp(`vec_m${mv.id}_hnsw`), plan);

    const ids = (rows: { chunkId: number }[]) => rows.map((r) => r.chunkId);
    // Chunk ids differ between the two databases: compare (path, line) of each hit.
    const where = async (q: (sql: string, values: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>, rows: { chunkId: number; distance: number }[]) => {
      const found = (await q('SELECT c.id, f.path, c.start_line FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id = ANY($1::int[])', [ids(rows)])).rows;
      return rows.map((r) => { const c = found.find((x) => x.id === r.chunkId)!; return { at: `${String(c.path)}:${String(c.start_line)}`, distance: r.distance }; });
    };
    const [pgQ, liteQ] = [(sql: string, values: unknown[]) => db.query(sql, values), (sql: string, values: unknown[]) => lite.query(sql, values)];
    for (const q of QUERIES) {
      const scanned = await where(pgQ, await hits(b.node, mb, repoId, q)); // bytea: read from the store and scanned
      await new Promise((r) => setTimeout(r, 0));
      const viaVector = await where(liteQ, await hits(v.node, mv, repoId, q)); // pgvector: ORDER BY <=> LIMIT k
      assert.equal(viaVector.length, 10);
      assert.equal(scanned.length, 10);
      // The same hits: every hit of one is a hit of the other at the same distance, except a tie at the
      // tenth place (which either may keep).
      const last = scanned[9]!.distance;
      for (const h of scanned.filter((x) => x.distance < last - 1e-5)) {
        const other = viaVector.find((x) => x.at === h.at);
        assert.ok(other, `${q}: ${h.at} (distance ${h.distance}) is a pgvector hit too: ${JSON.stringify(viaVector)}`);
        assert.ok(Math.abs(other.distance - h.distance) < 1e-4, `${q}: ${h.at} at the same distance`);
      }
    }
    // The bytea node now holds the repository's vectors (read in the background) and answers from memory alike.
    for (let i = 0; i < 100 && !b.node.repositoryMemory.floats; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(b.node.repositoryMemory.floats > 0, 'bytea: the node keeps the vectors in memory');
    for (const q of QUERIES.slice(0, 2)) {
      const fromMemory = await where(pgQ, await hits(b.node, mb, repoId, q));
      const viaVector = await where(liteQ, await hits(v.node, mv, repoId, q));
      assert.deepEqual(new Set(fromMemory.slice(0, 5).map((h) => h.at)), new Set(viaVector.slice(0, 5).map((h) => h.at)), q);
    }
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(v.node.repositoryMemory, { repos: 0, floats: 0 }, 'pgvector: the node holds none of the vectors');
  } finally {
    await lite.close();
    await db.close();
  }
});

test('two workers embed different repositories at once under the shared lock; a model is chosen by one at a time', async () => {
  const files = flaskFiles();
  const url = await cluster.createDatabase();
  const [dbA, dbB] = [new PgDb({ url, max: 4 }), new PgDb({ url, max: 4 })];
  try {
    await migratePg(dbA, PG_INDEX_MIGRATIONS);
    const [sA, sB] = [openPgIndexStores(dbA), openPgIndexStores(dbB)];
    const [r1, r2] = [newId(), newId()];
    await addRepo(sA, r1, files);
    await addRepo(sA, r2, files);
    // Counts what each worker held, and when: the barrier below holds A's shared lock until B holds its own.
    const held = { A: [] as string[], B: [] as string[] };
    let bShared!: () => void;
    let bHasShared = new Promise<void>((r) => { bShared = r; });
    const locksOf = (db: PgDb, who: 'A' | 'B'): VectorLocks => ({
      shared: async (signal) => {
        const release = await vectorsLock(db, 'shared', signal);
        held[who].push('shared');
        if (who === 'B') bShared();
        else await Promise.race([bHasShared, new Promise((r) => setTimeout(r, 20_000))]);
        return release;
      },
      exclusive: async (signal) => {
        const release = await vectorsLock(db, 'exclusive', signal);
        held[who].push('exclusive');
        return release;
      },
    });
    // First runs, at once on a fresh database: the first to look finds no model and takes the exclusive
    // lock to train one; the other either finds no active model either (and waits for the exclusive lock,
    // then fills the model the first left) or, when the first was quicker, finds it active under the shared
    // lock and fills its repository there. Which happens is timing; one model, trained once, is not.
    const A = indexes(sA, locksOf(dbA, 'A'), { retrainGrowth: 100 });
    const B = indexes(sB, locksOf(dbB, 'B'), { retrainGrowth: 100 });
    bShared(); // no barrier in this round
    await Promise.all([run(A.worker.update(r1, new AbortController().signal)), run(B.worker.update(r2, new AbortController().signal))]);
    const models = await sA.vectors.models();
    assert.equal(models.length, 1, `one model: ${JSON.stringify(models)}`);
    assert.equal(models[0]!.state, 'active');
    assert.equal(await sA.vectors.countMissing(models[0]!.id, null), 0, 'every chunk has its vector');
    assert.ok(held.A.includes('exclusive') || held.B.includes('exclusive'), `the model was chosen under the exclusive lock: ${JSON.stringify(held)}`);

    // Second runs: new files in both repositories, the model active and not due for retraining.
    const more = (tag: string) => files.slice(0, 6).map((f) => ({ ...f, path: `${tag}/${f.path}`, hash: `${tag}-${f.hash}` }));
    await sA.files.writeBatch(r1, more('a'));
    await sA.files.writeBatch(r2, more('b'));
    held.A.length = 0;
    held.B.length = 0;
    bHasShared = new Promise<void>((r) => { bShared = r; });
    const A2 = indexes(sA, locksOf(dbA, 'A'), { retrainGrowth: 100 });
    const B2 = indexes(sB, {
      ...locksOf(dbB, 'B'),
      // B starts once A holds its shared lock (and A waits, holding it, until B holds its own).
      shared: async (signal) => {
        while (!held.A.includes('shared')) await new Promise((r) => setTimeout(r, 10));
        const release = await vectorsLock(dbB, 'shared', signal);
        held.B.push('shared');
        bShared();
        return release;
      },
    }, { retrainGrowth: 100 });
    const t0 = Date.now();
    await Promise.all([run(A2.worker.update(r1, new AbortController().signal)), run(B2.worker.update(r2, new AbortController().signal))]);
    assert.ok(Date.now() - t0 < 15_000, 'B took its shared lock while A held its own (A waited for it: 20 s otherwise)');
    assert.deepEqual(held, { A: ['shared'], B: ['shared'] }, 'neither took the exclusive lock');
    const after2 = await sA.vectors.models();
    assert.deepEqual(after2.map((m) => [m.id, m.state]), [[models[0]!.id, 'active']], 'the same model');
    assert.equal(await sA.vectors.countMissing(models[0]!.id, null), 0);

    // The exclusive lock keeps shared holders out (and the wait ends with the job's abort).
    const ex = (await vectorsLock(dbA, 'exclusive', new AbortController().signal))!;
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 1_200);
    assert.equal(await vectorsLock(dbB, 'shared', abort.signal), null, 'no shared lock while the exclusive one is held');
    await ex();
    const sh = await vectorsLock(dbB, 'shared', new AbortController().signal);
    assert.ok(sh, 'the shared lock once the exclusive one is let go');
    await sh();
  } finally {
    await dbA.close();
    await dbB.close();
  }
});

test('file docs in batches equal the docs built one file at a time, in a few round trips per batch', async () => {
  const db = new PgDb({ url: await cluster.createDatabase(), max: 6 });
  try {
    await migratePg(db, PG_INDEX_MIGRATIONS);
    const stores = openPgIndexStores(db);
    const repoId = newId();
    await stores.repos.insert({ id: repoId, url: flask, name: 'flask', rootPath: flask, source: 'local', branch: null, visibility: 'private' });
    const writer = new PgIndexWriter(stores, db, { maxFileBytes: 1024 * 1024 });
    const indexer = new Indexer(stores.repos, writer.indexerFiles, silentLogger, { maxFileBytes: 1024 * 1024, writerThread: false }, undefined, writer);
    try {
      await indexer.indexRepository((await stores.repos.get(repoId))!);
    } finally {
      await indexer.close();
    }
    const graphs = new GraphCache(stores.analysis);
    const ctx = { graph: (id: string) => graphs.get(id), entries: async () => [] };
    const pending = (id: string) => stores.analysis.pendingDocs(id);
    const docsOf = async () => (await db.query('SELECT f.path, d.source_hash, d.generator, d.doc FROM file_docs d JOIN files f ON f.id = d.file_id ORDER BY f.path COLLATE "C"')).rows;

    // One file at a time (eight in flight), the path before batches.
    await run(new FileDocs(stores.analysis, stores.analysis, stores.files, ctx, silentLogger, pending).update(repoId, new AbortController().signal));
    const single = await docsOf();
    assert.ok(single.length >= 20, `${single.length} docs`);
    assert.equal((await pending(repoId)).length, 0);

    // Batches, counting the statements they send.
    await db.query('DELETE FROM file_docs');
    let statements = 0;
    const counted: PgConnection = { query: (text, values) => { statements++; return db.query(text, values); }, transaction: (work) => db.transaction(work) };
    const cs = openPgIndexStores(counted); // every store the docs are read and written through is counted
    const batched = new FileDocs(cs.analysis, cs.analysis, cs.files, ctx, silentLogger, pending, new PgDocsStore(sqlOf(counted)));
    await run(batched.update(repoId, new AbortController().signal));
    const batches = Math.ceil(single.length / 64);
    assert.ok(statements >= batches && statements <= 5 * batches, `${statements} statements for ${single.length} docs in ${batches} batch(es)`);
    const strip = (rows: Record<string, unknown>[]) => rows.map((r) => ({ ...r }));
    assert.deepEqual(strip(await docsOf()), strip(single), 'the same docs');
    assert.equal((await pending(repoId)).length, 0);
  } finally {
    await db.close();
  }
});
