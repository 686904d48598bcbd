import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';
import { silentLogger } from '../../server/engine/log';
import { CorpusEmbedder } from '../../server/engine/embed/corpus-embedder';
import { deserializeModel } from '../../server/engine/embed/corpus-model';
import { documentText } from '../../server/engine/embed/vector-writes';
import type { ChunkToEmbed } from '../../server/engine/store/vectors-store';
import type { IndexWriter } from '../../server/engine/indexer/index-writer';

/** hono's published modules: code nobody here wrote, enough chunks to train the corpus model. */
function honoCopy(): string {
  const folder = tempDir('loupe-ahead-');
  fs.cpSync(path.join(npmPackage('hono@4.13.19'), 'dist'), folder, { recursive: true });
  return folder;
}

/** Counts what the writer's thread embeds itself and what it stores ready-made (the calls, wrapped). */
function countWriterVectors(t: TestEngine) {
  const vectors = (t.engine.indexer as unknown as { writer: IndexWriter }).writer.vectors!;
  const counts = { embeddedByWriter: 0, stored: 0 };
  const embedSlice = vectors.embedSlice.bind(vectors);
  vectors.embedSlice = async (...args) => {
    const step = await embedSlice(...args);
    counts.embeddedByWriter += step.count;
    return step;
  };
  const putVectors = vectors.putVectors.bind(vectors);
  vectors.putVectors = async (modelId, repoId, ahead) => {
    counts.stored += ahead.ids.length;
    return putVectors(modelId, repoId, ahead);
  };
  return counts;
}

/**
 * Every chunk's stored vector against the one the writer's own path makes (VectorWrites.embedSlice:
 * the stored model, `embedOne(documentText(chunk))`), byte for byte, and no vector without its chunk.
 */
function assertVectorsAsTheWriterMakesThem(t: TestEngine): number {
  const active = t.engine.vectors.active()!;
  const row = t.engine.db.prepare('SELECT data FROM embedding_model_data WHERE model_id = ?').get(active.id) as { data: Buffer };
  const embedder = new CorpusEmbedder('check', deserializeModel(row.data));
  const chunks = t.engine.db.prepare('SELECT c.id, f.repo_id AS repoId, f.path, c.symbols, c.content FROM chunks c JOIN files f ON f.id = c.file_id').all() as ChunkToEmbed[];
  const stored = new Map((t.engine.db.prepare(`SELECT chunk_id AS id, embedding FROM vec_m${active.id}`).all() as { id: number; embedding: Buffer }[])
    .map((r) => [Number(r.id), r.embedding]));
  const empty = new Set((t.engine.db.prepare(`SELECT chunk_id AS id FROM vec_m${active.id}_empty`).all() as { id: number }[]).map((r) => r.id));
  assert.equal(stored.size + empty.size, chunks.length, 'a vector (or an empty mark) for each chunk, none without one');
  for (const chunk of chunks) {
    const expected = embedder.embedOne(documentText(chunk));
    if (!expected) { assert.ok(empty.has(chunk.id), `${chunk.path} #${chunk.id}: nothing to embed, not marked`); continue; }
    const got = stored.get(chunk.id);
    assert.ok(got, `${chunk.path} #${chunk.id} has no vector`);
    assert.equal(Buffer.compare(got, Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength)), 0, `${chunk.path} #${chunk.id}: another vector than its text's`);
  }
  return chunks.length;
}

test('a cold index\'s chunks are embedded by the training worker beside the writer\'s last steps, the vectors the writer would make', async () => {
  const infos: string[] = [];
  const t = createTestEngine({ log: { ...silentLogger, info: (m: string) => { infos.push(m); } }, search: { vectors: { minTrainChunks: 50 } } });
  try {
    const counts = countWriterVectors(t);
    await indexFolder(t, honoCopy());
    await t.engine.vectors.idle();
    const chunks = assertVectorsAsTheWriterMakesThem(t);
    assert.equal(counts.stored, chunks, 'the derived phase stored what the training worker embedded');
    assert.equal(counts.embeddedByWriter, 0, 'and embedded nothing itself');
    assert.match(infos.find((m) => m.startsWith('trained the corpus')) ?? '', new RegExp(`and embedded ${chunks} of them`));
    const r = await t.engine.search.search(t.ownerId, { query: 'router add route handler', scope: 'all' });
    assert.ok(r.results.length > 0);
  } finally {
    await t.close();
  }
});

