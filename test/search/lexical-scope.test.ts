import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { SqliteSearchStore, type SearchStore } from '../../server/engine/store/search-store';

// BM25 ranks the full-text index alone, then keeps the rows of the repositories (and files) asked
// for, asking the index for more when too few of its best rows are theirs. These tests build an index
// where the best rows all belong to another repository, and compare with the same ranking done by a join.

const WEIGHTS: [number, number, number] = [2, 4, 1];
let t: TestEngine;
let store: SearchStore;
let loud: string;
let quiet: string;

/** A folder of `n` files that mention "lantern" `times` times each, among other words. */
function folder(name: string, n: number, times: (i: number) => number): string {
  const root = path.join(tempDir(`loupe-${name}-`), name);
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  for (let i = 0; i < n; i++) {
    const words = Array.from({ length: times(i) }, () => 'lantern').join(' ');
    fs.writeFileSync(path.join(root, 'src', `part${i}.ts`), `// ${words}\nexport const value${i} = ${i}; // harbour ${'quay '.repeat(i % 9)}\n`);
  }
  return root;
}

/** The ranking done in one query with the joins (what the store did before), as the reference. */
function joined(repoIds: string[], limit: number, fileIds?: Set<number>) {
  const rows = t.engine.db.prepare(
    `SELECT c.id AS chunkId, c.file_id AS fileId, -bm25(chunks_fts, 2, 4, 1) AS score
     FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id
     WHERE chunks_fts MATCH ? AND f.repo_id IN (SELECT value FROM json_each(?))
     ORDER BY bm25(chunks_fts, 2, 4, 1)`,
  ).all('"lantern"', JSON.stringify(repoIds)) as { chunkId: number; fileId: number; score: number }[];
  return rows.filter((r) => !fileIds || fileIds.has(r.fileId)).slice(0, limit);
}

before(async () => {
  t = createTestEngine();
  store = new SqliteSearchStore(t.engine.db);
  // 120 files that say "lantern" often: every one outranks the files of the quiet repository.
  loud = (await indexFolder(t, folder('loud', 120, (i) => 6 + (i % 5)))).id;
  quiet = (await indexFolder(t, folder('quiet', 7, () => 1))).id;
});
after(async () => { await t.close(); });

test('a repository whose rows rank below another repository\'s still gets its best rows', () => {
  const got = store.lexical('"lantern"', [quiet], 5, WEIGHTS);
  const want = joined([quiet], 5);
  assert.equal(got.length, 5);
  assert.deepEqual(got.map((r) => r.score), want.map((r) => r.score));
  const files = new Set(store.filesByIds(got.map((r) => r.fileId)).map((f) => f.repoId));
  assert.deepEqual([...files], [quiet]);
  // Fewer rows than asked: every one, and no error when the index runs out.
  assert.equal(store.lexical('"lantern"', [quiet], 50, WEIGHTS).length, 7);
});

test('both repositories together rank as one list, the same as the join', () => {
  const got = store.lexical('"lantern"', [loud, quiet], 40, WEIGHTS);
  assert.deepEqual(got.map((r) => r.score), joined([loud, quiet], 40).map((r) => r.score));
  assert.equal(store.lexical('"lantern"', [loud, quiet], 500, WEIGHTS).length, 127);
});

test('a file filter keeps only accepted files, still the best of them first', () => {
  const accepted = new Set(store.files([loud]).filter((f) => /part1\d\d?\.ts$/.test(f.path)).map((f) => f.id));
  const got = store.lexical('"lantern"', [loud], 8, WEIGHTS, (id) => accepted.has(id));
  assert.equal(got.length, 8);
  assert.ok(got.every((r) => accepted.has(r.fileId)));
  assert.deepEqual(got.map((r) => r.score), joined([loud], 8, accepted).map((r) => r.score));
});

test('a semantic search with repo_ids answers from that repository only', async () => {
  const r = await t.engine.search.search(t.ownerId, { query: 'lantern', scope: 'code', retriever: 'lexical', repoIds: [quiet], limit: 10 });
  assert.equal(r.results.length, 7);
  assert.ok(r.results.every((h) => h.repoId === quiet));
});
