import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/engine';

/** Everything a client sees of an answer, with the values that differ on every call blanked. */
function seen(res: { statusCode: number; body: string; headers: Record<string, unknown> }) {
  const blank = (v: unknown): unknown => (typeof v === 'string' && /^[0-9a-f-]{36}$/.test(v) ? '<uuid>'
    : Array.isArray(v) ? v.map(blank) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'email' ? '<email>' : k === 'updated_at' ? '<time>' : blank(x)])) : v);
  return { status: res.statusCode, body: blank(JSON.parse(res.body)), type: res.headers['content-type'] };
}

/**
 * Attack: sign up with an address to learn whether it has an account (409 "exists" vs 200). A
 * sign-up of a known address, by password or by code, answers exactly as one of a new address:
 * same status, same fields, a made-up pending key; the account is untouched and its owner gets a
 * sign-in code, not the attacker.
 */
test('sign-up of an address that has an account is indistinguishable from a new sign-up (password and code), and changes nothing', async () => {
  const t = await createTestApp();
  try {
    const post = (body: unknown, password?: string) => t.app.inject({
      method: 'POST', url: '/v2/auth/authenticate', payload: body as object,
      headers: password ? { 'x-service-auth-password': password } : {},
    });
    const first = await post({ auth_mode: 'password', email: 'known@example.test', should_create_user: true }, 'first password here');
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(JSON.parse(first.body).data.verification_required, true, 'a password sign-up confirms the address first');
    const account = t.engine.accounts.store.userByEmail('known@example.test')!;
    const keysBefore = t.engine.accounts.store.keysOf(account.id).map((k) => [k.id, k.state]);

    for (const mode of ['password', 'otp'] as const) {
      const known = await post({ auth_mode: mode, email: 'known@example.test', should_create_user: true }, mode === 'password' ? 'attacker password 1' : undefined);
      const fresh = await post({ auth_mode: mode, email: `new-${mode}@example.test`, should_create_user: true }, mode === 'password' ? 'attacker password 1' : undefined);
      assert.deepEqual(seen(known), seen(fresh), `${mode}: the same status and body`);
      assert.equal(known.statusCode, 200);
      // The made-up key is no key.
      const madeUp = JSON.parse(known.body).data.api_key.key;
      assert.equal((await t.app.inject({ method: 'GET', url: '/v2/repos', headers: { 'x-api-key': madeUp } })).statusCode, 401);
    }
    const after = t.engine.accounts.store.userByEmail('known@example.test')!;
    assert.equal(after.password_hash, account.password_hash, 'the password was not replaced');
    assert.deepEqual(t.engine.accounts.store.keysOf(account.id).map((k) => [k.id, k.state]), keysBefore, 'no key added or changed');
    // An unconfirmed password account cannot sign in with the password alone.
    const signin = await t.app.inject({ method: 'POST', url: '/v2/auth/authenticate', payload: { auth_mode: 'password', email: 'known@example.test' }, headers: { 'x-auth-password': 'first password here' } });
    assert.equal(signin.statusCode, 400);
    assert.equal(JSON.parse(signin.body).code, 'INVALID_CREDENTIALS');
  } finally {
    await t.close();
  }
});
