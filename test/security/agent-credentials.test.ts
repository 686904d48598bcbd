import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/engine';
import { addUser } from '../accounts/helpers';

/**
 * Attack: agent credentials as a resource to exhaust. 2,000 were minted in 27 s, never purged, and
 * GET /v2/keys answered all 2,032 at once; each was a key of its own, so one user also passed the
 * per-key stream cap (streams now count per user: stream-limits.test.ts). Live credentials are
 * capped per user (429 with Retry-After until the oldest expires), expired ones are purged a day
 * after expiry, and the key list is paged.
 */
test('live agent credentials are capped per user, expired ones purged, and GET /v2/keys is paged', async () => {
  const t = await createTestApp({ accounts: { maxLiveAgentCredentials: 5 } });
  try {
    const u = addUser(t, { plan: 'FREE', credits: 10 });
    const minted: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await u.as('POST', '/v2/agent/credentials', {});
      assert.equal(res.status, 200, JSON.stringify(res.body));
      minted.push(res.body.data.key);
    }
    const over = await u.as('POST', '/v2/agent/credentials', {});
    assert.equal(over.status, 429, JSON.stringify(over.body));
    assert.equal(over.body.code, 'RATE_LIMITED');
    assert.ok(Number(over.headers['retry-after']) > 0 && Number(over.headers['retry-after']) <= 15 * 60);
    // Minting from one of the credentials counts against the same user.
    const fromAgent = await t.call('POST', '/v2/agent/credentials', {}, { 'x-api-key': minted[0] });
    assert.equal(fromAgent.status, 429, 'a credential cannot mint past the cap either');
    // rotate: true replaces the key's live credentials instead of adding to them.
    const rotated = await u.as('POST', '/v2/agent/credentials', { rotate: true });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.equal(rotated.body.data.rotated, true);

    // Credentials that expired over a day ago are purged at the next mint.
    const before = t.engine.db.prepare("SELECT count(*) AS n FROM api_keys WHERE user_id = ? AND kind = 'agent'").get(u.userId) as { n: number };
    t.engine.db.prepare("UPDATE api_keys SET expires_at = ? WHERE user_id = ? AND kind = 'agent' AND state = 'disabled'")
      .run(new Date(Date.now() - 2 * 86_400_000).toISOString(), u.userId);
    assert.equal((await u.as('POST', '/v2/agent/credentials', {})).status, 200);
    const after = t.engine.db.prepare("SELECT count(*) AS n FROM api_keys WHERE user_id = ? AND kind = 'agent'").get(u.userId) as { n: number };
    assert.ok(after.n < before.n, `purged: ${before.n} → ${after.n}`);

    // Paged listing.
    const first = await u.as('GET', '/v2/keys?limit=2');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.data.length, 2);
    assert.equal(first.body.pagination.limit, 2);
    assert.ok(first.body.pagination.total > 2 && first.body.pagination.has_more);
    const rest = await u.as('GET', `/v2/keys?limit=100&offset=2`);
    assert.equal(rest.body.data.length, first.body.pagination.total - 2);
    const ids = [...first.body.data, ...rest.body.data].map((k: { key_id: string }) => k.key_id);
    assert.equal(new Set(ids).size, ids.length, 'no key on two pages');
    assert.equal((await u.as('GET', '/v2/keys?limit=101')).status, 400);
    assert.equal((await u.as('GET', '/v2/keys')).body.pagination.limit, 50, 'a page of 50 by default');
  } finally {
    await t.close();
  }
});
