import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, createTestEngine, indexFolder } from '../helpers/engine';
import { copyOf, npmPackage } from '../helpers/real-code';

test('applyChanges: files are re-indexed at once; a folder event or a pending run queues the repository instead', async () => {
  const t = createTestEngine();
  try {
    const folder = copyFixture('ts-paths');
    const repo = await indexFolder(t, folder);
    const { engine } = t;

    fs.writeFileSync(path.join(folder, 'src/lib/fresh.ts'), 'export const fresh = 1;\n');
    const edited = 'export const E_ROUGH = 2.72;\n';
    // Two batches at once (an edit with unsaved text and a new file on disk) run one after the other.
    const [a, b] = await Promise.all([
      engine.ops.indexing.applyChanges(repo.id, ['src/lib/fresh.ts']),
      engine.ops.indexing.applyChanges(repo.id, ['src/lib/math.ts'], new Map([['src/lib/math.ts', edited]])),
    ]);
    assert.equal(a.kind === 'updated' && a.result.added, 1);
    assert.equal(b.kind === 'updated' && b.result.changed, 1);
    assert.ok(engine.filesStore.getByPath(repo.id, 'src/lib/fresh.ts'));

    // A new folder: the incremental walk finds what is inside it.
    fs.mkdirSync(path.join(folder, 'src/extra'));
    fs.writeFileSync(path.join(folder, 'src/extra/inner.ts'), 'export const inner = 2;\n');
    assert.deepEqual(await engine.ops.indexing.applyChanges(repo.id, ['src/extra']), { kind: 'queued' });
    await engine.queue.idle();
    assert.ok(engine.filesStore.getByPath(repo.id, 'src/extra/inner.ts'));

    // A repository whose run has not happened yet is queued, not updated file by file.
    engine.queue.pause();
    const other = engine.repos.registerLocalFolder(t.ownerId, copyFixture('radius-graph'));
    assert.deepEqual(await engine.ops.indexing.applyChanges(other.id, ['anything.ts']), { kind: 'queued' });
    engine.queue.resume();
    await engine.queue.idle();
    assert.equal(engine.reposStore.get(other.id)!.state, 'ready');

    assert.deepEqual(await engine.ops.indexing.applyChanges('00000000-0000-4000-8000-000000000000', ['x.ts']), { kind: 'unknown' });
  } finally {
    await t.close();
  }
});

test('applyChanges: an edited .gitignore takes files out of the index and back, without a restart (express)', async () => {
  const t = createTestEngine();
  const folder = copyOf(npmPackage('express@4.21.2'), 'loupe-express-');
  try {
    const repo = await indexFolder(t, folder);
    const router = () => t.engine.filesStore.paths(repo.id).filter((p) => p.startsWith('lib/router/')).sort();
    assert.deepEqual(router(), ['lib/router/index.js', 'lib/router/layer.js', 'lib/router/route.js']);
    // Before, the edit indexed the .gitignore itself and nothing else: lib/router/ stayed until a restart.
    fs.writeFileSync(path.join(folder, '.gitignore'), 'lib/router/\n');
    assert.deepEqual(await t.engine.ops.indexing.applyChanges(repo.id, ['.gitignore']), { kind: 'queued' });
    await t.engine.queue.idle();
    assert.deepEqual(router(), []);
    assert.ok(t.engine.filesStore.getByPath(repo.id, '.gitignore'));
    fs.writeFileSync(path.join(folder, '.gitignore'), '# nothing ignored\n');
    await t.engine.ops.indexing.applyChanges(repo.id, ['.gitignore']);
    await t.engine.queue.idle();
    assert.deepEqual(router(), ['lib/router/index.js', 'lib/router/layer.js', 'lib/router/route.js']);
  } finally {
    await t.close();
    fs.rmSync(folder, { recursive: true, force: true });
  }
});
