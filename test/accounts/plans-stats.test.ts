import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, createTestApp, tempDir, SHARE_TMP_WITH_EVERYONE } from '../helpers/engine';
import { Stats } from '../../server/engine/accounts/stats';
import { addUser } from './helpers';

test('the repository cap is a 403 naming the plan needed; the owner is not capped; plans are configuration', async () => {
  const t = await createTestApp({ accounts: { plans: { FREE: { maxRepos: 1 } }, ...SHARE_TMP_WITH_EVERYONE } });
  try {
    const u = addUser(t, { plan: 'FREE' });
    const dirs = [0, 1].map((i) => {
      const d = path.join(tempDir(), `r${i}`);
      fs.mkdirSync(d);
      fs.writeFileSync(path.join(d, 'a.ts'), 'export const a = 1;\n');
      return d;
    });
    const first = await u.as('POST', '/v2/repos/index/new', { url: dirs[0] });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.meta.max_repos_allowed, 1);
    const second = await u.as('POST', '/v2/repos/index/new', { url: dirs[1] });
    assert.equal(second.status, 403);
    assert.equal(second.body.code, 'REPO_LIMIT_REACHED');
    assert.match(second.body.message, /FREE plan allows 1 .*the DEV plan allows 10/);
    for (const d of dirs) assert.equal((await t.call('POST', '/v2/repos/index/new', { url: d })).status, 200, 'the owner (ENTERPRISE) is not capped');
    await t.engine.queue.idle();

    const caller = (plan: string) => ({ userId: u.userId, keyId: u.keyId, plan, isOwner: false });
    assert.throws(() => t.engine.accounts.requireDepth(caller('FREE'), 'summary'), /summary depth needs the DEV plan/);
    assert.throws(() => t.engine.accounts.requireDepth(caller('DEV'), 'full'), /full depth needs the PRO plan/);
    t.engine.accounts.requireDepth(caller('PRO'), 'full');
    assert.equal(t.engine.accounts.includesSymbols(caller('FREE')), false);
    assert.equal(t.engine.accounts.includesSymbols(caller('DEV')), true);
    assert.throws(() => t.engine.accounts.requirePlan(caller('DEV'), 'PRO', 'conventions'), /conventions needs the PRO plan or higher; your plan is DEV/);
  } finally {
    await t.close();
  }
});

test('stats: usage by type, activity with zero days, languages; ranges 7d/30d/90d; another user sees only theirs', async () => {
  const t = await createTestApp({ accounts: SHARE_TMP_WITH_EVERYONE });
  const folder = copyFixture('ts-paths');
  try {
    await t.call('POST', '/v2/repos/index/new', { url: folder });
    await t.engine.queue.idle();
    await t.call('GET', '/v2/repos');
    await t.call('GET', '/v2/repos');
    t.engine.history.record({ userId: t.ownerId, category: 'search', query: 'q', credits: 5 });

    const usage = await t.call('GET', '/v2/stats/usage');
    assert.equal(usage.status, 200);
    assert.equal(usage.body.data.range, '7d');
    // Queries are history rows (the listings wrote none); calls and credits come from the ledger, listings included.
    assert.equal(usage.body.data.total_queries, 2);
    assert.deepEqual(usage.body.data.by_category.map((c: any) => [c.category, c.queries]), [['repos', 1], ['search', 1]]);
    assert.deepEqual(usage.body.data.by_operation, [{ operation: 'repos.list', calls: 2, credits: 2 }]);
    assert.equal(usage.body.data.credits_used, 2);

    for (const [range, days] of [['7d', 7], ['30d', 30], ['90d', 90]] as const) {
      const activity = await t.call('GET', `/v2/stats/activity?range=${range}`);
      assert.equal(activity.status, 200);
      assert.equal(activity.body.data.days.length, days);
      assert.equal(activity.body.data.days.at(-1).date, new Date().toISOString().slice(0, 10));
      assert.equal(activity.body.data.days.at(-1).queries, 2);
      assert.equal(activity.body.data.days.at(-1).credits, 2, 'the ledger\'s credits, listings included');
      assert.equal(activity.body.data.days.filter((d: any) => d.queries === 0).length, days - 1, 'zero days included');
    }
    assert.equal((await t.call('GET', '/v2/stats/activity?range=1y')).status, 400);
    assert.match((await t.call('GET', '/v2/stats/usage?range=14d')).body.message, /query.range: must be one of "7d", "30d", "90d"/);

    const langs = await t.call('GET', '/v2/stats/languages');
    assert.equal(langs.status, 200);
    const ts = langs.body.data.languages.find((l: any) => l.language === 'typescript');
    assert.ok(ts && ts.files >= 5, JSON.stringify(langs.body.data));
    assert.equal(langs.body.data.total_files, langs.body.data.languages.reduce((n: number, l: any) => n + l.files, 0));
    assert.equal((await t.call('GET', '/v2/stats/languages?range=30d')).body.data.total_files, langs.body.data.total_files);

    const b = addUser(t);
    const bl = await b.as('GET', '/v2/stats/languages');
    assert.equal(bl.body.data.total_files, 0);
    assert.equal((await b.as('GET', '/v2/stats/usage')).body.data.total_queries, 0);
  } finally {
    await t.close();
  }
});

test('activity windows are whole UTC days ending today, older rows fall out', async () => {
  const t = await createTestApp();
  try {
    const now = Date.parse('2025-03-10T12:00:00Z');
    const stats = new Stats(t.engine.history.store, t.engine.accounts, () => now);
    for (const [at, n] of [['2025-03-10T01:00:00.000Z', 2], ['2025-03-04T00:00:00.000Z', 1], ['2025-03-03T23:59:59.999Z', 1], ['2025-03-03T11:00:00.000Z', 1]] as const) {
      for (let i = 0; i < n; i++) {
        t.engine.history.store.insert({ id: crypto.randomUUID(), user_id: t.ownerId, conversation_id: null, seq: 0, category: 'search', operation: 'search.run',
          query: null, repo_ids: '[]', summary: null, result: null, credits: 5, duration_ms: 1, created_at: at });
      }
    }
    const week = stats.activity(t.ownerId, '7d');
    assert.equal(week.from, '2025-03-04');
    assert.equal(week.to, '2025-03-10');
    assert.deepEqual(week.days.map((d) => d.queries), [1, 0, 0, 0, 0, 0, 2]);
    assert.equal(stats.activity(t.ownerId, '30d').total_queries, 5);
    assert.equal(stats.usage(t.ownerId, '7d').total_queries, 4, 'rolling: 2025-03-03T12:00Z onwards');
  } finally {
    await t.close();
  }
});
