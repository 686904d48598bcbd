import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadAccountsConfig, parseAccountsConfig } from '../../server/engine/accounts/config-file';
import { createTestApp, tempDir } from '../helpers/engine';

test('DATA_DIR/accounts.json configures plans, costs and the owner; mistakes name the field', async () => {
  const dir = tempDir();
  assert.deepEqual(loadAccountsConfig(path.join(dir, 'accounts.json')), {}, 'no file: the defaults');
  fs.writeFileSync(path.join(dir, 'accounts.json'), JSON.stringify({
    owner: { credits: 7 }, plans: { FREE: { maxRepos: 5, depths: ['basic', 'summary'] } }, costs: { 'repos.list': 2 }, signupPlan: 'DEV',
  }));
  const config = loadAccountsConfig(path.join(dir, 'accounts.json'));
  const t = await createTestApp({ dataDir: dir, accounts: config });
  try {
    const res = await t.call('GET', '/v2/repos');
    assert.deepEqual([res.body.meta.credits_used, res.body.meta.credits_remaining], [2, 5]);
    assert.equal(t.engine.accounts.planOf('FREE').maxRepos, 5);
    assert.deepEqual(t.engine.accounts.planOf('FREE').depths, ['basic', 'summary']);
    assert.equal(t.engine.accounts.planOf('FREE').credits, 500, 'unspecified fields keep their defaults');
  } finally {
    await t.close();
  }
  for (const [raw, message] of [
    [{ plans: { GOLD: {} } }, /plans.GOLD: must be one of FREE, DEV, PRO, ENTERPRISE/],
    [{ plans: { FREE: { maxRepos: -1 } } }, /plans.FREE.maxRepos: must be a whole number >= 0/],
    [{ plans: { FREE: { depths: ['deep'] } } }, /plans.FREE.depths: must be a list/],
    [{ costs: { 'search.run': 1.5 } }, /costs.search.run: must be a whole number/],
    [{ owner: { credits: '10' } }, /owner.credits: must be a whole number/],
    [{ owner: { plan: 'free' } }, /owner.plan: must be one of/],
    [{ extra: 1 }, /extra: is not a known field/],
    [[], /must be an object/],
  ] as const) {
    assert.throws(() => parseAccountsConfig(raw), (e: Error) => message.test(e.message), JSON.stringify(raw));
  }
  fs.writeFileSync(path.join(dir, 'accounts.json'), '{ nope');
  assert.throws(() => loadAccountsConfig(path.join(dir, 'accounts.json')), /is not valid JSON/);
});
