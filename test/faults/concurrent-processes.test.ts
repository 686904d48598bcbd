import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createTestEngine, tempDir } from '../helpers/engine';
import { killAtEnd, ROOT } from '../helpers/cli';
import { writeTsCorpus } from '../helpers/corpus';

const WORKER = path.join(__dirname, 'workers', 'concurrent-writer.ts');

function runWorker(t: TestContext, dataDir: string, folder: string, operations: number, userId: string) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, dataDir, folder, String(operations), userId], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    killAtEnd(t, child);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

test('two processes writing one database at once: no SQLITE_BUSY reaches anyone, no write is lost', { timeout: 180_000 }, async (ctx) => {
  const t = createTestEngine();
  const userId = t.ownerId;
  await t.close();
  const folders = [1, 2].map((n) => writeTsCorpus(path.join(tempDir(`loupe-busy-${n}-`), `corpus${n}`), 400));
  const operations = 150;
  const results = await Promise.all(folders.map((folder) => runWorker(ctx, t.dataDir, folder, operations, userId)));
  for (const r of results) {
    assert.equal(r.code, 0, `worker failed: ${r.out}\n${r.err}`);
    assert.deepEqual(JSON.parse(r.out).failures, []);
  }
  const db = new Database(path.join(t.dataDir, 'loupe.db'), { readonly: true });
  db.prepare('ATTACH DATABASE ? AS accounts').run(path.join(t.dataDir, 'accounts.db'));
  try {
    const sum = (db.prepare("SELECT coalesce(sum(credits), 0) AS n FROM credit_ledger WHERE operation = 'search'").get() as { n: number }).n;
    assert.equal(sum, 2 * operations, 'every charge of both processes is in the ledger');
    const history = (db.prepare("SELECT count(*) AS n, count(DISTINCT query) AS d FROM history WHERE category = 'search'").get() as { n: number; d: number });
    assert.deepEqual(history, { n: 2 * operations, d: 2 * operations }, 'one history row per charge, none lost or doubled');
    const repos = db.prepare('SELECT name, state, files_total FROM repos ORDER BY name').all();
    assert.deepEqual(repos, [{ name: 'corpus1', state: 'ready', files_total: 401 }, { name: 'corpus2', state: 'ready', files_total: 401 }]);
    const files = (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
    assert.equal(files, 802);
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    assert.equal(db.pragma('accounts.integrity_check', { simple: true }), 'ok');
  } finally {
    db.close();
  }
});
