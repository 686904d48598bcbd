import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { TrigramBacklog } from '../../server/engine/store/files-store';
import { FileParser } from '../../server/engine/indexer/parse-file';
import type { ParsedFile } from '../../server/engine/types';

/**
 * Migration 016: a large run's words index (chunks_fts, BM25) rows are added in bulk by `INSERT … SELECT` after
 * each batch of written files, not one by one beside each chunk. The index must hold exactly the tokens the
 * row-by-row path gives the same files (compared term by term, position by position, through fts5vocab), stay
 * consistent when a run is interrupted, and be completed by the next run.
 */

/** `n` small TypeScript files (camelCase names: their sub-words are indexed too) in `folder`, from `from`. */
function writeFiles(folder: string, from: number, n: number): void {
  for (let i = from; i < from + n; i++) {
    const dir = path.join(folder, `pkg${i % 7}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `fileName${i}.ts`),
      `import { sharedThing } from './fileName${(i + 1) % (from + n)}';\n/** Computes the uniqueWord${i}Marker of a value. */\n` +
      `export function uniqueWord${i}Marker(x: number): number {\n  return sharedThing + x * ${i}; // sharedLiteral\n}\n` +
      `export class HttpServer${i % 5} { listen() { return 'ÉtéCafé'; } }\n`);
  }
}

/** Every token of chunks_fts as (path, chunk seq, column, offset, term), sorted: equal sets mean equal indexes. */
function tokens(t: TestEngine): string[] {
  const db = t.engine.db;
  db.exec('DROP TABLE IF EXISTS temp.fts_instances; CREATE VIRTUAL TABLE temp.fts_instances USING fts5vocab(main, chunks_fts, instance)');
  const rows = db.prepare(
    `SELECT f.path, c.seq, v.col, v.offset, v.term FROM temp.fts_instances v JOIN chunks c ON c.id = v.doc JOIN files f ON f.id = c.file_id`,
  ).all() as { path: string; seq: number; col: string; offset: number; term: string }[];
  const orphans = db.prepare('SELECT count(*) AS n FROM temp.fts_instances v WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = v.doc)').get() as { n: number };
  assert.equal(orphans.n, 0, 'no row for a chunk that is gone');
  return rows.map((r) => `${r.path}#${r.seq}:${r.col}:${r.offset}:${r.term}`).sort();
}

/** Chunks without a chunks_fts row (docsize has one row per document). */
const missing = (t: TestEngine) => (t.engine.db.prepare('SELECT count(*) AS n FROM chunks WHERE id NOT IN (SELECT id FROM chunks_fts_docsize)').get() as { n: number }).n;
const backlog = (t: TestEngine) => t.engine.db.prepare('SELECT from_id AS fromId FROM fts_backlog').all();
const integrity = (t: TestEngine) => t.engine.db.prepare("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')").run();
const found = (t: TestEngine, query: string) => (t.engine.db.prepare(
  'SELECT DISTINCT f.path FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id WHERE chunks_fts MATCH ? ORDER BY f.path',
).all(query) as { path: string }[]).map((r) => r.path);

/** The folder indexed row by row (two runs under the bulk threshold of 256 files): the reference tokens. */
async function rowByRow(folder: string, first: number): Promise<string[]> {
  const staged = tempDir('loupe-fts-ref-');
  const t = createTestEngine({ indexer: { writerThread: false } });
  try {
    const files = fs.readdirSync(folder, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
      .map((e) => path.relative(folder, path.join(e.parentPath, e.name))).sort();
    const copy = (list: string[]) => { for (const f of list) fs.cpSync(path.join(folder, f), path.join(staged, f)); };
    copy(files.slice(0, first));
    const repo = await indexFolder(t, staged);
    copy(files.slice(first));
    await t.engine.indexer.indexRepository(t.engine.reposStore.get(repo.id)!);
    assert.deepEqual(backlog(t), [], 'runs under 256 files write their rows as before');
    assert.equal(missing(t), 0);
    return tokens(t);
  } finally {
    await t.close();
  }
}

test('a large run fills the words index in bulk: the same tokens as row by row, on both writers, no backlog left', async () => {
  const folder = tempDir('loupe-fts-');
  writeFiles(folder, 0, 300);
  const expected = await rowByRow(folder, 200);
  assert.ok(expected.length > 300 * 20, `a real index (${expected.length} tokens)`);
  for (const writerThread of [true, false]) {
    const t = createTestEngine({ indexer: { writerThread } });
    try {
      const repo = await indexFolder(t, folder);
      assert.equal(repo.state, 'ready');
      assert.deepEqual(backlog(t), [], `no backlog after the run (writerThread ${writerThread})`);
      assert.equal(missing(t), 0, 'every chunk has its row');
      integrity(t);
      assert.deepEqual(tokens(t), expected, 'bulk rows hold exactly the row-by-row tokens');
      assert.deepEqual(found(t, 'uniqueword123marker'), ['pkg4/fileName123.ts']);
      assert.equal(found(t, 'marker AND word AND unique AND name').length, 300, 'identifier sub-words, path words');
      assert.equal(found(t, 'etecafe').length, 300, 'diacritics removed as the tokenizer does');

      // An edit afterwards writes its rows at once (no backlog), and replaces the old ones.
      fs.appendFileSync(path.join(folder, 'pkg0/fileName0.ts'), '\nexport const quokkaAfterRun = 1;\n');
      await t.engine.indexer.updatePaths(repo, ['pkg0/fileName0.ts']);
      integrity(t);
      assert.equal(missing(t), 0);
      assert.deepEqual(found(t, 'quokkaafterrun'), ['pkg0/fileName0.ts']);
      assert.deepEqual(found(t, 'quokka AND after AND run'), ['pkg0/fileName0.ts']);
    } finally {
      await t.close();
      const f = path.join(folder, 'pkg0/fileName0.ts');
      fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('\nexport const quokkaAfterRun = 1;\n', ''));
    }
  }
});

test('a run interrupted mid-way leaves a consistent index; the next run completes the backlog', async () => {
  const folder = tempDir('loupe-fts-');
  writeFiles(folder, 0, 40);
  const t = createTestEngine({ indexer: { writerThread: true } });
  try {
    const repo = await indexFolder(t, folder);
    assert.deepEqual(backlog(t), []);
    writeFiles(folder, 40, 300);
    // Stopped once a hundred files are written (the writer thread's commits, as a killed process leaves them).
    const stop = new AbortController();
    await assert.rejects(t.engine.indexer.indexRepository(t.engine.reposStore.get(repo.id)!, (p) => {
      if (p.phase === 'parsing' && p.done >= 140) stop.abort();
    }, stop.signal), /cancelled/);
    // How many of the files were written before the lanes stopped depends on timing; what holds either way:
    assert.equal(backlog(t).length, 1, 'the backlog is left for the next run');
    integrity(t);

    await t.engine.indexer.indexRepository(t.engine.reposStore.get(repo.id)!);
    assert.deepEqual(backlog(t), [], 'completed');
    assert.equal(missing(t), 0);
    integrity(t);
    assert.deepEqual(tokens(t), await rowByRow(folder, 200), 'the same tokens as an index written row by row');
  } finally {
    await t.close();
  }
});

test('a backlog left behind: writes and deletions keep it exact, an edit is searchable at once, the next run fills the rest', async () => {
  const folder = tempDir('loupe-fts-');
  writeFiles(folder, 0, 40);
  const t = createTestEngine({ indexer: { writerThread: false } });
  try {
    const repo = await indexFolder(t, folder);
    // As a killed large run leaves it: chunks written after deferWordsIndex have no chunks_fts rows yet.
    new TrigramBacklog(t.engine.db).deferWordsIndex();
    writeFiles(folder, 40, 10);
    const parser = new FileParser(folder, { maxFileBytes: 1 << 20 });
    const parsed: ParsedFile[] = [];
    for (let i = 40; i < 50; i++) {
      const relPath = `pkg${i % 7}/fileName${i}.ts`;
      const st = fs.statSync(path.join(folder, relPath));
      const r = await parser.parse({ relPath, size: st.size, mtimeMs: Math.trunc(st.mtimeMs) });
      if (r.kind === 'parsed') parsed.push(r.file);
    }
    t.engine.filesStore.writeBatch(repo.id, parsed);
    assert.equal(missing(t), parsed.reduce((n, f) => n + f.chunks.length, 0), 'the backlog\'s chunks have no rows');
    assert.deepEqual(found(t, 'uniqueword45marker'), [], 'not searchable yet');
    integrity(t);

    // A backlog file deleted, one rewritten (its pending chunks go without a delete sent to chunks_fts), an old one too.
    fs.rmSync(path.join(folder, 'pkg6/fileName41.ts'));
    t.engine.filesStore.deletePaths(repo.id, ['pkg6/fileName41.ts']);
    t.engine.filesStore.writeBatch(repo.id, parsed.filter((f) => f.path === 'pkg0/fileName42.ts'));
    integrity(t);
    assert.deepEqual(found(t, 'uniqueword3marker'), ['pkg3/fileName3.ts']);

    // An edit while the backlog is there is searchable when it returns.
    fs.appendFileSync(path.join(folder, 'pkg1/fileName1.ts'), '\nexport const wombatPending = 2;\n');
    await t.engine.indexer.updatePaths(repo, ['pkg1/fileName1.ts']);
    assert.deepEqual(found(t, 'wombatpending'), ['pkg1/fileName1.ts']);
    integrity(t);

    // The next run (nothing else changed on disk) fills the backlog.
    await t.engine.indexer.indexRepository(t.engine.reposStore.get(repo.id)!);
    assert.deepEqual(backlog(t), [], 'filled');
    assert.equal(missing(t), 0);
    integrity(t);
    assert.deepEqual(found(t, 'uniqueword45marker'), ['pkg3/fileName45.ts']);
    assert.deepEqual(found(t, 'uniqueword41marker'), [], 'the deleted file is gone');
    assert.deepEqual(tokens(t), await rowByRow(folder, 30), 'the same tokens as an index written row by row');
  } finally {
    await t.close();
  }
});
