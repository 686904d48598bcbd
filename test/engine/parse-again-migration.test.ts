import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createTestEngine, indexFolder, tempDir } from '../helpers/engine';
import { copyOf, npmPackage } from '../helpers/real-code';

/**
 * An index written by the parsers before migration 22 (express 4.21.2: its Router methods were not symbols,
 * every file's description was the license banner) is parsed again at the next index run after it opens,
 * though no file changed on disk; a run after that reads nothing again.
 */
test('migration 22: an index made by the old parsers is parsed again at the next run, once', async () => {
  const folder = copyOf(npmPackage('express@4.21.2'), 'loupe-parse-again-');
  const first = createTestEngine();
  const copy = tempDir('loupe-parse-again-data-');
  let repoId: string;
  try {
    repoId = (await indexFolder(first, folder)).id;
    await first.engine.db.backup(path.join(copy, 'loupe.db'));
  } finally {
    await first.close();
  }
  // What the old parsers left: no methods of Layer, a banner for a description, and the version before 22.
  const old = new Database(path.join(copy, 'loupe.db'));
  const layer = old.prepare('SELECT id FROM files WHERE repo_id = ? AND path = ?').get(repoId, 'lib/router/layer.js') as { id: number };
  old.prepare("DELETE FROM symbols WHERE file_id = ? AND parent = 'Layer'").run(layer.id);
  old.prepare("UPDATE files SET description = '! express Copyright(c) 2009-2013 TJ Holowaychuk' WHERE repo_id = ?").run(repoId);
  old.pragma('user_version = 21');
  old.close();

  const t = createTestEngine({ dataDir: copy });
  try {
    const repo = t.engine.reposStore.get(repoId)!;
    const files = t.engine.filesStore;
    const indexed = files.paths(repoId).length;
    const run = await t.engine.indexer.indexRepository(repo);
    assert.equal(run.changed, indexed, 'every file parsed again');
    const layerNow = files.getByPath(repoId, 'lib/router/layer.js')!;
    assert.ok(files.symbols(layerNow.id).some((s) => s.parent === 'Layer' && s.name === 'match'));
    assert.ok(!files.getByPath(repoId, 'lib/router/index.js')!.description?.includes('Copyright'));
    const again = await t.engine.indexer.indexRepository(t.engine.reposStore.get(repoId)!);
    assert.deepEqual([again.changed, again.unchanged], [0, indexed]);
  } finally {
    await t.close();
  }
});
