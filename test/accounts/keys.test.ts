import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/engine';
import { addUser } from './helpers';

test('keys: listed masked, rotated (old primary 401), disabled (401), another user\'s key id 404', async () => {
  const t = await createTestApp();
  try {
    const a = addUser(t);
    const b = addUser(t);
    const list = await a.as('GET', '/v2/keys');
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 1);
    const [item] = list.body.data;
    assert.equal(item.key_id, a.keyId);
    assert.equal(item.key, `${a.key.slice(0, 4)}…${a.key.slice(-4)}`);
    assert.ok(!JSON.stringify(list.body).includes(a.key), 'never the plaintext');
    assert.equal(item.state, 'active');
    assert.ok(item.last_used_at, 'last use is recorded');

    const empty = await a.as('POST', '/v2/keys/regenerate', {});
    assert.equal(empty.status, 200, JSON.stringify(empty.body));
    const fresh = empty.body.data.key;
    assert.deepEqual(empty.body.data.replaced_key_ids, [a.keyId]);
    assert.equal((await a.as('GET', '/v2/keys')).status, 401, 'the old primary stops working');
    const withNew = await t.call('GET', '/v2/keys', undefined, { 'x-api-key': fresh });
    assert.equal(withNew.status, 200);
    assert.deepEqual(withNew.body.data.map((k: any) => [k.state, k.primary]).sort(), [['active', true], ['disabled', false]]);
    const noBody = await t.app.inject({ method: 'POST', url: '/v2/keys/regenerate', headers: { 'x-api-key': fresh } });
    assert.equal(noBody.statusCode, 200, noBody.body);
    const third = JSON.parse(noBody.body).data.key;
    const junk = await t.call('POST', '/v2/keys/regenerate', { x: 1 }, { 'x-api-key': third });
    assert.equal(junk.status, 400);

    // B cannot disable A's key: 404, and A's key keeps working.
    const thirdId = JSON.parse(noBody.body).data.key_id;
    const foreign = await b.as('DELETE', `/v2/keys/${thirdId}`);
    assert.equal(foreign.status, 404);
    assert.equal((await t.call('GET', '/v2/keys', undefined, { 'x-api-key': third })).status, 200);
    assert.equal((await b.as('DELETE', '/v2/keys/not-a-uuid')).status, 404);

    const disabled = await t.call('DELETE', `/v2/keys/${thirdId}`, undefined, { 'x-api-key': third });
    assert.equal(disabled.status, 200);
    assert.equal(disabled.body.data.state, 'disabled');
    const after = await t.call('GET', '/v2/keys', undefined, { 'x-api-key': third });
    assert.equal(after.status, 401);
    assert.equal(after.body.code, 'UNAUTHORIZED');
  } finally {
    await t.close();
  }
});

test('agent credentials: usable as X-API-Key until they expire; rotation and a disabled parent end them', async () => {
  const t = await createTestApp({ accounts: { agentCredentialTtlMs: 1200 } });
  try {
    const a = addUser(t, { credits: 100 });
    const minted = await a.as('POST', '/v2/agent/credentials');
    assert.equal(minted.status, 200, JSON.stringify(minted.body));
    const cred = minted.body.data;
    assert.equal(cred.parent_key_id, a.keyId);
    assert.equal(cred.rotated, false);
    const asAgent = (key: string) => t.call('GET', '/v2/repos', undefined, { 'x-api-key': key });
    const used = await asAgent(cred.key);
    assert.equal(used.status, 200);
    assert.equal(used.body.meta.credits_used, 1, 'charged to the same user');

    const refreshed = await t.call('POST', '/v2/agent/credentials', {}, { 'x-api-key': cred.key });
    assert.equal(refreshed.body.data.parent_key_id, a.keyId, 'refreshing from a credential keeps the parent');
    const rotated = await a.as('POST', '/v2/agent/credentials', { rotate: true });
    assert.equal(rotated.body.data.rotated, true);
    assert.equal((await asAgent(cred.key)).status, 401, 'rotation disabled the earlier credentials');
    assert.equal((await asAgent(refreshed.body.data.key)).status, 401);
    assert.equal((await asAgent(rotated.body.data.key)).status, 200);

    await new Promise((r) => setTimeout(r, 1300));
    assert.equal((await asAgent(rotated.body.data.key)).status, 401, 'expired');
    const keys = await a.as('GET', '/v2/keys');
    assert.ok(keys.body.data.filter((k: any) => k.kind === 'agent').every((k: any) => k.state === 'disabled'));

    const last = await a.as('POST', '/v2/agent/credentials');
    await a.as('DELETE', `/v2/keys/${a.keyId}`);
    assert.equal((await asAgent(last.body.data.key)).status, 401, 'a disabled parent disables its credentials');
    assert.equal((await t.call('POST', '/v2/agent/credentials', { rotate: 'yes' })).status, 400);
  } finally {
    await t.close();
  }
});
