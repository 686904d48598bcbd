import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/engine';

/**
 * Attack: every local caller is 127.0.0.1, so an auth rate limit keyed by the client address alone
 * lets one local process (40 sign-in attempts with made-up addresses) block every sign-in on the
 * machine for ten minutes. Limits are per email address, and a loopback client's count is per
 * address and email: the flood is refused for its own addresses only; others still sign in.
 */
test('one local caller flooding /v2/auth cannot lock the other local callers out; each address is still limited', async () => {
  const t = await createTestApp();
  const post = (email: string, ip = '127.0.0.1') => t.app.inject({ method: 'POST', url: '/v2/auth/authenticate', payload: { auth_mode: 'otp', email }, remoteAddress: ip })
    .then((r) => r.statusCode);
  try {
    const flood = [];
    for (let i = 0; i < 40; i++) flood.push(await post(`flood-${i}@example.test`));
    assert.deepEqual(flood, Array(40).fill(200), 'distinct addresses are each within their own limits');
    assert.equal(await post('victim@example.test'), 200, 'another local caller still gets through');
    // The per-address limit holds (10 in ten minutes): guessing one account is still stopped.
    const same = [];
    for (let i = 0; i < 11; i++) same.push(await post('target@example.test'));
    assert.equal(same.filter((s) => s === 429).length, 1);
    assert.equal(await post('victim@example.test'), 200);
    // A remote address is still limited as a client (30 in ten minutes).
    const remote = [];
    for (let i = 0; i < 31; i++) remote.push(await post(`remote-${i}@example.test`, '10.1.2.3'));
    assert.equal(remote.at(-1), 429);
    assert.equal(await post('other-remote@example.test', '10.1.2.4'), 200);
  } finally {
    await t.close();
  }
});
