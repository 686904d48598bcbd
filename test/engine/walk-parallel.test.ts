import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import workerThreads from 'node:worker_threads';
import { walk, walkParallel } from '../../server/engine/indexer/walk';
import { createTestEngine, indexFolder, tempDir } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';

/** Real code (hono) with what the walk must honour added: ignore files at two levels, links in and out, an excluded folder. */
function treeWithRules(): { folder: string; excluded: string } {
  const folder = tempDir('loupe-walk-');
  fs.cpSync(npmPackage('hono@4.13.19'), folder, { recursive: true });
  fs.writeFileSync(path.join(folder, '.gitignore'), 'dist/cjs/\n*.d.ts\n');
  fs.writeFileSync(path.join(folder, 'dist', '.loupeignore'), 'helper/\n!types.js\n');
  fs.mkdirSync(path.join(folder, 'node_modules', 'x'), { recursive: true });
  fs.writeFileSync(path.join(folder, 'node_modules', 'x', 'index.js'), 'module.exports = 1;\n');
  fs.symlinkSync(path.join(folder, 'package.json'), path.join(folder, 'linked.json')); // a linked file inside: listed
  fs.symlinkSync(path.join(folder, 'dist'), path.join(folder, 'linked-dir')); // a linked folder: not entered
  const outside = tempDir('loupe-walk-outside-');
  fs.writeFileSync(path.join(outside, 'secret.ts'), 'export const s = 1;\n');
  fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(folder, 'outside.ts')); // out of the root: never listed
  fs.symlinkSync(path.join(folder, 'missing.ts'), path.join(folder, 'dangling.ts'));
  const excluded = path.join(folder, 'dist', 'adapter');
  return { folder, excluded };
}

test('the parallel walk lists exactly what the one-by-one walk lists, in the same order', async () => {
  const { folder, excluded } = treeWithRules();
  const options = { ignoreGlobs: ['*.md'], excludeDirs: [excluded] };
  const serial = walk(folder, options);
  const parallel = await walkParallel(folder, options);
  assert.ok(serial.length > 100, `${serial.length} files listed`);
  assert.deepEqual(parallel, serial);
  const paths = new Set(parallel.map((e) => e.relPath));
  assert.ok(paths.has('linked.json'), 'a linked file inside the root is listed');
  for (const p of paths) {
    assert.ok(!p.startsWith('dist/cjs/') && !p.endsWith('.d.ts') && !p.endsWith('.md'), `${p} is ignored`);
    assert.ok(!p.startsWith('dist/helper/') && !p.startsWith('dist/adapter/') && !p.startsWith('node_modules/') && !p.startsWith('linked-dir/'), `${p} is not walked`);
    assert.ok(p !== 'outside.ts' && p !== 'dangling.ts', `${p} leads outside the root or nowhere`);
  }
  const own = fs.statSync(path.join(folder, 'package.json'));
  assert.deepEqual(parallel.find((e) => e.relPath === 'package.json'), { relPath: 'package.json', size: own.size, mtimeMs: Math.trunc(own.mtimeMs) });
});

test('the parallel walk keeps at most its bound of file-system calls in flight (libuv\'s pool is the whole process\'s)', async () => {
  const folder = tempDir('loupe-walk-bound-');
  fs.cpSync(npmPackage('hono@4.13.19'), folder, { recursive: true });
  const promises = fs.promises as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const originals = { stat: promises.stat, readdir: promises.readdir };
  let inFlight = 0;
  let most = 0;
  let calls = 0;
  const counted = (original: (...args: unknown[]) => Promise<unknown>) => async (...args: unknown[]) => {
    calls++;
    most = Math.max(most, ++inFlight);
    try { return await original.apply(fs.promises, args); } finally { inFlight--; }
  };
  promises.stat = counted(originals.stat);
  promises.readdir = counted(originals.readdir);
  let entries;
  try {
    entries = await walkParallel(folder, {}, 4);
  } finally {
    Object.assign(promises, originals);
  }
  assert.ok(entries.length > 300);
  assert.ok(calls >= entries.length, `${calls} calls for ${entries.length} files`);
  assert.equal(most, 4, `at most 4 calls at once (saw ${most})`);
});

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
