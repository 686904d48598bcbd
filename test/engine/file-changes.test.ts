import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, createTestEngine, indexFolder } from '../helpers/engine';

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
