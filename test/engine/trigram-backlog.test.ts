import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';
import { TrigramBacklog } from '../../server/engine/store/files-store';
import { SqliteSearchStore } from '../../server/engine/store/search-store';
import { literalTrigrams, TrigramIndex } from '../../server/engine/store/trigram-index';

/**
 * grep's trigram index (migration 027, store/trigram-index.ts): posting lists the index writer builds from the
 * backlog (the chunks from `trigram_backlog.from_id` up), after a run and once an editing session's backlog is
 * large. Its lookups must never miss a file that holds a literal (the caller confirms candidates by scanning,
 * so more is allowed, fewer never), the backlog's chunks are candidates while they wait, a chunk id SQLite
 * gives again is not lost, and many segments are merged into one.
 */

/** A folder of `n` small TypeScript files, each with a word of its own and a shared one. */
function folderOf(n: number): string {
  const folder = tempDir('loupe-trigram-');
  for (let i = 0; i < n; i++) {
    const dir = path.join(folder, `pkg${i % 7}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `file${i}.ts`),
      `import { shared } from './file${(i + 1) % n}';\nexport function uniqueWord${i}Marker(x: number) {\n  return shared + x * ${i}; // sharedLiteral\n}\n`);
  }
  return folder;
}

const backlogFrom = (t: TestEngine) => t.engine.db.prepare('SELECT from_id FROM trigram_backlog').pluck().get() as number;
const topChunk = (t: TestEngine) => t.engine.db.prepare('SELECT coalesce(max(id), 0) FROM chunks').pluck().get() as number;
const segments = (t: TestEngine) => t.engine.db.prepare('SELECT count(DISTINCT seg) FROM chunk_trigrams').pluck().get() as number;
/** Paths of the files trigramFiles proposes for a literal. */
const candidates = (t: TestEngine, repoId: string, literal: string) => {
  const ids = new Set(new SqliteSearchStore(t.engine.db).trigramFiles([repoId], [literal]));
  return (t.engine.db.prepare('SELECT id, path FROM files WHERE repo_id = ? ORDER BY path').all(repoId) as { id: number; path: string }[])
    .filter((f) => ids.has(f.id)).map((f) => f.path);
};
/** Paths of the files whose indexed text holds the literal, case ignored (what a full scan finds). */
const holding = (t: TestEngine, repoId: string, literal: string) => (t.engine.db.prepare(
  `SELECT DISTINCT f.path FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.repo_id = ? AND instr(lower(c.content), lower(?)) > 0 ORDER BY f.path`,
).pluck().all(repoId, literal) as string[]);
/** Paths of the files with a chunk in the trigram index's rows (not the backlog) holding every trigram of the literal. */
const indexed = (t: TestEngine, literal: string) => {
  const ids = new TrigramIndex(t.engine.db).chunksWithAll([literalTrigrams(literal)!]);
  return t.engine.db.prepare('SELECT DISTINCT f.path FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN (SELECT value FROM json_each(?)) ORDER BY f.path')
    .pluck().all(JSON.stringify(ids)) as string[];
};

test('on real code (hono), every file holding a literal is a candidate, and the candidates are the files whose chunks hold its trigrams', async () => {
  const t = createTestEngine();
  try {
    const repo = await indexFolder(t, path.join(npmPackage('hono@4.13.19'), 'dist'));
    assert.equal(backlogFrom(t), topChunk(t) + 1, 'the run filled the backlog');
    const chunks = (t.engine.db.prepare('SELECT f.path, lower(c.content) AS text FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.repo_id = ?').all(repo.id) as { path: string; text: string }[]);
    const literals = ['getCookie', 'c.req.header(', 'HTTPException', 'await next()', 'Content-Type', 'new Response', 'x-forwarded-for', 'zzqqzz'];
    for (const literal of literals) {
      const found = candidates(t, repo.id, literal);
      const truth = holding(t, repo.id, literal);
      assert.deepEqual(truth.filter((p) => !found.includes(p)), [], `no file holding ${literal} is missed`);
      // And no more than the files with a chunk holding all its trigrams (or a handful, where the lookup stops early).
      const grams = literalTrigrams(literal)!.map((tri) => String.fromCharCode(tri >> 14, (tri >> 7) & 127, tri & 127));
      const withGrams = new Set(chunks.filter((c) => grams.every((g) => c.text.includes(g))).map((c) => c.path));
      assert.ok(found.length <= Math.max(8, withGrams.size), `${literal}: ${found.length} candidates, ${withGrams.size} files with its trigrams`);
      assert.ok(withGrams.size >= truth.length);
    }
    const files = new Set(chunks.map((c) => c.path)).size;
    assert.ok(candidates(t, repo.id, 'HTTPException').length * 4 < files, 'a lookup narrows');
    assert.deepEqual(candidates(t, repo.id, 'zzqqzz'), []);
  } finally {
    await t.close();
  }
});

test('edits wait in the backlog as candidates; a backlog a killed run left is filled by the next run', async () => {
  const folder = folderOf(40);
  const t = createTestEngine({ indexer: { writerThread: false } });
  try {
    const repo = await indexFolder(t, folder);
    assert.equal(backlogFrom(t), topChunk(t) + 1, 'no backlog after the run');
    assert.deepEqual(indexed(t, 'uniqueWord12Marker'), ['pkg5/file12.ts']);
    assert.equal(indexed(t, 'sharedLiteral').length, 40);

    // An edit: its new chunks wait in the backlog, and the readers take them as candidates.
    fs.appendFileSync(path.join(folder, 'pkg1/file1.ts'), '\nexport const wombatPending = 2;\n');
    fs.rmSync(path.join(folder, 'pkg2/file2.ts'));
    await t.engine.indexer.updatePaths(repo, ['pkg1/file1.ts', 'pkg2/file2.ts']);
    assert.ok(backlogFrom(t) <= topChunk(t), 'the edit is in the backlog');
    assert.deepEqual(indexed(t, 'wombatPending'), [], 'not in the trigram rows yet');
    assert.ok(candidates(t, repo.id, 'wombatPending').includes('pkg1/file1.ts'), 'grep candidates include the backlog');
    assert.ok(t.engine.filesStore.filesMentioning(repo.id, 'typescript', new Set(['wombatpending'])).some((f) => f.path === 'pkg1/file1.ts'));

    // As a killed run leaves it: everything from the start waits (an index migration 027 converted, too).
    t.engine.db.prepare('DELETE FROM chunk_trigrams').run();
    t.engine.db.prepare('UPDATE trigram_backlog SET from_id = 1').run();
    assert.deepEqual(candidates(t, repo.id, 'uniqueWord7Marker').length, 39, 'every file is a candidate meanwhile');

    // The next run (nothing else changed) fills it.
    await t.engine.indexer.indexRepository(t.engine.reposStore.get(repo.id)!);
    assert.equal(backlogFrom(t), topChunk(t) + 1, 'filled');
    assert.deepEqual(indexed(t, 'wombatPending'), ['pkg1/file1.ts']);
    assert.deepEqual(candidates(t, repo.id, 'uniqueWord7Marker'), ['pkg0/file7.ts']);
    assert.deepEqual(indexed(t, 'uniqueWord2Marker'), [], 'the deleted file is gone');
  } finally {
    await t.close();
  }
});

test('a chunk id SQLite gives again is a candidate until the next fill (the trigger moves the backlog back)', async () => {
  const folder = folderOf(20);
  const t = createTestEngine({ indexer: { writerThread: false } });
  try {
    const repo = await indexFolder(t, folder);
    const top = topChunk(t);
    const last = t.engine.db.prepare('SELECT f.path FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id = ?').pluck().get(top) as string;
    // The file with the largest chunk id goes, and a new file comes: SQLite gives it that id again.
    fs.rmSync(path.join(folder, last));
    await t.engine.indexer.updatePaths(repo, [last]);
    fs.writeFileSync(path.join(folder, 'pkg0/newcomer.ts'), 'export const platypusReturned = 1;\n');
    await t.engine.indexer.updatePaths(repo, ['pkg0/newcomer.ts']);
    assert.ok(topChunk(t) <= top, `an id was given again (${topChunk(t)} ≤ ${top})`);
    assert.deepEqual(candidates(t, repo.id, 'platypusReturned'), ['pkg0/newcomer.ts']);
  } finally {
    await t.close();
  }
});

test('many segments are merged into one, without the chunks deleted since', async () => {
  const folder = folderOf(60);
  const t = createTestEngine({ indexer: { writerThread: false } });
  try {
    const repo = await indexFolder(t, folder);
    fs.rmSync(path.join(folder, 'pkg3/file3.ts'));
    await t.engine.indexer.updatePaths(repo, ['pkg3/file3.ts']);
    // Filled again in small segments, as many edits' fills would leave them.
    t.engine.db.prepare('DELETE FROM chunk_trigrams').run();
    t.engine.db.prepare('UPDATE trigram_backlog SET from_id = 1').run();
    const backlog = new TrigramBacklog(t.engine.db);
    let fills = 0;
    while (!backlog.fillTrigram(3)) fills++;
    assert.ok(fills > 16, `${fills} segments written`);
    assert.equal(segments(t), 1, 'merged');
    const deleted = t.engine.db.prepare('SELECT count(*) FROM chunks').pluck().get() as number;
    const inRows = new Set(new TrigramIndex(t.engine.db).chunksWith(literalTrigrams('sha')![0]));
    assert.equal(inRows.size, deleted, 'every chunk holding "sha" once, the deleted file\'s not');
    assert.deepEqual(indexed(t, 'uniqueWord33Marker'), ['pkg5/file33.ts']);
    assert.equal(indexed(t, 'sharedLiteral').length, 59);
  } finally {
    await t.close();
  }
});

test('a literal without a trigram the index holds selects every file; trigrams with a non-ASCII letter are not looked up', async () => {
  const folder = tempDir('loupe-trigram-unicode-');
  fs.writeFileSync(path.join(folder, 'a.ts'), 'export const café = "naïve résumé";\n');
  fs.writeFileSync(path.join(folder, 'b.ts'), 'export const plain = 1;\n');
  const t = createTestEngine();
  try {
    const repo = await indexFolder(t, folder);
    assert.deepEqual(candidates(t, repo.id, 'ééé'), ['a.ts', 'b.ts'], 'no trigram: every file');
    assert.deepEqual(candidates(t, repo.id, 'café'), ['a.ts'], 'looked up by "caf"');
    assert.deepEqual(candidates(t, repo.id, 'RÉSUMÉ'), ['a.ts'], 'looked up by "sum"');
  } finally {
    await t.close();
  }
});

test('an editing session\'s backlog is filled once 2,000 chunks wait in it', async () => {
  const folder = folderOf(10);
  const t = createTestEngine({ indexer: { writerThread: false } });
  try {
    const repo = await indexFolder(t, folder);
    // A file of ~2,300 chunks (7,000 small functions, three to a chunk) arrives by an edit.
    fs.writeFileSync(path.join(folder, 'big.ts'), Array.from({ length: 7000 }, (_, i) => `export function f${i}(x: number) {\n  return x + ${i};\n}\n`).join('\n') + 'export const echidnaLarge = 1;\n');
    await t.engine.indexer.updatePaths(repo, ['big.ts']);
    assert.ok(topChunk(t) > 2000, `${topChunk(t)} chunks`);
    assert.equal(backlogFrom(t), topChunk(t) + 1, 'the edit filled the backlog');
    assert.deepEqual(indexed(t, 'echidnaLarge'), ['big.ts']);
  } finally {
    await t.close();
  }
});
