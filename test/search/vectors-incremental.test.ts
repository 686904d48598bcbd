import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { copyFixture, createTestEngine, indexFolder, tempDir } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';
import { silentLogger } from '../../server/engine/log';
import { HashedEmbedder } from '../../server/engine/embed/hashed-embedder';
import type { IndexWriter, VectorWriter } from '../../server/engine/indexer/index-writer';

test('vectors are computed at index time and only for chunks that have none', async () => {
  const t = createTestEngine({ search: { vectors: { minTrainChunks: 5 } } });
  try {
    const folder = copyFixture('search-code');
    const repo = await indexFolder(t, folder);
    await t.engine.vectors.idle();
    const active = t.engine.vectors.active()!;
    assert.equal(active.row.provider, 'corpus');
    assert.equal(active.row.name, 'lsa');
    const chunks = (t.engine.db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
    const vectors = (t.engine.db.prepare(`SELECT count(*) AS n FROM vec_m${active.id}`).get() as { n: number }).n;
    const empty = (t.engine.db.prepare(`SELECT count(*) AS n FROM vec_m${active.id}_empty`).get() as { n: number }).n;
    assert.equal(vectors + empty, chunks, 'every chunk has a vector (or is marked as having nothing to embed)');

    // Count what is embedded on an edit (in the index writer's thread): the edited file's chunks only.
    const writer = (t.engine.vectors as unknown as { writer: VectorWriter }).writer;
    let embedded = 0;
    const original = writer.embedSlice.bind(writer);
    writer.embedSlice = async (...args) => {
      const step = await original(...args);
      embedded += step.count;
      return step;
    };
    fs.appendFileSync(path.join(folder, 'src/geometry/circle.ts'), '\nexport function squareArea(side: number): number {\n  return side * side;\n}\n');
    await t.engine.indexer.updatePaths(repo, ['src/geometry/circle.ts']);
    await t.engine.indexer.derivedIdle();
    const circleChunks = (t.engine.db.prepare(
      "SELECT count(*) AS n FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = 'src/geometry/circle.ts'",
    ).get() as { n: number }).n;
    assert.equal(embedded, circleChunks, 'as many chunks embedded as the edited file has');
    const withVector = (t.engine.db.prepare(`SELECT count(*) AS n FROM chunks c JOIN files f ON f.id = c.file_id
      WHERE f.path = 'src/geometry/circle.ts' AND (EXISTS (SELECT 1 FROM vec_m${active.id} v WHERE v.chunk_id = c.id)
        OR EXISTS (SELECT 1 FROM vec_m${active.id}_empty e WHERE e.chunk_id = c.id))`).get() as { n: number }).n;
    assert.equal(withVector, circleChunks, 'and they are the edited file\'s');
    const r = await t.engine.search.search(t.ownerId, { query: 'square area side', scope: 'functions' });
    assert.equal(r.results[0].name, 'squareArea');

    // A deleted file takes its vectors with it (a trigger on chunks).
    fs.rmSync(path.join(folder, 'src/net/retry.ts'));
    await t.engine.indexer.updatePaths(repo, ['src/net/retry.ts']);
    await t.engine.indexer.derivedIdle();
    const orphans = (t.engine.db.prepare(`SELECT count(*) AS n FROM vec_m${active.id} v WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = v.chunk_id)`).get() as { n: number }).n;
    assert.equal(orphans, 0);
  } finally {
    await t.close();
  }
});

test('changing the provider re-embeds in the background while search keeps using the old model', async () => {
  // Stands in for a remote OpenAI-compatible embeddings service; it answers slowly on purpose.
  const hashed = new HashedEmbedder(32);
  let requests = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', async () => {
      requests++;
      const { input } = JSON.parse(body) as { input: string[] };
      const vectors = await hashed.embed(input);
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
        data: vectors.map((v, index) => ({ index, embedding: [...(v ?? new Float32Array(32).fill(0.1))] })),
      })), 30);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const t = createTestEngine({ search: { vectors: { minTrainChunks: 5, batchSize: 2 } } });
  try {
    await indexFolder(t, copyFixture('search-code'));
    await t.engine.vectors.idle();
    const before = t.engine.vectors.active()!;
    const switching = t.engine.vectors.setProvider({ kind: 'openai', baseUrl, model: 'remote-embed', batchSize: 2 });
    // While the new model fills, searches answer from the old one.
    await new Promise((r) => setTimeout(r, 50));
    const during = await t.engine.search.search(t.ownerId, { query: 'signed cookie', scope: 'code' });
    assert.equal(during.embedding!.model, before.embedder.id);
    assert.ok(during.results.length > 0);
    await switching;
    const after = t.engine.vectors.active()!;
    assert.equal(after.row.provider, 'openai');
    assert.ok(requests > 3, 'batches went to the server');
    const done = await t.engine.search.search(t.ownerId, { query: 'signed cookie', scope: 'code' });
    assert.match(done.embedding!.model, /^openai:remote-embed@/);
    assert.equal(done.results[0].filePath, 'src/net/cookies.ts');
    const tables = t.engine.db.prepare(`SELECT name FROM sqlite_master WHERE name = 'vec_m${before.id}'`).all();
    assert.deepEqual(tables, [], 'the replaced model\'s vectors are dropped');
  } finally {
    await t.close();
    server.close();
  }
});

test('a cold index of real code trains the corpus model beside its last steps: the sample is read before the trigram fill, one training, for every chunk', async () => {
  const infos: string[] = [];
  const log = { ...silentLogger, info: (message: string) => { infos.push(message); } };
  const t = createTestEngine({ log, search: { vectors: { minTrainChunks: 50 } } });
  try {
    const folder = tempDir('loupe-early-');
    fs.cpSync(path.join(npmPackage('hono@4.13.19'), 'dist'), folder, { recursive: true });
    // The indexer's writer thread also does the vectors' work (its `vectors`): record the order of the calls that matter here.
    const writer = (t.engine.indexer as unknown as { writer: IndexWriter }).writer;
    const calls: string[] = [];
    const record = (target: object, name: string) => {
      const original = (target as Record<string, (...a: unknown[]) => Promise<unknown>>)[name].bind(target);
      (target as Record<string, unknown>)[name] = (...args: unknown[]) => { calls.push(name); return original(...args); };
    };
    record(writer.vectors!, 'sampleTexts');
    record(writer, 'fillTrigram');
    await indexFolder(t, folder);
    await t.engine.vectors.idle();
    assert.deepEqual(calls.slice(0, 2), ['sampleTexts', 'fillTrigram'], `calls: ${calls.join(', ')}`);
    assert.equal(calls.filter((c) => c === 'sampleTexts').length, 1, 'trained once');
    const trained = infos.filter((m) => m.startsWith('trained the corpus embedding model'));
    assert.equal(trained.length, 1, infos.join('\n'));
    assert.match(trained[0], /begun beside the core index's last steps/);
    const active = t.engine.vectors.active()!;
    const chunks = (t.engine.db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
    assert.equal(active.row.name, 'lsa');
    assert.equal(active.row.trainedChunks, chunks, 'the model was trained for the index as it ended');
    const r = await t.engine.search.search(t.ownerId, { query: 'router add route handler', scope: 'all' });
    assert.ok(r.results.length > 0, 'search answers with the early model');
  } finally {
    await t.close();
  }
});
