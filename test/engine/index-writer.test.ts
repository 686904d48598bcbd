import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';
import { CorpusEmbedder } from '../../server/engine/embed/corpus-embedder';
import { deserializeModel, serializeModel, trainCorpusModel } from '../../server/engine/embed/corpus-model';
import { DEFAULT_VECTOR_OPTIONS } from '../../server/engine/embed/vector-index';
import { SqliteVectorsStore } from '../../server/engine/store/vectors-store';
import { documentText } from '../../server/engine/embed/vector-writes';
import { literalTrigrams, TrigramIndex } from '../../server/engine/store/trigram-index';
import type { VectorIndex } from '../../server/engine/embed/vector-index';

/**
 * Counts calls to the main connection's file writes and to its vector work (none should happen: the
 * writer thread has its own connection, and reads, embeds and writes the corpus model's vectors there).
 */
function spyMainWrites(t: TestEngine): { calls: string[] } {
  const spy = { calls: [] as string[] };
  const wrap = (store: Record<string, (...args: unknown[]) => unknown>, names: string[]) => {
    for (const name of names) {
      const original = store[name].bind(store);
      store[name] = (...args: unknown[]) => { spy.calls.push(name); return original(...args); };
    }
  };
  wrap(t.engine.filesStore as unknown as Record<string, (...args: unknown[]) => unknown>,
    ['writeBatch', 'touch', 'deletePaths', 'recordSkipped', 'setImportTarget', 'replaceImports']);
  wrap((t.engine.vectors as unknown as { store: Record<string, (...args: unknown[]) => unknown> }).store, ['put', 'missing', 'sampleTexts', 'all']);
  return spy;
}

/**
 * The active corpus model is the one this thread trains from the same sample. (Two indexes of one
 * folder do not share a model: chunk ids follow the order parse results arrive in, and the sample
 * is every n-th id; so the check is against this index's own sample.)
 */
function assertModelAsTrainedHere(t: TestEngine): void {
  const row = t.engine.db.prepare(`SELECT m.name, d.data, m.trained_chunks AS trainedChunks FROM embedding_models m
    JOIN embedding_model_data d ON d.model_id = m.id WHERE m.state = 'active'`).get() as
    { name: string; data: Buffer; trainedChunks: number };
  assert.equal(row.name, 'lsa', 'the corpus model was trained');
  // A store of its own on the main connection (the engine's is watched for calls).
  const sample = new SqliteVectorsStore(t.engine.db).sampleTexts(DEFAULT_VECTOR_OPTIONS.maxTrainDocs);
  const model = trainCorpusModel(sample, { dims: DEFAULT_VECTOR_OPTIONS.corpusDims })!;
  model.trainedChunks = row.trainedChunks;
  assert.ok(serializeModel(model).equals(row.data), 'the model trained from the sample the writer read equals the one trained here');
}

/** Every stored vector equals the one the model's embedder makes on this thread (how vectors were made before the writer made them). */
async function assertVectorsAsEmbeddedHere(t: TestEngine, repoId: string): Promise<void> {
  const model = t.engine.db.prepare("SELECT m.id, m.name, d.data FROM embedding_models m JOIN embedding_model_data d ON d.model_id = m.id WHERE m.state = 'active'")
    .get() as { id: number; name: string; data: Buffer };
  assert.equal(model.name, 'lsa', 'the corpus model was trained');
  const embedder = new CorpusEmbedder('check', deserializeModel(model.data));
  const id = model.id;
  const stored = new Map((t.engine.db.prepare(`SELECT chunk_id AS id, embedding FROM vec_m${id}`).all() as { id: number; embedding: Buffer }[]).map((r) => [r.id, r.embedding]));
  const chunks = t.engine.db.prepare('SELECT c.id, f.repo_id AS repoId, f.path, c.symbols, c.content FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.repo_id = ?')
    .all(repoId) as { id: number; repoId: string; path: string; symbols: string | null; content: string }[];
  const vectors = await embedder.embed(chunks.map(documentText));
  let compared = 0;
  chunks.forEach((c, i) => {
    const want = vectors[i];
    const got = stored.get(c.id);
    if (!want) return assert.equal(got, undefined, `${c.path}: nothing to embed, no vector`);
    assert.ok(got, `${c.path} (chunk ${c.id}) has its vector`);
    assert.ok(Buffer.from(want.buffer, want.byteOffset, want.byteLength).equals(got), `${c.path} (chunk ${c.id}): the vector made here`);
    compared++;
  });
  assert.ok(compared > chunks.length / 2, `${compared} of ${chunks.length} chunks have a vector`);
}

