import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createTestEngine, tempDir } from '../helpers/engine';
import { createLogger } from '../../server/engine/log';
import { startSidecar, startSidecarOnDemand, type Sidecar } from '../../server/host';

/** What the owner's account holds: ledger and history rows, and the keys' last uses (accounts.db, read as another process would). */
function accountState(dataDir: string) {
  const db = new Database(path.join(dataDir, 'accounts.db'), { readonly: true });
  try {
    return {
      ledger: db.prepare('SELECT operation, credits FROM credit_ledger ORDER BY id').all(),
      history: (db.prepare('SELECT count(*) AS n FROM history').get() as { n: number }).n,
      lastUsed: db.prepare('SELECT id, last_used_at FROM api_keys ORDER BY id').all(),
    };
  } finally {
    db.close();
  }
}

for (const kind of ['on demand (the CLI, at ready())', 'built at once'] as const) {
  test(`the sidecar ${kind} warms its request path with one request over the socket, answered 401, that charges and writes nothing`, async () => {
    const lines: string[] = [];
    const t = createTestEngine({ log: createLogger((_level, line) => lines.push(line), 'debug') });
    let sidecar: Sidecar | null = null;
    try {
      const folder = tempDir('loupe-warm-request-');
      fs.writeFileSync(path.join(folder, 'a.ts'), 'export const a = 1;\n');
      t.engine.repos.registerLocalFolder(t.ownerId, folder);
      await t.engine.queue.idle();
      const before = accountState(t.dataDir);

      const options = { host: '127.0.0.1', port: 0 };
      if (kind === 'built at once') sidecar = await startSidecar(t.engine, options);
      else {
        sidecar = await startSidecarOnDemand(t.engine, options);
        assert.ok(!lines.some((l) => /request path was warmed/.test(l)), 'warmed before the application was asked for');
        await sidecar.ready!();
      }
      const warmed = lines.filter((l) => /request path was warmed/.test(l));
      assert.equal(warmed.length, 1, lines.join('\n'));
      assert.match(warmed[0], /warmed: 401 in \d+(\.\d+)? ms$/);
      assert.deepEqual(accountState(t.dataDir), before, 'the warm-up request charged, wrote history or moved a key\'s last use');

      // A caller's first request after it is answered and charged as ever: one ledger row, its one credit.
      const response = await fetch(`${sidecar.url}/v2/repos?limit=5`, { headers: { 'x-api-key': t.key } });
      assert.equal(response.status, 200);
      const body = await response.json() as { data: { name: string }[]; meta: { credits_used: number } };
      assert.equal(body.data.length, 1);
      assert.equal(body.meta.credits_used, 1);
      const after = accountState(t.dataDir);
      assert.deepEqual(after.ledger.slice(0, before.ledger.length), before.ledger);
      assert.equal(after.ledger.length, before.ledger.length + 1);
      // A second ready() does not warm again.
      await sidecar.ready?.();
      assert.equal(lines.filter((l) => /request path was warmed/.test(l)).length, 1);
    } finally {
      await sidecar?.close();
      await t.close();
    }
  });
}
