import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { TrigramBacklog } from '../../server/engine/store/files-store';
import { SqliteSearchStore } from '../../server/engine/store/search-store';

/**
 * Migration 015: a large run's trigram rows are added in bulk after its files are written (trigram_backlog),
 * not by the trigger row by row. The trigram index must then hold exactly the chunks' text (FTS5's
 * integrity-check against its content table), greps must find the backlog's files while it is there, and a
 * backlog left behind (a killed run) is filled by the next run.
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

/** FTS5's own check of the external-content trigram table against `chunks` (throws on any difference). */
function trigramMatchesChunks(t: TestEngine): boolean {
  try {
    t.engine.db.prepare("INSERT INTO chunks_trigram(chunks_trigram, rank) VALUES ('integrity-check', 1)").run();
    return true;
  } catch {
    return false;
  }
}

const trigramQuery = (w: string) => Array.from({ length: w.length - 2 }, (_, i) => `"${w.slice(i, i + 3)}"`).join(' AND ');
const matching = (t: TestEngine, w: string) => (t.engine.db.prepare(
  'SELECT f.path FROM chunks_trigram JOIN chunks c ON c.id = chunks_trigram.rowid JOIN files f ON f.id = c.file_id WHERE chunks_trigram MATCH ? ORDER BY f.path',
).all(trigramQuery(w)) as { path: string }[]).map((r) => r.path);
const backlog = (t: TestEngine) => t.engine.db.prepare('SELECT from_id AS fromId FROM trigram_backlog').all();

test('a large run fills the trigram index in bulk: exactly the chunks, no backlog left, found by trigram queries', async () => {
  const folder = folderOf(300);
  for (const writerThread of [true, false]) {
    const t = createTestEngine({ indexer: { writerThread } });
    try {
      const repo = await indexFolder(t, folder);
      assert.equal(repo.state, 'ready');
      assert.deepEqual(backlog(t), [], `no backlog after the run (writerThread ${writerThread})`);
      assert.ok(trigramMatchesChunks(t), 'the trigram index holds exactly the chunks');
      assert.deepEqual(matching(t, 'uniqueword123marker'), ['pkg4/file123.ts']);
      assert.equal(matching(t, 'sharedliteral').length, 300);

      // An edit afterwards goes through the trigger again (no backlog): still exact.
      fs.appendFileSync(path.join(folder, 'pkg0/file0.ts'), '\nexport const quokkaAfterRun = 1;\n');
      await t.engine.indexer.updatePaths(repo, ['pkg0/file0.ts']);
      assert.ok(trigramMatchesChunks(t), 'exact after an edit');
      assert.deepEqual(matching(t, 'quokkaafterrun'), ['pkg0/file0.ts']);
    } finally {
      await t.close();
      fs.writeFileSync(path.join(folder, 'pkg0/file0.ts'), fs.readFileSync(path.join(folder, 'pkg0/file0.ts'), 'utf8').replace(/\nexport const quokkaAfterRun = 1;\n/, ''));
    }
  }
});

test('a backlog left by a killed run: greps still find its files, edits and deletions keep it exact, the next run fills it', async () => {
  const folder = folderOf(40);
  const t = createTestEngine({ indexer: { writerThread: false } });
  try {
    const repo = await indexFolder(t, folder);
    assert.deepEqual(backlog(t), [], 'a small run keeps the trigger');
    assert.ok(trigramMatchesChunks(t));

    // As a killed large run leaves it: chunks written after deferTrigram have no trigram rows yet.
    new TrigramBacklog(t.engine.db).deferTrigram();
    fs.appendFileSync(path.join(folder, 'pkg1/file1.ts'), '\nexport const wombatPending = 2;\n');
    fs.rmSync(path.join(folder, 'pkg2/file2.ts'));
    await t.engine.indexer.updatePaths(repo, ['pkg1/file1.ts', 'pkg2/file2.ts']);
    assert.equal(backlog(t).length, 1);
    assert.ok(!trigramMatchesChunks(t), 'the check sees the backlog (the control: a missing row is noticed)');
    assert.deepEqual(matching(t, 'wombatpending'), [], 'not in the trigram index yet');

    // The readers of the trigram index take the backlog's chunks as candidates.
    const search = new SqliteSearchStore(t.engine.db);
    const fileId = t.engine.filesStore.getByPath(repo.id, 'pkg1/file1.ts')!.id;
    assert.ok(search.trigramFiles([repo.id], ['wombatPending']).includes(fileId), 'grep candidates include the backlog');
    assert.ok(t.engine.filesStore.filesMentioning(repo.id, 'typescript', new Set(['wombatpending'])).some((f) => f.path === 'pkg1/file1.ts'));

    // The file changed again while the backlog is there: its pending chunks are replaced without a 'delete' for them.
    fs.appendFileSync(path.join(folder, 'pkg1/file1.ts'), '\nexport const wombatAgain = 3;\n');
    await t.engine.indexer.updatePaths(repo, ['pkg1/file1.ts']);

    // The next run (nothing else changed) fills the backlog.
    await t.engine.indexer.indexRepository(t.engine.reposStore.get(repo.id)!);
    assert.deepEqual(backlog(t), [], 'filled');
    assert.ok(trigramMatchesChunks(t), 'exact once filled');
    assert.deepEqual(matching(t, 'wombatpending'), ['pkg1/file1.ts']);
    assert.deepEqual(matching(t, 'wombatagain'), ['pkg1/file1.ts']);
    assert.deepEqual(matching(t, 'uniqueword2marker'), [], 'the deleted file is gone');
  } finally {
    await t.close();
  }
});
