import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStorage } from '../../server/engine/store/storage';
import { createLogger, silentLogger, type Logger } from '../../server/engine/log';
import { tempDir } from '../helpers/engine';
import { newId } from '../../server/engine/util/ids';

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return Object.assign(createLogger((level, line) => lines.push(`[${level}] ${line}`), 'debug'), { lines });
}

/** loupe.db's last page of the repos table, by file (read before the clean close: opening it again would unmark it). */
const reposPage = new Map<string, number>();

/** A data dir with a few rows in both files, closed cleanly. */
function populated(): string {
  const dataDir = tempDir('loupe-clean-close-');
  const s = openSqliteStorage(dataDir, silentLogger);
  s.accounts.insertUser({ id: newId(), email: null, display_name: 'Owner', plan: 'ENTERPRISE', is_owner: 1 });
  for (let i = 0; i < 50; i++) {
    s.repos.insert({ id: newId(), url: `/work/r${i}`, name: `r${i}`, rootPath: `/work/r${i}`, source: 'local', branch: null, visibility: 'private' });
  }
  reposPage.set(path.join(dataDir, 'loupe.db'), (s.db as Database.Database).prepare("SELECT max(pageno) FROM dbstat WHERE name = 'repos'").pluck().get() as number);
  s.close();
  return dataDir;
}

/**
 * Damages a page of loupe.db that holds rows (the repos table's last; a page in the middle of the file may
 * be free: migrations drop tables, 027 the FTS5 trigram table, and quick_check reads no free page's content).
 * With `unseen`, the clean mark is made to match the
 * damaged file (as a change that keeps the size and mtime would; utimes cannot restore an mtime to
 * the sub-millisecond, so the mark is rewritten instead, in its format: size and whole-ms mtime).
 */
function damage(file: string, unseen: boolean): void {
  const pageNo = reposPage.get(file)!;
  const bytes = fs.readFileSync(file);
  const pageSize = bytes.readUInt16BE(16);
  const page = pageNo - 1;
  for (let i = 0; i < 64; i++) bytes[page * pageSize + i] = 0xa5;
  fs.writeFileSync(file, bytes);
  if (unseen) {
    const st = fs.statSync(file);
    fs.writeFileSync(`${file}.clean`, `${st.size}:${Math.floor(st.mtimeMs)}`);
  }
}

test('a clean close marks both files; the next open trusts the mark (no quick_check) and takes it away', () => {
  const dataDir = populated();
  const index = path.join(dataDir, 'loupe.db');
  assert.ok(fs.existsSync(`${index}.clean`) && fs.existsSync(path.join(dataDir, 'accounts.db.clean')), 'both files marked');
  // Damage the index behind the mark's back: the open trusts the mark and does not read every page
  // (which is what makes a warm start fast).
  damage(index, true);
  const log = recordingLogger();
  const s = openSqliteStorage(dataDir, log);
  try {
    assert.ok(!log.lines.some((l) => l.includes('moved it to')), `not checked, so not moved aside: ${JSON.stringify(log.lines)}`);
    assert.ok(!fs.existsSync(`${index}.clean`) && !fs.existsSync(path.join(dataDir, 'accounts.db.clean')), 'the marks are taken away at open');
  } finally {
    // A process killed now leaves no mark.
    (s.db as Database.Database).close();
  }
  // No mark (the last process did not close cleanly): the next open checks and moves the file aside.
  const again = recordingLogger();
  openSqliteStorage(dataDir, again).close();
  assert.ok(again.lines.some((l) => /moved it to .*broken/.test(l)), JSON.stringify(again.lines));
});

test('a file changed after its clean close (another size or mtime) is checked at open', () => {
  const dataDir = populated();
  damage(path.join(dataDir, 'loupe.db'), false);
  const log = recordingLogger();
  openSqliteStorage(dataDir, log).close();
  assert.ok(log.lines.some((l) => /unusable \((integrity check failed|database disk image is malformed)/.test(l)), JSON.stringify(log.lines));
});

test('an up-to-date data dir opens while another process holds the write lock of both files (no migration lock, busy timeout first)', () => {
  const dataDir = populated();
  const holders = ['loupe.db', 'accounts.db'].map((f) => {
    const db = new Database(path.join(dataDir, f));
    db.exec('BEGIN IMMEDIATE');
    return db;
  });
  try {
    const started = performance.now();
    const s = openSqliteStorage(dataDir, silentLogger);
    const ms = performance.now() - started;
    try {
      assert.ok(ms < 3000, `opened in ${Math.round(ms)} ms: it must not wait for the write lock (10 s busy timeout)`);
      assert.equal(s.repos.list({ userId: newId(), scope: 'private', limit: 1, offset: 0, orderBy: 'name', order: 'asc' }).total, 0);
    } finally {
      s.close();
    }
    assert.ok(!fs.existsSync(path.join(dataDir, 'loupe.db.clean')), 'not marked: another connection was still open');
  } finally {
    for (const db of holders) { db.exec('ROLLBACK'); db.close(); }
  }
});
