import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import workerThreads from 'node:worker_threads';
import { createTestEngine, indexFolder, tempDir } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';
import { threadNice } from '../helpers/thread-nice';

/** This process's thread ids (Linux), but libuv's pool (started on another thread's first asynchronous call, at any time). */
function threadIds(): Set<number> {
  const named = (tid: string) => { try { return fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim(); } catch { return ''; } };
  return new Set(fs.readdirSync('/proc/self/task').filter((tid) => named(tid) !== 'libuv-worker').map(Number));
}

test('a run\'s index writer works ten nice levels below the main thread; the writer an edit starts after the run works at the main thread\'s (Linux)', async () => {
  const linux = process.platform === 'linux';
  const main = os.getPriority();
  const folder = tempDir('loupe-writer-priority-');
  fs.cpSync(npmPackage('hono@4.13.19'), folder, { recursive: true });
  // Each index writer's OS thread: `new Worker` starts it before the constructor returns, so the thread ids
  // that appear across the constructor are its own.
  const wt = workerThreads as unknown as { Worker: typeof workerThreads.Worker };
  const Original = wt.Worker;
  const writers: { tid: number; nices: Set<number> }[] = [];
  wt.Worker = class extends Original {
    constructor(file: string | URL, options?: workerThreads.WorkerOptions) {
      const before = linux ? threadIds() : new Set<number>();
      super(file, options);
      if (!linux || !String(file).includes('write-worker')) return;
      const started = [...threadIds()].filter((tid) => !before.has(tid));
      assert.equal(started.length, 1, `one thread started with the writer (${started.join(', ')})`);
      writers.push({ tid: started[0], nices: new Set() });
    }
  };
  const watch = linux ? setInterval(() => {
    for (const w of writers) { const nice = threadNice(w.tid); if (nice !== null) w.nices.add(nice); }
  }, 2) : undefined;
  const t = createTestEngine();
  try {
    const repo = await indexFolder(t, folder);
    assert.equal(repo.state, 'ready');
    const runWriters = writers.length;
    if (linux) {
      assert.ok(runWriters >= 1, 'the run wrote in a writer thread');
      const below = Math.min(19, main + 10);
      assert.ok(writers[0].nices.has(below), `the run's writer at nice ${below} (seen: ${[...writers[0].nices].join(', ')})`);
      assert.equal(threadNice(writers[0].tid), null, 'and it is gone when the run ends');
    }

    // A save after the run: a writer of its own, at the main thread's priority, as long as it lives.
    const file = path.join(folder, 'dist', 'index.js');
    fs.appendFileSync(file, '\nexport const quokkaWriterPriority = 1;\n');
    await t.engine.indexer.updatePaths(repo, ['dist/index.js']);
    if (linux) {
      assert.equal(writers.length, runWriters + 1, 'the edit started a writer');
      const edit = writers[writers.length - 1];
      assert.equal(threadNice(edit.tid), main, 'the edit\'s writer works at the main thread\'s priority');
      assert.deepEqual([...edit.nices].filter((n) => n !== main), [], 'and never lower');
    }
    const hits = await t.engine.search.search(t.ownerId, { query: 'quokkaWriterPriority', scanMode: 'grep_code', scope: 'code', limit: 10 });
    assert.deepEqual(hits.results.map((h) => h.filePath), ['dist/index.js'], 'the edit is searchable');
  } finally {
    clearInterval(watch);
    wt.Worker = Original;
    await t.close();
  }
  assert.equal(os.getPriority(), main, 'the main thread keeps its priority');
});
