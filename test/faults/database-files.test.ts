import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { EngineCore } from '../../server/engine/core';
import { createLogger, type Logger } from '../../server/engine/log';
import { MIGRATIONS } from '../../server/engine/store/migrations';
import { schemaVersion } from '../../server/engine/store/db';
import { createHttpApp } from '../../server/host';
import { copyFixture, FIXTURES, tempDir } from '../helpers/engine';
import { V1_FIXTURE } from '../../scripts/make-schema-v1-db';
import { V12_FIXTURE } from '../../scripts/make-schema-v12-db';

/** A logger that keeps its lines, so tests can read what the user would have been told. */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return Object.assign(createLogger((level, line) => lines.push(`[${level}] ${line}`), 'debug'), { lines });
}

const latest = Math.max(...MIGRATIONS.map((m) => m.version));

function openEngine(dataDir: string, log: Logger = recordingLogger()): EngineCore {
  return new EngineCore({ dataDir, log, allowedRoots: [FIXTURES, path.dirname(dataDir)] });
}

/** Opens a data dir whose loupe.db is `bytes`; checks the file was moved aside intact and a fresh index works. */
async function assertMovedAside(bytes: Buffer, reason: RegExp): Promise<void> {
  const dataDir = tempDir('loupe-bad-db-');
  fs.writeFileSync(path.join(dataDir, 'loupe.db'), bytes);
  const log = recordingLogger();
  const engine = openEngine(dataDir, log);
  try {
    const warning = log.lines.find((l) => l.includes('moved it to'));
    assert.ok(warning, `a clear message; got ${JSON.stringify(log.lines)}`);
    assert.match(warning, reason);
    const aside = fs.readdirSync(dataDir).filter((f) => /^loupe\.db\.broken-\d+$/.test(f));
    assert.equal(aside.length, 1, 'the unusable file is kept beside the new one');
    assert.deepEqual(fs.readFileSync(path.join(dataDir, aside[0])), bytes, 'moved, not modified');
    assert.equal(schemaVersion(engine.db), latest, 'a fresh database at the current schema');
    const { userId } = engine.accounts.ensureOwner();
    const repo = engine.repos.registerLocalFolder(userId, copyFixture('ts-paths'));
    await engine.queue.idle();
    assert.equal(engine.reposStore.get(repo.id)!.state, 'ready', 'and it indexes');
  } finally {
    await engine.close();
  }
}

test('a file of random bytes named loupe.db is moved aside with a message and rebuilt', async () => {
  await assertMovedAside(Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919 + 13) % 256)), /unusable \(.*(not a database|file is not a database)/i);
});

test('another program\'s SQLite database is not touched in place: moved aside as "not a Loupe database"', async () => {
  const file = path.join(tempDir('loupe-foreign-'), 'other.db');
  const other = new Database(file);
  other.pragma('journal_mode = DELETE');
  other.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me')");
  other.close();
  await assertMovedAside(fs.readFileSync(file), /not a Loupe database/);
});