test('a cold index and an edit are written by the writer thread, never on the connection that answers requests', async () => {
  const folder = tempDir('loupe-writer-');
  for (let d = 0; d < 6; d++) {
    fs.mkdirSync(path.join(folder, `pkg${d}`));
    for (let f = 0; f < 60; f++) {
      const body = Array.from({ length: 120 }, (_, i) => `export function f${d}_${f}_${i}(x: number): number { return x * ${i} + ${f}; }`).join('\n');
      fs.writeFileSync(path.join(folder, `pkg${d}`, `m${f}.ts`), `import { f0_0_0 } from '../pkg0/m0';\n${body}\n`);
    }
  }
  fs.writeFileSync(path.join(folder, 'pkg5', '.gitignore'), 'm1*.ts\n');
  const t = createTestEngine();
  const spy = spyMainWrites(t);
  try {
    const repo = await indexFolder(t, folder);
    const paths = t.engine.filesStore.paths(repo.id);
    assert.ok(!paths.some((p) => /^pkg5\/m1\d?\.ts$/.test(p)), 'pkg5/m1.ts and m10–m19.ts are ignored by the nested .gitignore');
    assert.equal(paths.length, 6 * 60 - 11 + 1, 'every file but the 11 ignored ones, and the .gitignore');
    assert.equal(t.engine.reposStore.get(repo.id)!.filesDone, paths.length, 'the writer moved the progress with its commits');
    assert.deepEqual(t.engine.filesStore.imports(t.engine.filesStore.getByPath(repo.id, 'pkg3/m7.ts')!.id).map((i) => i.targetPath), ['pkg0/m0.ts']);

    // An edit: parsed and written by the writer, searchable at once.
    fs.writeFileSync(path.join(folder, 'pkg2', 'm3.ts'), 'export const zanzibarQuokka = 1;\n');
    fs.writeFileSync(path.join(folder, 'pkg2', 'new.ts'), "import { zanzibarQuokka } from './m3';\nexport const b = zanzibarQuokka;\n");
    await t.engine.indexer.updatePaths(repo, ['pkg2/m3.ts', 'pkg2/new.ts']);
    const hits = await t.engine.search.search(t.ownerId, { query: 'zanzibarQuokka', scanMode: 'grep_code', scope: 'code', limit: 10 });
    assert.deepEqual([...new Set(hits.results.map((h) => h.filePath))].sort(), ['pkg2/m3.ts', 'pkg2/new.ts']);
    assert.deepEqual(t.engine.filesStore.imports(t.engine.filesStore.getByPath(repo.id, 'pkg2/new.ts')!.id).map((i) => i.targetPath), ['pkg2/m3.ts']);
    await t.engine.indexer.derivedIdle();
    // Semantic search after the edit: sqlite-vec answers while the writer's thread reads the vectors
    // for the in-memory scan (never this thread); then the scan answers the same.
    const vectors = t.engine.vectors as unknown as Pick<VectorIndex, 'active' | 'nearest'> & { reading: Promise<void> | null; memory: unknown };
    const model = vectors.active()!;
    // A stored chunk vector as the query.
    const stored = (t.engine.db.prepare(`SELECT embedding FROM vec_m${model.id} LIMIT 1 OFFSET 100`).get() as { embedding: Buffer }).embedding;
    const query = new Float32Array(stored.buffer.slice(stored.byteOffset, stored.byteOffset + stored.byteLength));
    const viaKnn = vectors.nearest(model, query, [repo.id], 10);
    assert.equal(vectors.memory, null);
    assert.ok(vectors.reading, 'the writer reads the vectors for the in-memory scan');
    await vectors.reading;
    const viaMemory = vectors.nearest(model, query, [repo.id], 10);
    assert.ok(vectors.memory, 'the vectors are in memory now');
    assert.equal(viaKnn.length, 10);
    // The same nearest distances (this fixture has many equal vectors, so ties may name other chunks).
    viaKnn.forEach((r, i) => assert.ok(Math.abs(r.distance - viaMemory[i].distance) < 1e-4, `distance ${i}: ${r.distance} vs ${viaMemory[i].distance}`));
    assert.ok(viaKnn[0].distance < 1e-4, 'the query vector\'s own chunk is the nearest');
    assert.deepEqual(spy.calls, [], 'nothing written on the main connection, no vector read, embedded or written there');
    // The edit's chunks got their vectors (in the writer's thread), the same as this thread makes.
    await assertVectorsAsEmbeddedHere(t, repo.id);
  } finally {
    await t.close();
  }
});

