import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Engine } from '../../server/engine/engine';
import { createLogger, type Logger } from '../../server/engine/log';
import { MIGRATIONS } from '../../server/engine/store/migrations';
import { schemaVersion } from '../../server/engine/store/db';
import { createApp } from '../../server/transport/http/app';
import { copyFixture, FIXTURES, tempDir } from '../helpers/engine';
import { V1_FIXTURE } from '../../scripts/make-schema-v1-db';

/** A logger that keeps its lines, so tests can read what the user would have been told. */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return Object.assign(createLogger((level, line) => lines.push(`[${level}] ${line}`), 'debug'), { lines });
}

const latest = Math.max(...MIGRATIONS.map((m) => m.version));

function openEngine(dataDir: string, log: Logger = recordingLogger()): Engine {
  return new Engine({ dataDir, log, allowedRoots: [FIXTURES, path.dirname(dataDir)] });
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
  engine.db.pragma('wal_checkpoint(TRUNCATE)');
  engine.db.pragma('journal_mode = DELETE');
  await engine.close();
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
  const app = await createApp(engine);
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
