import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createTestApp, copyFixture, tempDir, FIXTURES } from '../helpers/engine';
import { addUser } from '../accounts/helpers';
import { EngineCore } from '../../server/engine/core';
import { createLogger } from '../../server/engine/log';
import { createHttpApp } from '../../server/host';

/**
 * Attack: damage the index, and every account goes with it. Users, keys, the ledger and history
 * lived in the same file as the index, which Loupe rebuilds when it is corrupt: after a damaged
 * page (or anything that made the file unusable) old keys were 401 and a user could sign up again
 * for fresh credits. Accounts now live in DATA_DIR/accounts.db, which a rebuilt index leaves alone.
 */
test('a corrupt index is rebuilt; users, keys, balances, history and A2A tasks are all still there', { timeout: 60_000 }, async () => {
  const dataDir = tempDir('loupe-split-');
  const t = await createTestApp({ dataDir, allowedRoots: [FIXTURES, path.dirname(copyFixture('ts-paths'))] });
  const u = addUser(t, { plan: 'FREE', credits: 50 });
  let historyTotal: number;
  let balance: unknown;
  // A page that holds rows: one in the middle of the file may be free (migration 027 drops a table), unread by quick_check.
  let chunksPage = 0;
  try {
    assert.equal((await u.as('GET', '/v2/repos')).status, 200);
    // A query writes a history row (listings are charged but write none).
    const searched = await u.as('POST', '/v2/search', { query: 'area', scan_mode: 'grep_code' });
    assert.equal(searched.status, 200, JSON.stringify(searched.body));
    historyTotal = (await u.as('GET', '/v2/history?limit=5')).body.pagination.total;
    assert.ok(historyTotal >= 1);
    balance = t.engine.accounts.credits.balance(u.userId);
    t.engine.a2aTasks.save({ id: 'task-1', ownerUserId: u.userId, contextId: 'ctx', state: 'completed', json: '{}' });
    t.engine.db.pragma('wal_checkpoint(TRUNCATE)');
    chunksPage = t.engine.db.prepare("SELECT max(pageno) FROM dbstat WHERE name = 'chunks'").pluck().get() as number;
  } finally {
    await t.close();
  }
  // Damage the index as a torn write would (its accounts tables, if any, with it).
  const indexFile = path.join(dataDir, 'loupe.db');
  const bytes = fs.readFileSync(indexFile);
  const pageSize = bytes.readUInt16BE(16);
  const page = chunksPage - 1;
  for (let i = 0; i < 64; i++) bytes[page * pageSize + i] = 0xa5;
  fs.writeFileSync(indexFile, bytes);
  fs.rmSync(`${indexFile}-wal`, { force: true });

  const lines: string[] = [];
  const engine = new EngineCore({ dataDir, log: createLogger((level, line) => lines.push(`[${level}] ${line}`), 'debug'), allowedRoots: [FIXTURES] });
  const app = await createHttpApp(engine);
  try {
    assert.ok(lines.some((l) => l.includes('moved it to')), 'the index was rebuilt');
    const as = (url: string, key: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    assert.equal((await as('/v2/repos', u.key)).statusCode, 200, 'her key still works');
    assert.equal((await as('/v2/repos', t.key)).statusCode, 200, 'the owner\'s key still works');
    const history = JSON.parse((await as('/v2/history?limit=5', u.key)).body);
    assert.ok(history.pagination.total >= historyTotal, 'her history is there');
    const after = engine.accounts.credits.balance(u.userId);
    assert.ok(after.used >= (balance as { used: number }).used, `her balance did not reset: ${JSON.stringify(after)}`);
    assert.ok(engine.a2aTasks.load('task-1', u.userId), 'her A2A task is there');
  } finally {
    await app.close();
    await engine.close();
  }
  // The index file holds no account table at all.
  const index = new Database(indexFile, { readonly: true });
  try {
    const tables = (index.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name);
    for (const table of ['users', 'api_keys', 'credit_ledger', 'credit_totals', 'history', 'conversations', 'sessions', 'otp_codes', 'a2a_tasks']) {
      assert.ok(!tables.includes(table), `${table} is not in the index file`);
    }
  } finally {
    index.close();
  }
});