test('a Loupe database with a damaged page is detected at start, moved aside and rebuilt', async () => {
  const dataDir = tempDir('loupe-damaged-');
  const engine = openEngine(dataDir);
  const { userId } = engine.accounts.ensureOwner();
  engine.repos.registerLocalFolder(userId, copyFixture('ts-paths'));
  await engine.queue.idle();
  await engine.close();
  // One self-contained file (the log is checkpointed and removed at close), in rollback mode to damage it.
  const plain = new Database(path.join(dataDir, 'loupe.db'));
  plain.pragma('journal_mode = DELETE');
  plain.close();
  const bytes = fs.readFileSync(path.join(dataDir, 'loupe.db'));
  const pageSize = bytes.readUInt16BE(16);
  // Overwrite the b-tree header of a page in the middle, as a torn write or a bad sector would.
  const page = Math.floor(bytes.length / pageSize / 2);
  for (let i = 0; i < 64; i++) bytes[page * pageSize + i] = 0xa5;
  await assertMovedAside(bytes, /unusable \((integrity check failed|database disk image is malformed)/);
});

test('an empty file or a zero-table SQLite file is simply initialised', async () => {
  const dataDir = tempDir('loupe-empty-db-');
  fs.writeFileSync(path.join(dataDir, 'loupe.db'), '');
  const log = recordingLogger();
  const engine = openEngine(dataDir, log);
  try {
    assert.equal(schemaVersion(engine.db), latest);
    assert.ok(!log.lines.some((l) => l.includes('moved it to')), 'nothing to move aside');
  } finally {
    await engine.close();
  }
});

test('a database from the first schema (fixture schema-v1.db) is migrated and its rows still serve the API', async () => {
  const dataDir = tempDir('loupe-v1-');
  fs.copyFileSync(path.join(FIXTURES, 'db', 'schema-v1.db'), path.join(dataDir, 'loupe.db'));
  const before = new Database(path.join(dataDir, 'loupe.db'), { readonly: true });
  assert.equal(before.pragma('user_version', { simple: true }), 1, 'the fixture really is schema 1');
  before.close();

  const log = recordingLogger();
  const engine = openEngine(dataDir, log);
  const app = await createHttpApp(engine);
  try {
    assert.equal(schemaVersion(engine.db), latest);
    assert.ok(!log.lines.some((l) => l.includes('moved it to')), 'migrated in place, not rebuilt');
    assert.equal(engine.accounts.store.owner()?.id, V1_FIXTURE.ownerId);
    const caller = engine.accounts.authenticate(V1_FIXTURE.ownerKey);
    assert.equal(caller.userId, V1_FIXTURE.ownerId, 'the old key still signs in');
    const file = engine.filesStore.getByPath(V1_FIXTURE.repoId, 'src/math.ts');
    assert.equal(file?.uid ?? (file as any)?.id, V1_FIXTURE.fileUid);
    const list = await app.inject({ method: 'GET', url: '/v2/repos', headers: { 'x-api-key': V1_FIXTURE.ownerKey } });
    assert.equal(list.statusCode, 200, list.body);
    assert.deepEqual(JSON.parse(list.body).data.map((r: { repo_id: string }) => r.repo_id), [V1_FIXTURE.repoId]);
    const files = await app.inject({ method: 'GET', url: `/v2/files/${V1_FIXTURE.repoId}`, headers: { 'x-api-key': V1_FIXTURE.ownerKey } });
    assert.equal(files.statusCode, 200, files.body);
    assert.deepEqual(JSON.parse(files.body).data.map((f: { file_path: string }) => f.file_path), ['src/math.ts']);
    assert.equal(engine.db.pragma('quick_check', { simple: true }), 'ok');
  } finally {
    await app.close();
    await engine.close();
  }
  // Opening again is a no-op: migrations are not re-applied.
  const again = openEngine(dataDir);
  assert.equal(schemaVersion(again.db), latest);
  await again.close();
});

test('a data dir from before the accounts database (fixture schema-v12.db) moves its accounts out of the index on first start', async () => {
  const dataDir = tempDir('loupe-v12-');
  fs.copyFileSync(path.join(FIXTURES, 'db', 'schema-v12.db'), path.join(dataDir, 'loupe.db'));
  const f = V12_FIXTURE;
  const log = recordingLogger();
  const engine = openEngine(dataDir, log);
  const app = await createHttpApp(engine);
  const get = async (url: string, headers: Record<string, string>) => {
    const res = await app.inject({ method: 'GET', url, headers });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  };
  try {
    assert.equal(schemaVersion(engine.db), latest);
    assert.ok(!log.lines.some((l) => l.includes('moved it to')), 'migrated in place, not rebuilt');
    // Every account survives: keys, the session, the password, balances, history, the thread, the A2A task.
    assert.equal(engine.accounts.authenticate(f.ownerKey).userId, f.ownerId);
    assert.equal(engine.accounts.authenticate(f.adaKey).userId, f.adaId);
    assert.equal(engine.auth.callerForSession(f.adaSession).userId, f.adaId);
    const signin = await app.inject({ method: 'POST', url: '/v2/auth/authenticate', payload: { auth_mode: 'password', email: f.adaEmail }, headers: { 'x-auth-password': f.adaPassword } });
    assert.equal(signin.statusCode, 200, signin.body);
    assert.deepEqual(engine.accounts.credits.balance(f.adaId), { limit: 100, used: f.adaUsed, remaining: 100 - f.adaUsed });
    assert.equal(engine.accounts.credits.balance(f.ownerId).used, f.ownerUsed);
    const history = await get('/v2/history?limit=10', { 'x-api-key': f.adaKey });
    assert.equal(history.status, 200, JSON.stringify(history.body));
    assert.deepEqual(history.body.data.map((h: { history_id?: string; id?: string }) => h.history_id ?? h.id).sort(), [f.historyIds[0], f.historyIds[1]]);
    const thread = await get(`/v2/history/conversation/${f.conversationId}`, { 'x-api-key': f.adaKey });
    assert.equal(thread.status, 200, JSON.stringify(thread.body));
    assert.ok(engine.a2aTasks.load(f.a2aTaskId, f.adaId));
    // The repository stays shared by the two users who added it.
    for (const key of [f.ownerKey, f.adaKey]) {
      const repos = await get('/v2/repos', { 'x-api-key': key });
      assert.deepEqual(repos.body.data.map((r: { repo_id: string }) => r.repo_id), [f.repoId]);
    }
    assert.equal(engine.filesStore.getByPath(f.repoId, 'src/math.ts')?.uid, f.fileUid);
  } finally {
    await app.close();
    await engine.close();
  }
  const tables = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name);
    } finally {
      db.close();
    }
  };
  const moved = ['users', 'api_keys', 'credit_ledger', 'credit_totals', 'otp_codes', 'sessions', 'conversations', 'history', 'a2a_tasks'];
  assert.deepEqual(moved.filter((t) => tables(path.join(dataDir, 'loupe.db')).includes(t)), [], 'the index keeps no account table');
  assert.deepEqual(moved.filter((t) => !tables(path.join(dataDir, 'accounts.db')).includes(t)), [], 'the accounts database has them all');
  const again = openEngine(dataDir);
  assert.equal(again.accounts.authenticate(f.adaKey).userId, f.adaId, 'a second start changes nothing');
  await again.close();
});

