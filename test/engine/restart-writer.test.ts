import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import workerThreads from 'node:worker_threads';
import { createTestEngine, indexFolder, tempDir } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';

test('a no-change restart keeps one index writer thread for the whole run, derived indexes included', async () => {
  const folder = tempDir('loupe-restart-writer-');
  fs.cpSync(npmPackage('hono@4.13.19'), folder, { recursive: true });
  const first = createTestEngine();
  try {
    await indexFolder(first, folder);
  } finally {
    await first.close();
  }
  const wt = workerThreads as unknown as { Worker: typeof workerThreads.Worker };
  const Original = wt.Worker;
  const writers: workerThreads.Worker[] = [];
  wt.Worker = class extends Original {
    constructor(file: string | URL, options?: workerThreads.WorkerOptions) {
      super(file, options);
      if (String(file).includes('write-worker')) writers.push(this);
    }
  };
  const again = createTestEngine({ dataDir: first.dataDir });
  try {
    const finished = new Promise<{ added: number; changed: number; removed: number }>((resolve) => {
      again.engine.queue.once('finished', ({ result }) => resolve(result));
    });
    const repo = await indexFolder(again, folder);
    const result = await finished;
    assert.equal(repo.state, 'ready');
    assert.equal(result.added + result.changed + result.removed, 0, 'nothing changed');
    assert.equal(writers.length, 1, `one writer thread for the walk and the derived indexes' counts (${writers.length} started)`);
    assert.equal(writers[0].threadId, -1, 'and it is gone when the run ends');
  } finally {
    wt.Worker = Original;
    await again.close();
  }
});
