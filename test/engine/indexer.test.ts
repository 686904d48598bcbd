import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, createTestEngine, indexFolder } from '../helpers/engine';

test('indexes a TypeScript workspace with tsconfig paths, honouring .gitignore and skipping binaries', async () => {
  const folder = copyFixture('ts-paths');
  fs.mkdirSync(path.join(folder, 'build'));
  fs.writeFileSync(path.join(folder, 'build', 'out.js'), 'module.exports = 1;\n');
  fs.writeFileSync(path.join(folder, 'debug.log'), 'noise\n');
  const t = createTestEngine();
  try {
    const repo = await indexFolder(t, folder);
    assert.equal(repo.state, 'ready');
    const paths = t.engine.filesStore.paths(repo.id);
    assert.ok(paths.includes('src/app/main.ts'));
    assert.ok(!paths.includes('build/out.js'), 'gitignored folder is skipped');
    assert.ok(!paths.includes('debug.log'), 'gitignored pattern is skipped');
    assert.ok(!paths.includes('src/logo.bin'), 'binary file is skipped');

    const main = t.engine.filesStore.getByPath(repo.id, 'src/app/main.ts')!;
    const edges = t.engine.filesStore.imports(main.id).map((i) => [i.specifier, i.targetPath ?? i.packageName, i.typeOnly]);
    assert.deepEqual(edges, [
      ['./area.js', 'src/app/area.ts', false],
      ['../lib/index.js', 'src/lib/index.ts', false],
      ['@types-local', 'src/types/index.ts', true],
      ['lodash', 'lodash', false],
      ['node:fs', 'node:fs', false],
    ]);
    const index = t.engine.filesStore.getByPath(repo.id, 'src/lib/index.ts')!;
    assert.deepEqual(t.engine.filesStore.imports(index.id).map((i) => [i.kind, i.targetPath]), [
      ['export-all', 'src/lib/math.ts'],
      ['export', 'src/lib/strings.ts'],
    ]);
    const legacy = t.engine.filesStore.getByPath(repo.id, 'src/app/legacy.cjs')!;
    assert.deepEqual(t.engine.filesStore.imports(legacy.id).map((i) => [i.kind, i.targetPath]), [
      ['require', 'src/lib/strings.ts'],
      ['require', 'src/lib/math.ts'],
    ]);
    const math = t.engine.filesStore.getByPath(repo.id, 'src/lib/math.ts')!;
    const symbols = t.engine.filesStore.symbols(math.id);
    assert.deepEqual(symbols.map((s) => [s.name, s.kind, s.exported, s.startLine]), [
      ['add', 'function', true, 4],
      ['multiply', 'function', true, 9],
      ['PI_ROUGH', 'constant', true, 11],
    ]);
    assert.equal(symbols[0].doc, 'Adds two numbers.');
    assert.equal(t.engine.filesStore.content(math.id), fs.readFileSync(path.join(folder, 'src/lib/math.ts'), 'utf8'));
  } finally {
    await t.close();
  }
});

test('re-indexing touches only what changed, and links imports to files added later', async () => {
  const folder = copyFixture('ts-paths');
  const t = createTestEngine();
  try {
    const repo = await indexFolder(t, folder);
    const indexed = t.engine.filesStore.paths(repo.id).length;
    const again = await t.engine.indexer.indexRepository(repo);
    assert.deepEqual([again.added, again.changed, again.removed], [0, 0, 0]);
    // A restart's summary: every indexed file is unchanged (found by size and mtime, never read).
    assert.equal(again.unchanged, indexed);

    fs.writeFileSync(path.join(folder, 'src/app/extra.ts'), "import { helper } from './helper.js';\nexport const x = helper();\n");
    fs.rmSync(path.join(folder, 'src/app/legacy.cjs'));
    fs.appendFileSync(path.join(folder, 'src/lib/math.ts'), '\nexport const E_ROUGH = 2.72;\n');
    const changed = await t.engine.indexer.indexRepository(repo);
    assert.deepEqual([changed.added, changed.changed, changed.removed], [1, 1, 1]);
    assert.equal(changed.unchanged, indexed - 2);
    const extra = t.engine.filesStore.getByPath(repo.id, 'src/app/extra.ts')!;
    assert.equal(t.engine.filesStore.imports(extra.id)[0].targetPath, null, 'helper.ts does not exist yet');

    fs.writeFileSync(path.join(folder, 'src/app/helper.ts'), 'export const helper = () => 1;\n');
    await t.engine.indexer.updatePaths(repo, ['src/app/helper.ts']);
    assert.equal(t.engine.filesStore.imports(extra.id)[0].targetPath, 'src/app/helper.ts');
  } finally {
    await t.close();
  }
});
