import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFixture, createTestApp } from '../helpers/engine';
import { metered } from '../../server/engine/operations/metering';

/** The owner's ledger rows and history rows, exactly. */
function records(t: Awaited<ReturnType<typeof createTestApp>>) {
  return {
    ledger: t.engine.db.prepare('SELECT id, operation, credits FROM credit_ledger WHERE user_id = ? ORDER BY id').all(t.ownerId),
    history: t.engine.db.prepare('SELECT id FROM history WHERE user_id = ? ORDER BY id').all(t.ownerId),
    used: t.engine.accounts.meta(t.ownerId).credits_used,
  };
}

/**
 * Attack/fault: a paid call that fails after its work was done (here: a corrupted row that cannot be
 * written as the documented answer, so the response fails to serialize and the answer is a 500)
 * must cost nothing and leave no history row. The charge is settled with the answer and taken back
 * when the response that carries it is not a success.
 */
test('a paid call that ends in a 500 (its answer cannot be serialized) is refunded: ledger and history unchanged, alone or concurrently', async () => {
  const t = await createTestApp();
  try {
    const indexed = await t.call('POST', '/v2/repos/index/new', { url: copyFixture('ts-paths') });
    const repoId = indexed.body.data.repo.repo_id;
    await t.engine.queue.idle();
    assert.equal((await t.call('GET', `/v2/files/${repoId}?limit=5`)).status, 200);
    // A corrupted state: SQLite keeps any type in any column; "size" must be an integer on the wire.
    t.engine.db.prepare("UPDATE files SET size = 'corrupt' WHERE repo_id = ?").run(repoId);
    const before = records(t);

    const failed = await t.call('GET', `/v2/files/${repoId}?limit=5`);
    assert.equal(failed.status, 500, JSON.stringify(failed.body));
    assert.equal(failed.body.code, 'INTERNAL');
    assert.deepEqual(records(t), before, 'no charge, no history row');

    // Many at once share one group commit: every one of them is taken back.
    const many = await Promise.all(Array.from({ length: 8 }, () => t.call('GET', `/v2/files/${repoId}?limit=5`)));
    assert.deepEqual(many.map((r) => r.status), Array(8).fill(500));
    assert.deepEqual(records(t), before, 'no charge, no history row after concurrent failures');

    // A call that succeeds is still charged once, with its history row (a search: listings write none).
    const ok = await t.call('POST', '/v2/search', { query: 'area', repo_ids: [repoId], scan_mode: 'grep_code' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const after = records(t);
    assert.ok(after.used > before.used, 'charged');
    assert.equal(after.history.length, before.history.length + 1);
  } finally {
    await t.close();
  }
});

test('an operation that throws after its answer was settled is refunded (the engine side, whatever the transport)', async () => {
  const t = await createTestApp();
  try {
    const caller = { userId: t.ownerId, keyId: 'k', plan: 'ENTERPRISE', isOwner: true };
    const before = records(t);
    await assert.rejects(metered(t.engine.accounts, caller, { operation: 'files.list', cost: 3, history: 'files' }, async (meter) => {
      await meter.answer({ x: 1 }, { history: { query: 'q', repoIds: [] } });
      throw new Error('failed after the answer');
    }), /failed after the answer/);
    assert.deepEqual(records(t), before);
  } finally {
    await t.close();
  }
});
