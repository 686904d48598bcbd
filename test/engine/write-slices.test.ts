import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestEngine, indexFolder, tempDir } from '../helpers/engine';

test('a cold index writes in short transactions with the event loop turning between every two, and a nested .gitignore still applies', async () => {
  const folder = tempDir('loupe-slices-');
  for (let d = 0; d < 6; d++) {
    fs.mkdirSync(path.join(folder, `pkg${d}`));
    for (let f = 0; f < 60; f++) {
      // Files of many lines (several chunks each), so a transaction of all of them would be long.
      const body = Array.from({ length: 120 }, (_, i) => `export function f${d}_${f}_${i}(x: number): number { return x * ${i} + ${f}; }`).join('\n');
      fs.writeFileSync(path.join(folder, `pkg${d}`, `m${f}.ts`), `${body}\n`);
    }
  }
  fs.writeFileSync(path.join(folder, 'pkg5', '.gitignore'), 'm1*.ts\n');
  const t = createTestEngine();
  const files = t.engine.filesStore as unknown as { writeBatch: (repoId: string, batch: unknown[]) => number[] };
  const writeBatch = files.writeBatch.bind(files);
  let turns = 0;
  let ticking = true;
  const tick = () => { turns++; if (ticking) setImmediate(tick); };
  setImmediate(tick);
  const writes: { size: number; turnsBefore: number }[] = [];
  files.writeBatch = (repoId, batch) => {
    writes.push({ size: batch.length, turnsBefore: turns });
    return writeBatch(repoId, batch);
  };
  try {
    const repo = await indexFolder(t, folder);
    const paths = t.engine.filesStore.paths(repo.id);
    assert.ok(!paths.some((p) => /^pkg5\/m1\d?\.ts$/.test(p)), 'pkg5/m1.ts and m10–m19.ts are ignored by the nested .gitignore');
    assert.ok(paths.includes('pkg4/m10.ts') && paths.includes('pkg5/m20.ts'));
    assert.equal(writes.reduce((n, w) => n + w.size, 0), paths.length, 'every file written once');
    // One transaction of up to 256 files held the thread for hundreds of ms; slices of ~8 ms are many.
    assert.ok(writes.length >= 4, `${writes.length} write transactions of ${writes.map((w) => w.size).join(', ')} files`);
    for (let i = 1; i < writes.length; i++) {
      assert.ok(writes[i].turnsBefore > writes[i - 1].turnsBefore, `the event loop turned between write ${i - 1} and write ${i}`);
    }
  } finally {
    ticking = false;
    await t.close();
  }
});
