import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createTestEngine, indexFolder, tempDir, type TestEngine } from '../helpers/engine';
import { npmPackage } from '../helpers/real-code';

/** Counts calls to the main connection's file writes (none should happen: the writer thread has its own). */
function spyMainWrites(t: TestEngine): { calls: string[] } {
  const spy = { calls: [] as string[] };
  const files = t.engine.filesStore as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of ['writeBatch', 'touch', 'deletePaths', 'recordSkipped', 'setImportTarget', 'replaceImports']) {
    const original = files[name].bind(files);
    files[name] = (...args: unknown[]) => { spy.calls.push(name); return original(...args); };
  }
  return spy;
}

test('a cold index and an edit are written by the writer thread, never on the connection that answers requests', async () => {
  const folder = tempDir('loupe-writer-');
  for (let d = 0; d < 6; d++) {
    fs.mkdirSync(path.join(folder, `pkg${d}`));
    for (let f = 0; f < 60; f++) {
      const body = Array.from({ length: 120 }, (_, i) => `export function f${d}_${f}_${i}(x: number): number { return x * ${i} + ${f}; }`).join('\n');
      fs.writeFileSync(path.join(folder, `pkg${d}`, `m${f}.ts`), `import { f0_0_0 } from '../pkg0/m0';\n${body}\n`);
    }
  }
  fs.writeFileSync(path.join(folder, 'pkg5', '.gitignore'), 'm1*.ts\n');
  const t = createTestEngine();
  const spy = spyMainWrites(t);
  try {
    const repo = await indexFolder(t, folder);
    const paths = t.engine.filesStore.paths(repo.id);
    assert.ok(!paths.some((p) => /^pkg5\/m1\d?\.ts$/.test(p)), 'pkg5/m1.ts and m10–m19.ts are ignored by the nested .gitignore');
    assert.equal(paths.length, 6 * 60 - 11 + 1, 'every file but the 11 ignored ones, and the .gitignore');
    assert.equal(t.engine.reposStore.get(repo.id)!.filesDone, paths.length, 'the writer moved the progress with its commits');
    assert.deepEqual(t.engine.filesStore.imports(t.engine.filesStore.getByPath(repo.id, 'pkg3/m7.ts')!.id).map((i) => i.targetPath), ['pkg0/m0.ts']);

    // An edit: parsed and written by the writer, searchable at once.
    fs.writeFileSync(path.join(folder, 'pkg2', 'm3.ts'), 'export const zanzibarQuokka = 1;\n');
    fs.writeFileSync(path.join(folder, 'pkg2', 'new.ts'), "import { zanzibarQuokka } from './m3';\nexport const b = zanzibarQuokka;\n");
    await t.engine.indexer.updatePaths(repo, ['pkg2/m3.ts', 'pkg2/new.ts']);
    const hits = await t.engine.search.search(t.ownerId, { query: 'zanzibarQuokka', scanMode: 'grep_code', scope: 'code', limit: 10 });
    assert.deepEqual([...new Set(hits.results.map((h) => h.filePath))].sort(), ['pkg2/m3.ts', 'pkg2/new.ts']);
    assert.deepEqual(t.engine.filesStore.imports(t.engine.filesStore.getByPath(repo.id, 'pkg2/new.ts')!.id).map((i) => i.targetPath), ['pkg2/m3.ts']);
    assert.deepEqual(spy.calls, [], 'nothing written on the main connection');
  } finally {
    await t.close();
  }
});

/** A trigram query for a word: every trigram of it (detail='none' has no phrases). */
const trigrams = (w: string) => Array.from({ length: w.length - 2 }, (_, i) => `"${w.slice(i, i + 3)}"`).join(' AND ');

/** The index's content, row by row (ids and times aside), and what a few full-text and trigram queries find. */
function indexContent(t: TestEngine, repoId: string, words: string[]): unknown {
  const db = t.engine.db;
  const rows = (sql: string) => db.prepare(sql).all(repoId);
  return {
    files: rows('SELECT path, name, language, size, lines, hash, mtime_ms, description, generated, unit FROM files WHERE repo_id = ? ORDER BY path'),
    symbols: rows('SELECT f.path, s.name, s.kind, s.parent, s.start_line, s.end_line, s.exported, s.signature, s.doc FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.repo_id = ? ORDER BY f.path, s.start_line, s.name, s.kind'),
    imports: rows('SELECT f.path, i.specifier, i.kind, i.type_only, i.target_path, i.package, i.names, i.line FROM imports i JOIN files f ON f.id = i.file_id WHERE f.repo_id = ? ORDER BY f.path, i.line, i.specifier'),
    chunks: rows('SELECT f.path, c.seq, c.start_line, c.end_line, c.symbols, c.content FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.repo_id = ? ORDER BY f.path, c.seq'),
    fts: words.map((w) => db.prepare(`SELECT f.path, c.seq FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id
      WHERE chunks_fts MATCH ? AND f.repo_id = ? ORDER BY f.path, c.seq`).all(w, repoId)),
    trigram: words.map((w) => db.prepare(`SELECT f.path, c.seq FROM chunks_trigram JOIN chunks c ON c.id = chunks_trigram.rowid JOIN files f ON f.id = c.file_id
      WHERE chunks_trigram MATCH ? AND f.repo_id = ? ORDER BY f.path, c.seq`).all(trigrams(w), repoId)),
  };
}

test('a cold index of real code (phaser src) holds the event loop only briefly, and equals the index written on the main thread', async () => {
  const src = path.join(npmPackage('phaser@3.90.0'), 'src');
  const folder = tempDir('loupe-writer-phaser-');
  fs.cpSync(src, folder, { recursive: true });
  const words = ['sprite', 'getBounds', 'velocity', 'WebGLRenderer', 'tween', 'pointer'];

  const worker = createTestEngine();
  const spy = spyMainWrites(worker);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  let viaWorker: unknown;
  try {
    delay.enable();
    const repo = await indexFolder(worker, folder);
    delay.disable();
    assert.equal(repo.state, 'ready');
    viaWorker = indexContent(worker, repo.id, words);
    assert.deepEqual(spy.calls, [], 'nothing written on the main connection');
  } finally {
    delay.disable();
    await worker.close();
  }
  // Before the writer thread, write transactions held the loop for 0.1–1 s (FTS5 merges, commits). A
  // loose bound on the 99th percentile (this test runs niced on a shared machine, where the longest
  // delay is mostly time off the core): the thread that answers is rarely held.
  const p99 = delay.percentile(99) / 1e6;
  assert.ok(p99 < 200, `event-loop delay during a cold index of phaser: p99 ${p99.toFixed(0)} ms, max ${(delay.max / 1e6).toFixed(0)} ms`);

  const main = createTestEngine({ indexer: { writerThread: false } });
  try {
    const repo = await indexFolder(main, folder);
    assert.deepEqual(indexContent(main, repo.id, words), viaWorker, 'the same rows, the same search answers');
  } finally {
    await main.close();
  }
});