/** The index's content, row by row (ids and times aside), what a few full-text queries find, and the chunks of their words' trigrams. */
function indexContent(t: TestEngine, repoId: string, words: string[]): unknown {
  const db = t.engine.db;
  const rows = (sql: string) => db.prepare(sql).all(repoId);
  return {
    files: rows('SELECT path, name, language, size, lines, hash, mtime_ms, description, generated, unit FROM files WHERE repo_id = ? ORDER BY path'),
    symbols: rows('SELECT f.path, s.name, s.kind, s.parent, s.start_line, s.end_line, s.exported, s.signature, s.doc FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.repo_id = ? ORDER BY f.path, s.start_line, s.name, s.kind'),
    imports: rows('SELECT f.path, i.specifier, i.kind, i.type_only, i.target_path, i.package, i.names, i.line FROM imports i JOIN files f ON f.id = i.file_id WHERE f.repo_id = ? ORDER BY f.path, i.line, i.specifier'),
    chunks: rows('SELECT f.path, c.seq, c.start_line, c.end_line, c.symbols, c.content FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.repo_id = ? ORDER BY f.path, c.seq'),
    fts: words.map((w) => db.prepare(`SELECT f.path, c.seq FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id
      WHERE chunks_fts MATCH ? AND f.repo_id = ? ORDER BY f.path, c.seq`).all(w, repoId)),
    trigram: words.map((w) => literalTrigrams(w)!.map((tri) => db.prepare(`SELECT f.path, c.seq FROM chunks c JOIN files f ON f.id = c.file_id
      WHERE c.id IN (SELECT value FROM json_each(?)) AND f.repo_id = ? ORDER BY f.path, c.seq`).all(JSON.stringify(new TrigramIndex(db).chunksWith(tri)), repoId))),
  };
}

test('a cold index of real code (phaser src) and edits hold the event loop only briefly, equal the index written on the main thread, and hold the vectors its model makes', async () => {
  const src = path.join(npmPackage('phaser@3.90.0'), 'src');
  const folder = tempDir('loupe-writer-phaser-');
  fs.cpSync(src, folder, { recursive: true });
  const words = ['sprite', 'getBounds', 'velocity', 'WebGLRenderer', 'tween', 'pointer'];

  // Written and embedded on this thread (no writer thread), as before.
  let onMain: unknown;
  const main = createTestEngine({ indexer: { writerThread: false } });
  try {
    const repo = await indexFolder(main, folder);
    onMain = indexContent(main, repo.id, words);
    assertModelAsTrainedHere(main);
    await assertVectorsAsEmbeddedHere(main, repo.id);
  } finally {
    await main.close();
  }

  const worker = createTestEngine();
  const spy = spyMainWrites(worker);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const editDelay = monitorEventLoopDelay({ resolution: 10 });
  try {
    delay.enable();
    const repo = await indexFolder(worker, folder); // every phase: the vectors' training and embedding too
    delay.disable();
    assert.equal(repo.state, 'ready');
    assert.deepEqual(indexContent(worker, repo.id, words), onMain, 'the same rows, the same search answers');
    assertModelAsTrainedHere(worker);
    await assertVectorsAsEmbeddedHere(worker, repo.id);
    assert.deepEqual(spy.calls, [], 'nothing written on the main connection, no vector read, embedded or written there');

    // Edits, each followed by the vectors' catch-up (in the writer's thread).
    const files = worker.engine.filesStore.paths(repo.id).filter((p) => p.endsWith('.js')).slice(0, 200);
    editDelay.enable();
    for (let i = 0; i < 5; i++) {
      const file = files[i * 37];
      fs.appendFileSync(path.join(folder, file), `\nfunction quokkaEdit${i}(wombat) { return wombat + ${i}; }\n`);
      await worker.engine.indexer.updatePaths(repo, [file]);
      await worker.engine.indexer.derivedIdle();
    }
    editDelay.disable();
    assert.deepEqual(spy.calls, [], 'edits: nothing written or embedded on the main connection');
    await assertVectorsAsEmbeddedHere(worker, repo.id);
  } finally {
    delay.disable();
    editDelay.disable();
    await worker.close();
  }
  // Before the writer thread, write transactions held the loop for 0.1–1 s (FTS5 merges, commits),
  // and embedding held it in 10 ms slices with GC between. A loose bound on the 99th percentile (this
  // test runs niced on a shared machine, where the longest delay is mostly time off the core): the
  // thread that answers is rarely held, in the vector phase and during edits too.
  const ms = (h: typeof delay, p: number) => (h.percentile(p) / 1e6).toFixed(0);
  const p99 = delay.percentile(99) / 1e6;
  assert.ok(p99 < 200, `event-loop delay during a cold index of phaser: p99 ${p99.toFixed(0)} ms, max ${(delay.max / 1e6).toFixed(0)} ms`);
  const editP99 = editDelay.percentile(99) / 1e6;
  assert.ok(editP99 < 100, `event-loop delay during edits and their vectors: p99 ${editP99.toFixed(0)} ms, p50 ${ms(editDelay, 50)} ms, max ${(editDelay.max / 1e6).toFixed(0)} ms`);
});
