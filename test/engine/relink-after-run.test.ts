import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir } from '../helpers/engine';
import { ModuleResolver } from '../../server/engine/indexer/resolver';

/**
 * After a run, imports are resolved again only where the run did not just resolve them: a cold run parsed every
 * file against the disk as it is (its skipped files have no imports), yet a skipped binary once made payload's
 * every script import be resolved a second time in the index writer (3.5 s). Files the run did not parse still
 * have their unresolved imports resolved again when a file they name appears.
 * The writer runs on this thread here (writerThread: false) and the parse in child processes, so the resolutions
 * counted are the relink's own.
 */
test('a cold run resolves none of its imports again; a later run resolves the unparsed files\' imports that a new file answers', async () => {
  const folder = tempDir('loupe-relink-');
  fs.writeFileSync(path.join(folder, 'tsconfig.json'), '{ "compilerOptions": { "module": "nodenext" } }\n');
  fs.writeFileSync(path.join(folder, 'a.ts'), "import { b } from './b.js';\nimport { later } from './later.js';\nimport x from 'not-installed';\nexport const a = b + later + x;\n");
  fs.writeFileSync(path.join(folder, 'b.ts'), 'export const b = 1;\n');
  fs.writeFileSync(path.join(folder, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 1, 2, 3]));
  const resolve = ModuleResolver.prototype.resolve;
  let resolved = 0;
  ModuleResolver.prototype.resolve = function (...args: Parameters<typeof resolve>) {
    resolved++;
    return resolve.apply(this, args);
  };
  const t = createTestEngine({ indexer: { writerThread: false } });
  try {
    const repo = await indexFolder(t, folder);
    assert.equal(repo.state, 'ready');
    assert.ok(t.engine.db.prepare("SELECT 1 FROM skipped_files WHERE path = 'logo.png'").get(), 'the binary file was skipped');
    assert.equal(resolved, 0, 'no import resolved again after a cold run');
    const target = () => t.engine.db.prepare("SELECT i.target_path FROM imports i JOIN files f ON f.id = i.file_id WHERE f.path = 'a.ts' AND i.specifier = './later.js'").pluck().get();
    assert.equal(target(), null);

    // A file a.ts names appears; a.ts is not parsed again, its import is resolved again.
    fs.writeFileSync(path.join(folder, 'later.ts'), 'export const later = 2;\n');
    await t.engine.indexer.indexRepository(t.engine.reposStore.get(repo.id)!);
    assert.ok(resolved > 0, 'the unparsed file\'s stale imports were resolved again');
    assert.equal(target(), 'later.ts');
  } finally {
    ModuleResolver.prototype.resolve = resolve;
    await t.close();
  }
});