test('the vectors embedded ahead are bounded by the in-memory budget: the first chunks, the writer embeds the rest', async () => {
  // 128 dims × 300 chunks: the training worker stops after 300 of hono's ~2,000 chunks.
  const t = createTestEngine({ search: { vectors: { minTrainChunks: 50, memoryFloats: 128 * 300 } } });
  try {
    const counts = countWriterVectors(t);
    await indexFolder(t, honoCopy());
    await t.engine.vectors.idle();
    const chunks = assertVectorsAsTheWriterMakesThem(t);
    assert.ok(chunks > 600, `${chunks} chunks`);
    assert.equal(counts.stored, 300, 'stored ahead');
    assert.equal(counts.embeddedByWriter, chunks - 300, 'embedded by the writer');
  } finally {
    await t.close();
  }
});

test('past 4,096 chunks two threads embed ahead, block by block, the first chunks the budget holds (phaser src): the vectors the writer would make', async () => {
  const folder = tempDir('loupe-ahead-phaser-');
  fs.cpSync(path.join(npmPackage('phaser@3.90.0'), 'src'), folder, { recursive: true });
  // 128 dims × 5,000 chunks of phaser's ~6,200: ten blocks of 512 and a part of one, taken by two threads.
  const t = createTestEngine({ search: { vectors: { memoryFloats: 128 * 5000 } } });
  try {
    const counts = countWriterVectors(t);
    await indexFolder(t, folder);
    await t.engine.vectors.idle();
    const chunks = assertVectorsAsTheWriterMakesThem(t);
    assert.ok(chunks > 6000, `${chunks} chunks`);
    assert.equal(counts.stored, 5000, 'the first 5,000 chunks stored as the two threads embedded them, none twice, none missing');
    assert.equal(counts.embeddedByWriter, chunks - 5000, 'the writer embedded the rest');
  } finally {
    await t.close();
  }
});

test('an edit after the training worker read the chunks makes its vectors stale: they are dropped and the writer embeds every chunk', async () => {
  const t = createTestEngine({ search: { vectors: { minTrainChunks: 50 } } });
  try {
    const folder = honoCopy();
    const counts = countWriterVectors(t);
    // Once the training worker is done (its chunks read and embedded), before the derived phase: a file changes.
    const writer = (t.engine.indexer as unknown as { writer: IndexWriter }).writer;
    const fillTrigram = writer.fillTrigram!.bind(writer);
    let edited = false;
    writer.fillTrigram = async () => {
      await (t.engine.vectors as unknown as { early: Promise<unknown> | null }).early;
      const { id } = t.engine.db.prepare('SELECT id FROM repos').get() as { id: string };
      const repo = t.engine.reposStore.get(id)!;
      // The same lines (so the chunk count, which the early model was trained for, stays): other words.
      const file = path.join(folder, 'hono.js');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('It sets up routing', 'It sets up zebrafinch routing'));
      await t.engine.indexer.updatePaths(repo, ['hono.js']);
      edited = true;
      return fillTrigram();
    };
    await indexFolder(t, folder);
    await t.engine.vectors.idle();
    await t.engine.indexer.derivedIdle();
    assert.ok(edited, 'the edit did not run');
    const chunks = assertVectorsAsTheWriterMakesThem(t);
    assert.equal(counts.stored, 0, 'vectors embedded before the edit were stored');
    assert.equal(counts.embeddedByWriter, chunks, 'the writer embedded every chunk itself');
    const r = await t.engine.search.search(t.ownerId, { query: 'zebrafinch routing', scope: 'code' });
    assert.ok(r.results.some((x) => 'filePath' in x && x.filePath === 'hono.js'), 'the edited file is not found by its new word');
  } finally {
    await t.close();
  }
});
