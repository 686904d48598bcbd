import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFixture, createTestApp, SHARE_TMP_WITH_EVERYONE } from '../helpers/engine';
import { addUser } from '../accounts/helpers';
import { newId } from '../../server/engine/util/ids';

/**
 * Cross-cutting isolation: for every route that takes an id, user B asking about user A's thing gets
 * exactly the answer B gets for an id that does not exist (status, code and message), so B cannot
 * even learn that it exists; and neither A nor B is charged for it.
 */
test('another user\'s repositories, files, history, conversations and keys are indistinguishable from missing ones', async () => {
  const t = await createTestApp({ accounts: SHARE_TMP_WITH_EVERYONE });
  try {
    const a = addUser(t, { plan: 'PRO', credits: 1000 });
    const b = addUser(t, { plan: 'PRO', credits: 1000 });
    const folder = copyFixture('ts-paths');
    const indexed = await a.as('POST', '/v2/repos/index/new', { url: folder });
    assert.equal(indexed.status, 200, JSON.stringify(indexed.body));
    const repoA = indexed.body.data.repo.repo_id;
    await t.engine.queue.idle();
    const listed = await a.as('GET', `/v2/files/${repoA}?search=math`);
    const fileA = listed.body.data[0].id;
    const searched = await a.as('POST', '/v2/search', { query: 'area of a circle', repo_ids: [repoA] });
    assert.equal(searched.status, 200, JSON.stringify(searched.body));
    const history = await a.as('GET', '/v2/history?limit=5');
    const historyA = history.body.data[0].history_id ?? history.body.data[0].id;
    const conversationA = t.engine.history.record({ userId: a.userId, category: 'research', query: 'private question', newConversation: true }).conversationId!;
    const ghost = newId();

    const routes = (repo: string, file: string, hist: string, conv: string, key: string): [string, string, unknown?][] => [
      ['GET', `/v2/files/${repo}`],
      ['GET', `/v2/files/${repo}/${file}`],
      ['GET', `/v2/files/${repo}/src%2Flib%2Fmath.ts`],
      ['POST', `/v2/repos/${repo}/radius`, { file: 'src/lib/math.ts' }],
      ['GET', `/v2/repos/${repo}/blueprint`],
      ['POST', `/v2/repos/${repo}/scope`, { query: 'math' }],
      ['GET', `/v2/repos/${repo}/map`],
      ['GET', `/v2/repos/${repo}/coverage-gaps`],
      ['POST', '/v2/search', { query: 'area of a circle', repo_ids: [repo] }],
      ['POST', '/v2/search', { query: 'area', scan_mode: 'grep_code', repo_ids: [repo] }],
      ['GET', `/v2/history/${hist}`],
      ['GET', `/v2/history/conversation/${conv}`],
      ['POST', '/v2/search', { query: 'follow up question', chat: true, conversation_id: conv }],
      ['DELETE', `/v2/keys/${key}`],
    ];
    const real = routes(repoA, fileA, historyA, conversationA, a.keyId);
    const fake = routes(ghost, newId(), newId(), newId(), newId());
    const aBefore = t.engine.accounts.meta(a.userId);
    const aHistoryBefore = (await a.as('GET', '/v2/history?limit=100')).body.pagination.total;
    const bBefore = t.engine.accounts.meta(b.userId);
    const shape = (res: { status: number; body: any }, ids: string[]) => {
      let message = String(res.body?.message ?? '');
      for (const id of ids) message = message.split(id).join('<id>');
      return { status: res.status, code: res.body?.code, message };
    };
    for (let i = 0; i < real.length; i++) {
      const [method, url, body] = real[i];
      const theirs = await b.as(method, url, body, { accept: 'application/x-ndjson, application/json' });
      const [fm, fu, fb] = fake[i];
      const missing = await b.as(fm, fu, fb, { accept: 'application/x-ndjson, application/json' });
      assert.ok(theirs.status >= 400 && theirs.status < 500, `${method} ${url}: B got ${theirs.status} ${JSON.stringify(theirs.body).slice(0, 200)}`);
      assert.deepEqual(
        shape(theirs, [repoA, fileA, historyA, conversationA, a.keyId, folder]),
        shape(missing, [ghost, ...(fake[i][1].match(/[0-9a-f-]{36}/g) ?? []), ...JSON.stringify(fb ?? {}).match(/[0-9a-f-]{36}/g) ?? []]),
        `${method} ${url}: the answer about A's data differs from the answer about nothing`,
      );
    }
    assert.deepEqual(t.engine.accounts.meta(a.userId), aBefore, 'A was charged nothing');
    assert.deepEqual(t.engine.accounts.meta(b.userId), bBefore, 'B was charged nothing for refusals');
    const aHistory = await a.as('GET', '/v2/history?limit=100');
    assert.equal(aHistory.body.pagination.total, aHistoryBefore, 'no history rows were added to A');
  } finally {
    await t.close();
  }
});
