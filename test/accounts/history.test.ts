import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFixture, createTestApp } from '../helpers/engine';
import { parseTimeBound } from '../../server/engine/accounts/history';
import { addUser } from './helpers';

test('a file search writes a history row; listings and polling are charged but write none; paging and inclusive date filters', async () => {
  const t = await createTestApp();
  const folder = copyFixture('ts-paths');
  try {
    const indexed = await t.call('POST', '/v2/repos/index/new', { url: folder });
    const repoId = indexed.body.data.repo.repo_id;
    await t.engine.queue.idle();
    const used = t.engine.accounts.credits.balance(t.ownerId).used;
    const status = await t.call('POST', '/v2/repos/status', { url: folder });
    assert.equal(status.body.meta.history_id, undefined, 'polling writes no history row');
    await t.call('GET', `/v2/files/${repoId}?search=math`);
    await t.call('GET', `/v2/files/${repoId}`);
    for (let i = 0; i < 4; i++) await t.call('GET', '/v2/repos');
    for (let i = 0; i < 2; i++) await t.call('GET', `/v2/files/${repoId}?search=ma`);
    assert.equal(t.engine.accounts.credits.balance(t.ownerId).used, used + 9, 'every call is charged: 1 status, 4 files, 4 listings');

    const all = await t.call('GET', '/v2/history?limit=100');
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.equal(all.body.pagination.total, 4);
    assert.deepEqual(all.body.data.map((h: any) => [h.operation, h.query]),
      [['files.list', 'ma'], ['files.list', 'ma'], ['files.list', 'math'], ['repos.index', folder]], 'newest first');
    const files = all.body.data[2];
    assert.equal(files.category, 'files');
    assert.equal(files.query, 'math');
    assert.deepEqual(files.repo_ids, [repoId]);
    assert.equal(files.credits, 1);
    assert.equal(files.summary, '1 files');
    assert.equal(all.body.data[3].credits, 0);
    assert.equal(typeof all.body.meta.credits_used, 'number');

    const p1 = await t.call('GET', '/v2/history?limit=3');
    const p2 = await t.call('GET', '/v2/history?limit=3&offset=3');
    assert.deepEqual(p1.body.pagination, { total: 4, limit: 3, offset: 0, has_more: true });
    assert.equal(p2.body.data.length, 1);
    assert.equal(p2.body.data[0].operation, 'repos.index');

    // Inclusive bounds: a row's own timestamp as from and to selects it.
    const stamp = files.created_at;
    const exact = await t.call('GET', `/v2/history?from=${encodeURIComponent(stamp)}&to=${encodeURIComponent(stamp)}`);
    assert.ok(exact.body.data.some((h: any) => h.history_id === files.history_id));
    const today = stamp.slice(0, 10);
    const day = await t.call('GET', `/v2/history?from=${today}&to=${today}&limit=100`);
    assert.equal(day.body.pagination.total, 4);
    const future = await t.call('GET', '/v2/history?from=2999-01-01');
    assert.equal(future.body.pagination.total, 0);
    const past = await t.call('GET', '/v2/history?to=2000-01-01T00:00:00Z');
    assert.equal(past.body.pagination.total, 0);

    const blueprint = await t.call('GET', `/v2/repos/${repoId}/blueprint`);
    assert.equal(blueprint.status, 200);
    const row = await t.call('GET', `/v2/history/${blueprint.body.meta.history_id}`);
    assert.deepEqual([row.body.data.category, row.body.data.operation, row.body.data.repo_ids, row.body.data.credits], ['analysis', 'repos.blueprint', [repoId], 1]);

    const one = await t.call('GET', `/v2/history/${files.history_id}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.data.history_id, files.history_id);

    for (const [url, field] of [
      ['/v2/history?from=yesterday', 'from'], ['/v2/history?to=2024-02-30', 'to'], ['/v2/history?from=2024-13-01', 'from'],
      ['/v2/history?from=2024-05-02&to=2024-05-01', 'from'], ['/v2/history?limit=101', 'limit'], ['/v2/history?limit=0', 'limit'],
      ['/v2/history?offset=-1', 'offset'], ['/v2/history?from=2024-01-01T25:00:00Z', 'from'],
    ]) {
      const bad = await t.call('GET', url);
      assert.equal(bad.status, 400, url);
      assert.match(bad.body.message, new RegExp(`query\\.${field}`), url);
    }
    const unknown = await t.call('GET', '/v2/history/00000000-0000-4000-8000-000000000000');
    assert.equal(unknown.status, 404);
    const notUuid = await t.call('GET', '/v2/history/nope');
    assert.equal(notUuid.status, 404);
  } finally {
    await t.close();
  }
});

test('conversations are ordered threads; another user sees none of it (404s)', async () => {
  const t = await createTestApp();
  try {
    const first = t.engine.history.record({ userId: t.ownerId, category: 'research', query: 'how does auth work?', newConversation: true, summary: 'a', credits: 5 });
    const second = t.engine.history.record({ userId: t.ownerId, category: 'research', query: 'and keys?', conversationId: first.conversationId, summary: 'b' });
    t.engine.history.record({ userId: t.ownerId, category: 'search', query: 'unrelated' });
    assert.equal(second.conversationId, first.conversationId);
    const thread = await t.call('GET', `/v2/history/conversation/${first.conversationId}`);
    assert.equal(thread.status, 200);
    assert.equal(thread.body.data.title, 'how does auth work?');
    assert.deepEqual(thread.body.data.items.map((h: any) => h.query), ['how does auth work?', 'and keys?']);

    const b = addUser(t);
    assert.equal((await b.as('GET', `/v2/history/conversation/${first.conversationId}`)).status, 404);
    assert.equal((await b.as('GET', `/v2/history/${first.historyId}`)).status, 404);
    const list = await b.as('GET', '/v2/history');
    assert.equal(list.body.pagination.total, 0);
    assert.throws(() => t.engine.history.record({ userId: b.userId, category: 'research', query: 'x', conversationId: first.conversationId }),
      (e: any) => e.code === 'NOT_FOUND');
  } finally {
    await t.close();
  }
});

test('time bounds: dates cover whole days, offsets convert to UTC', () => {
  assert.equal(parseTimeBound('2024-03-05', 'from', 'start'), '2024-03-05T00:00:00.000Z');
  assert.equal(parseTimeBound('2024-03-05', 'to', 'end'), '2024-03-05T23:59:59.999Z');
  assert.equal(parseTimeBound('2024-03-05T10:00:00+02:00', 'from', 'start'), '2024-03-05T08:00:00.000Z');
  assert.equal(parseTimeBound('2024-03-05T10:00', 'from', 'start'), '2024-03-05T10:00:00.000Z');
  assert.equal(parseTimeBound('2024-02-29', 'from', 'start'), '2024-02-29T00:00:00.000Z');
  assert.throws(() => parseTimeBound('2023-02-29', 'from', 'start'), /from: must be an ISO 8601/);
});