test('a start stopped between copying the accounts and dropping them from the index copies nothing twice', async () => {
  const dataDir = tempDir('loupe-v12-half-');
  fs.copyFileSync(path.join(FIXTURES, 'db', 'schema-v12.db'), path.join(dataDir, 'loupe.db'));
  // The first half of migration 14, committed, as a process killed right after it would leave it.
  const first = openEngine(dataDir);
  await first.close();
  const accounts = new Database(path.join(dataDir, 'accounts.db'));
  const counts = () => ['users', 'api_keys', 'credit_ledger', 'history', 'a2a_tasks'].map((t) => (accounts.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n);
  const before = counts();
  const used = (accounts.prepare('SELECT used FROM credit_totals WHERE user_id = ?').get(V12_FIXTURE.adaId) as { used: number }).used;
  accounts.close();
  fs.copyFileSync(path.join(FIXTURES, 'db', 'schema-v12.db'), path.join(dataDir, 'loupe.db'));
  for (const suffix of ['-wal', '-shm']) fs.rmSync(path.join(dataDir, `loupe.db${suffix}`), { force: true });
  const engine = openEngine(dataDir);
  try {
    assert.equal(engine.accounts.credits.balance(V12_FIXTURE.adaId).used, used, 'the ledger was not copied twice');
  } finally {
    await engine.close();
  }
  const again = new Database(path.join(dataDir, 'accounts.db'), { readonly: true });
  try {
    assert.deepEqual(['users', 'api_keys', 'credit_ledger', 'history', 'a2a_tasks'].map((t) => (again.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n), before);
  } finally {
    again.close();
  }
});

test('a database from a newer Loupe is refused with a message and left as it is', async () => {
  for (const name of ['loupe.db', 'accounts.db']) {
    const dataDir = tempDir('loupe-newer-');
    const engine = openEngine(dataDir);
    await engine.close();
    const file = path.join(dataDir, name);
    const db = new Database(file);
    db.pragma('user_version = 999');
    db.close();
    const bytes = fs.readFileSync(file);
    assert.throws(() => openEngine(dataDir), (error: Error) => {
      assert.match(error.message, new RegExp(`${name.replace('.', '\\.')}: this .* has schema 999, written by a newer Loupe`));
      return true;
    });
    assert.deepEqual(fs.readFileSync(file), bytes, `${name} is untouched`);
    assert.deepEqual(fs.readdirSync(dataDir).filter((f) => f.includes('broken')), [], 'nothing moved aside');
  }
});

test('an unusable accounts database stops the start instead of being rebuilt', async () => {
  const dataDir = tempDir('loupe-bad-accounts-');
  const bytes = Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919 + 13) % 256));
  fs.writeFileSync(path.join(dataDir, 'accounts.db'), bytes);
  assert.throws(() => openEngine(dataDir), /accounts\.db is unusable .*never rebuilt/);
  assert.deepEqual(fs.readFileSync(path.join(dataDir, 'accounts.db')), bytes, 'left as it is');
});
