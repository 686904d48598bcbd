import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createTestEngine, indexFolder, tempDir } from '../helpers/engine';
import { copyOf, debianPackage, npmPackage, within } from '../helpers/real-code';

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

/**
 * Migration 23: Rust, C, C++ and script files (inline modules' paths and paths outside `use`, `** ` comments, the
 * compiler's resolution mode and `#name` imports) are parsed again at the next run after it opens, and no other file:
 * regex-syntax 0.6.27 (Debian; its Cargo.toml and README stay) beside chalk 5.3.0 (npm; its readme and package.json
 * stay), whose source/index.js imports `#ansi-styles`.
 */
test('migration 23: Rust, C, C++ and script files are parsed again, nothing else', async () => {
  const rust = copyOf(within(debianPackage('librust-regex-syntax-dev', '0.6.27-1'), 'usr/share/cargo/registry/regex-syntax-*'), 'loupe-parse-again-rs-');
  const chalk = copyOf(npmPackage('chalk@5.3.0'), 'loupe-parse-again-js-');
  const first = createTestEngine();
  const copy = tempDir('loupe-parse-again-data-');
  let ids: string[];
  try {
    ids = [(await indexFolder(first, rust)).id, (await indexFolder(first, chalk)).id];
    await first.engine.db.backup(path.join(copy, 'loupe.db'));
  } finally {
    await first.close();
  }
  const old = new Database(path.join(copy, 'loupe.db'));
  old.pragma('user_version = 22');
  old.close();
  const t = createTestEngine({ dataDir: copy });
  try {
    const files = t.engine.filesStore;
    const runs = [];
    for (const id of ids) runs.push(await t.engine.indexer.indexRepository(t.engine.reposStore.get(id)!));
    assert.equal(runs[0].changed, files.filesOfLanguages(ids[0], ['rust']).length);
    assert.equal(runs[1].changed, files.filesOfLanguages(ids[1], ['javascript', 'typescript']).length);
    for (const run of runs) assert.ok(run.unchanged >= 2, 'manifests and readmes are not read again');
    const index = files.getByPath(ids[1], 'source/index.js')!;
    assert.ok(files.imports(index.id).some((i) => i.specifier === '#ansi-styles' && i.targetPath?.startsWith('source/vendor/ansi-styles/')));
  } finally {
    await t.close();
  }
});
