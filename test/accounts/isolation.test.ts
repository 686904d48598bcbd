import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFixture, createTestApp, SHARE_TMP_WITH_EVERYONE } from '../helpers/engine';
import { addUser } from './helpers';

test('user B cannot see, charge or change anything of user A: 404s, and A\'s balance is untouched', async () => {
  const t = await createTestApp({ accounts: SHARE_TMP_WITH_EVERYONE });
  const folder = copyFixture('ts-paths');
  try {
    const a = addUser(t, { plan: 'DEV', credits: 100 });
    const b = addUser(t, { plan: 'DEV', credits: 100 });
    const indexed = await a.as('POST', '/v2/repos/index/new', { url: folder });
    assert.equal(indexed.status, 200, JSON.stringify(indexed.body));
    const repoId = indexed.body.data.repo.repo_id;
    await t.engine.queue.idle();
    await a.as('GET', `/v2/files/${repoId}`);
    const conv = t.engine.history.record({ userId: a.userId, category: 'research', query: 'secret question', newConversation: true });
    const aBefore = t.engine.accounts.meta(a.userId);

    const probes: [string, string, unknown?][] = [
      ['GET', `/v2/files/${repoId}`],
      ['GET', `/v2/files/${encodeURIComponent(folder)}`],
      ['POST', '/v2/repos/status', { url: folder }],
      ['GET', `/v2/history/${conv.historyId}`],
      ['GET', `/v2/history/conversation/${conv.conversationId}`],
      ['DELETE', `/v2/keys/${a.keyId}`],
    ];
    for (const [method, url, body] of probes) {
      const res = await b.as(method, url, body);
      assert.equal(res.status, 404, `${method} ${url}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'NOT_FOUND');
    }
    const bRepos = await b.as('GET', '/v2/repos');
    assert.equal(bRepos.body.pagination.total, 0);
    const bHistory = await b.as('GET', '/v2/history?limit=100');
    assert.ok(bHistory.body.data.every((h: any) => h.query !== 'secret question' && !h.repo_ids.includes(repoId)));
    const bKeys = await b.as('GET', '/v2/keys');
    assert.deepEqual(bKeys.body.data.map((k: any) => k.key_id), [b.keyId]);
    assert.equal((await b.as('GET', '/v2/stats/languages')).body.data.total_files, 0);

    assert.deepEqual(t.engine.accounts.meta(a.userId), aBefore, 'nothing B did was charged to A');
    assert.equal((await a.as('GET', '/v2/keys')).status, 200, 'A\'s key still works');
    assert.equal((await a.as('GET', `/v2/history/conversation/${conv.conversationId}`)).status, 200);
  } finally {
    await t.close();
  }
});
