import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { tempDir } from '../helpers/engine';
import { startCli, waitFor } from '../helpers/cli';

/** A generated TypeScript workspace big enough that indexing is still running when we kill it. */
function generateWorkspace(files: number): string {
  const root = path.join(tempDir('loupe-kill-'), 'ws');
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, 'src', `m${i % 40}`);
    fs.mkdirSync(dir, { recursive: true });
    const dep = i > 0 ? `import { f${i - 1} } from '../m${(i - 1) % 40}/file${i - 1}';\n` : '';
    const body = Array.from({ length: 30 }, (_, j) => `  const v${j} = ${i} * ${j}; // line ${j} of a generated file`).join('\n');
    fs.writeFileSync(path.join(dir, `file${i}.ts`), `${dep}/** Function number ${i}. */\nexport function f${i}(x: number): number {\n${body}\n  return x + ${i};\n}\n`);
  }
  return root;
}

/** Everything the index says about a repository, independent of row ids and timestamps. */
function snapshot(dbFile: string) {
  const db = new Database(dbFile, { readonly: true });
  try {
    const q = (sql: string) => db.prepare(sql).all().map((r) => JSON.stringify(r)).sort();
    const chunkCount = (db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
    const ftsCount = (db.prepare('SELECT count(*) AS n FROM chunks_fts').get() as { n: number }).n;
    return {
      files: q('SELECT path, hash, lines, size, uid FROM files'),
      symbols: q('SELECT f.path, s.name, s.kind, s.start_line, s.end_line, s.exported FROM symbols s JOIN files f ON f.id = s.file_id'),
      imports: q('SELECT f.path, i.specifier, i.kind, i.target_path, i.package FROM imports i JOIN files f ON f.id = i.file_id'),
      chunks: q('SELECT f.path, c.seq, c.start_line, c.end_line FROM chunks c JOIN files f ON f.id = c.file_id'),
      orphans: (db.prepare('SELECT count(*) AS n FROM chunks WHERE file_id NOT IN (SELECT id FROM files)').get() as { n: number }).n,
      chunkCount, ftsCount,
    };
  } finally {
    db.close();
  }
}

test('kill -9 mid-index: the next start resumes and the index equals a clean one', async () => {
  const workspace = generateWorkspace(2500);
  const dataDir = tempDir('loupe-killed-');
  const db = path.join(dataDir, 'loupe.db');
  const first = await startCli([workspace, '--port', '0', '--data-dir', dataDir, '--no-watch']);
  const indexedBeforeKill = await waitFor(() => {
    try {
      const reader = new Database(db, { readonly: true });
      const n = (reader.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
      reader.close();
      return n >= 100 && n;
    } catch {
      return false;
    }
  }, 60_000, 'indexing to be under way');
  first.child.kill('SIGKILL');
  await first.exited;
  const partial = snapshot(db);
  assert.ok(partial.files.length < 2500, `killed too late: ${partial.files.length} files (saw ${indexedBeforeKill})`);
  assert.equal(partial.orphans, 0);
  assert.equal(partial.ftsCount, partial.chunkCount, 'search rows match chunks even after the kill');

  const second = await startCli([workspace, '--port', '0', '--data-dir', dataDir, '--no-watch']);
  await waitFor(async () => {
    const res = await fetch(`${second.url}/v2/repos`, { headers: { 'x-api-key': second.key } });
    const body = await res.json() as any;
    return body.data?.[0]?.state === 'ready';
  }, 120_000, 'the resumed index to finish');
  second.child.kill('SIGINT');
  assert.equal(await second.exited, 0);
  assert.match(second.stderr(), /indexed ws: \d+ added, 0 changed, 0 removed, 0 unchanged/, 'only the missing files were parsed');

  const cleanDir = tempDir('loupe-clean-');
  const clean = await startCli([workspace, '--port', '0', '--data-dir', cleanDir, '--no-watch']);
  await waitFor(async () => {
    const res = await fetch(`${clean.url}/v2/repos`, { headers: { 'x-api-key': clean.key } });
    return (await res.json() as any).data?.[0]?.state === 'ready';
  }, 120_000, 'the clean index');
  clean.child.kill('SIGINT');
  await clean.exited;

  const resumed = snapshot(db);
  const fresh = snapshot(path.join(cleanDir, 'loupe.db'));
  assert.equal(resumed.files.length, 2500);
  // File ids are derived from the repository id, which differs between the two databases.
  const withoutUid = (rows: string[]) => rows.map((r) => { const o = JSON.parse(r); delete o.uid; return JSON.stringify(o); }).sort();
  assert.deepEqual(withoutUid(resumed.files), withoutUid(fresh.files));
  assert.deepEqual(resumed.symbols, fresh.symbols);
  assert.deepEqual(resumed.imports, fresh.imports);
  assert.deepEqual(resumed.chunks, fresh.chunks);
  assert.equal(resumed.ftsCount, resumed.chunkCount);
});
