import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestApp } from '../helpers/engine';
import { createLogger } from '../../server/engine/log';
import { startSidecar } from '../../server/host';
import { startInbox } from './smtp';

const smtp = (port: number) => ({ auth: { smtp: { host: '127.0.0.1', port, from: 'Loupe <loupe@test.local>', timeoutMs: 3000 } } });

test('OTP sign-up as a script does it: authenticate → code by real SMTP → verify → use the key', async () => {
  const inbox = await startInbox({ user: 'mailer', password: 'relay-secret' });
  const t = await createTestApp({ accounts: { auth: { smtp: { host: '127.0.0.1', port: inbox.port, user: 'mailer', password: 'relay-secret', timeoutMs: 3000 } } } });
  const sidecar = await startSidecar(t.engine, { host: '127.0.0.1', port: 0 });
  const post = async (p: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${sidecar.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() as any, headers: res.headers };
  };
  const get = async (p: string, headers: Record<string, string>) => {
    const res = await fetch(`${sidecar.url}${p}`, { headers });
    return { status: res.status, body: await res.json() as any };
  };
  try {
    const signup = await post('/v2/auth/authenticate', { auth_mode: 'otp', email: 'Ada@Example.test', should_create_user: true, data: { full_name: 'Ada' } });
    assert.equal(signup.status, 200, JSON.stringify(signup.body));
    const { data } = signup.body;
    assert.equal(data.email, 'ada@example.test');
    assert.equal(data.verification_required, true);
    assert.equal(data.session, null);
    assert.equal(data.api_key.key_state, 'agent_pending');
    const key = data.api_key.key;
    assert.equal((await get('/v2/repos', { 'x-api-key': key })).status, 401, 'a pending key is not usable yet');

    const mail = await inbox.next('ada@example.test');
    assert.match(mail.subject ?? '', /Your Loupe code: \d{6}/);
    const code = /\b(\d{6})\b/.exec(mail.text ?? '')![1];
    assert.match(mail.text ?? '', /expires in 10 minutes/);

    const wrong = await post('/v2/auth/verify', { email: 'ada@example.test', token: code === '000000' ? '111111' : '000000' });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.code, 'INVALID_CODE');

    const verified = await post('/v2/auth/verify', { email: 'ADA@example.test', token: code });
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    assert.equal(verified.body.data.user_id, data.user_id);
    assert.equal(verified.body.data.api_key.key_state, 'active');
    assert.equal(verified.body.data.api_key.key_id, data.api_key.key_id);
    const session = verified.body.data.session;
    assert.equal(session.token_type, 'bearer');
    assert.ok(Date.parse(session.expires_at) > Date.now() + 29 * 86_400_000);

    const repos = await get('/v2/repos', { 'x-api-key': key });
    assert.equal(repos.status, 200);
    assert.equal(repos.body.meta.tier, 'FREE');
    assert.equal(repos.body.meta.credits_used, 1);
    const viaSession = await get('/v2/keys', { authorization: `Bearer ${session.access_token}` });
    assert.equal(viaSession.status, 200);
    assert.equal(viaSession.body.data[0].key_id, data.api_key.key_id);

    const again = await post('/v2/auth/verify', { email: 'ada@example.test', token: code });
    assert.equal(again.status, 400, 'a code works once');
    assert.equal(again.body.message, wrong.body.message);
  } finally {
    await sidecar.close();
    await t.close();
    await inbox.close();
  }
});

test('OTP sign-in: unknown and known addresses get the same answer; wrong, expired, used and unknown codes the same 400', async () => {
  const inbox = await startInbox();
  const t = await createTestApp({ accounts: { auth: {
    ...smtp(inbox.port).auth, otpTtlMs: 1500,
    rateLimits: {
      resend: { email: { max: 10, windowMs: 60_000 }, client: { max: 10, windowMs: 60_000 } },
      verify: { email: { max: 30, windowMs: 60_000 }, client: { max: 30, windowMs: 60_000 } },
    },
  } } });
  const post = (p: string, body: unknown) => t.app.inject({ method: 'POST', url: p, payload: body as object }).then((r) => ({ status: r.statusCode, body: JSON.parse(r.body) }));
  try {
    await post('/v2/auth/authenticate', { mode: 'otp', email: 'bo@example.test', should_create_user: true });
    await post('/v2/auth/verify', { email: 'bo@example.test', token: await inbox.code('bo@example.test') });

    const known = await post('/v2/auth/authenticate', { auth_mode: 'otp', email: 'bo@example.test' });
    const unknown = await post('/v2/auth/authenticate', { auth_mode: 'otp', email: 'nobody@example.test' });
    assert.equal(known.status, 200);
    assert.equal(unknown.status, 200);
    assert.deepEqual({ ...known.body, meta: null, data: { ...known.body.data, email: null } }, { ...unknown.body, meta: null, data: { ...unknown.body.data, email: null } });
    assert.equal(known.body.data.api_key, null);

    const code = await inbox.code('bo@example.test');
    const unknownVerify = await post('/v2/auth/verify', { email: 'nobody@example.test', token: '123456' });
    const wrongVerify = await post('/v2/auth/verify', { email: 'bo@example.test', token: code === '123456' ? '654321' : '123456' });
    assert.deepEqual([unknownVerify.status, unknownVerify.body.code, unknownVerify.body.message], [wrongVerify.status, wrongVerify.body.code, wrongVerify.body.message]);

    const ok = await post('/v2/auth/verify', { email: 'bo@example.test', token: code });
    assert.equal(ok.status, 200);
    const signinKey = ok.body.data.api_key.key;
    assert.match(signinKey, /^[0-9a-f-]{36}$/, 'a sign-in mints a key that expires with the session');
    const keys = await t.call('GET', '/v2/keys', undefined, { 'x-api-key': signinKey });
    assert.equal(keys.status, 200);
    assert.deepEqual(keys.body.data.map((k: any) => k.kind).sort(), ['primary', 'session']);
    assert.equal(keys.body.data.find((k: any) => k.kind === 'session').expires_at, ok.body.data.session.expires_at);

    // Expiry: a code older than its lifetime is refused like a wrong one.
    await post('/v2/auth/authenticate', { auth_mode: 'otp', email: 'bo@example.test' });
    const late = await inbox.code('bo@example.test');
    await new Promise((r) => setTimeout(r, 1600));
    const expired = await post('/v2/auth/verify', { email: 'bo@example.test', token: late });
    assert.deepEqual([expired.status, expired.body.message], [400, wrongVerify.body.message]);

    // Five wrong guesses end a code, even for the right one afterwards.
    await post('/v2/auth/resend', { email: 'bo@example.test', type: 'email' });
    const fresh = await inbox.code('bo@example.test');
    const other = fresh === '999999' ? '000000' : '999999';
    for (let i = 0; i < 5; i++) assert.equal((await post('/v2/auth/verify', { email: 'bo@example.test', token: other })).status, 400);
    assert.equal((await post('/v2/auth/verify', { email: 'bo@example.test', token: fresh })).status, 400);

    // A new code supersedes the previous one.
    await post('/v2/auth/resend', { email: 'bo@example.test', type: 'email' });
    const first = await inbox.code('bo@example.test');
    await post('/v2/auth/resend', { email: 'bo@example.test', type: 'email' });
    const second = await inbox.code('bo@example.test');
    if (first !== second) assert.equal((await post('/v2/auth/verify', { email: 'bo@example.test', token: first })).status, 400);
    assert.equal((await post('/v2/auth/verify', { email: 'bo@example.test', token: second })).status, 200);

    const resendUnknown = await post('/v2/auth/resend', { email: 'ghost@example.test' });
    assert.equal(resendUnknown.status, 200);
    assert.equal(inbox.messages.filter((m) => JSON.stringify(m.to).includes('ghost')).length, 0);
  } finally {
    await t.close();
    await inbox.close();
  }
});

test('password sign-up and sign-in: header only, scrypt, minimum length, never echoed or logged', async () => {
  const lines: string[] = [];
  // Keys active at once (the opt-out of confirming the address; the default is in test/security/signup-enumeration.test.ts).
  const t = await createTestApp({ log: createLogger((_l, line) => lines.push(line), 'debug'), accounts: { auth: { passwordSignupRequiresVerification: false } } });
  const password = 'correct horse battery';
  const auth = (body: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/v2/auth/authenticate', payload: body as object, headers }).then((r) => ({ status: r.statusCode, body: JSON.parse(r.body), raw: r.body }));
  try {
    const inBody = await auth({ auth_mode: 'password', email: 'cy@example.test', should_create_user: true, password });
    assert.equal(inBody.status, 400);
    assert.match(inBody.body.message, /password: must not be sent in the body/);
    assert.ok(!inBody.raw.includes(password));

    const short = await auth({ auth_mode: 'password', email: 'cy@example.test', should_create_user: true }, { 'x-service-auth-password': 'short' });
    assert.equal(short.status, 400);
    assert.match(short.body.message, /at least 10 characters/);
    const missing = await auth({ auth_mode: 'password', email: 'cy@example.test', should_create_user: true });
    assert.match(missing.body.message, /X-Service-Auth-Password: is required/);

    const signup = await auth({ mode: 'password', email: 'cy@example.test', should_create_user: true, data: { full_name: 'Cy' } }, { 'x-service-auth-password': password });
    assert.equal(signup.status, 200, signup.raw);
    assert.equal(signup.body.data.verification_required, false);
    assert.equal(signup.body.data.api_key.key_state, 'active');
    assert.ok(signup.body.data.session.access_token);
    assert.equal((await t.call('GET', '/v2/repos', undefined, { 'x-api-key': signup.body.data.api_key.key })).status, 200, 'usable at once');
    const stored = t.engine.accounts.store.userByEmail('cy@example.test')!;
    assert.match(stored.password_hash!, /^scrypt\$32768\$8\$1\$/);
    assert.ok(!stored.password_hash!.includes(password));

    const twice = await auth({ auth_mode: 'password', email: 'cy@example.test', should_create_user: true }, { 'x-service-auth-password': password });
    assert.equal(twice.status, 409);

    const signin = await auth({ auth_mode: 'password', email: 'cy@example.test' }, { 'x-auth-password': password });
    assert.equal(signin.status, 200);
    assert.notEqual(signin.body.data.api_key.key, signup.body.data.api_key.key);
    assert.equal((await t.call('GET', '/v2/keys', undefined, { 'x-api-key': signin.body.data.api_key.key })).status, 200);

    const wrong = await auth({ auth_mode: 'password', email: 'cy@example.test' }, { 'x-service-auth-password': 'wrong password here' });
    const unknown = await auth({ auth_mode: 'password', email: 'nobody@example.test' }, { 'x-service-auth-password': password });
    assert.deepEqual([wrong.status, wrong.body.code, wrong.body.message], [400, 'INVALID_CREDENTIALS', 'email or password is incorrect']);
    assert.deepEqual([unknown.status, unknown.body.code, unknown.body.message], [wrong.status, wrong.body.code, wrong.body.message]);

    const mismatch = await auth({ auth_mode: 'otp', mode: 'password', email: 'cy@example.test' });
    assert.match(mismatch.body.message, /mode: is an alias of auth_mode/);
    const noMode = await auth({ email: 'cy@example.test' });
    assert.match(noMode.body.message, /auth_mode: is required/);
    const badEmail = await auth({ auth_mode: 'otp', email: 'not-an-email' });
    assert.match(badEmail.body.message, /email: must match format "email"/);
    assert.ok(lines.every((l) => !l.includes(password)), 'no password in the log');
  } finally {
    await t.close();
  }
});

test('rate limits per email and per client give 429 with Retry-After', async () => {
  const t = await createTestApp({
    accounts: { auth: { rateLimits: {
      authenticate: { email: { max: 2, windowMs: 60_000 }, client: { max: 3, windowMs: 60_000 } },
      resend: { email: { max: 1, windowMs: 60_000 }, client: { max: 10, windowMs: 60_000 } },
    } } },
  });
  const post = (p: string, body: unknown, ip = '127.0.0.1') => t.app.inject({ method: 'POST', url: p, payload: body as object, remoteAddress: ip })
    .then((r) => ({ status: r.statusCode, body: JSON.parse(r.body), headers: r.headers }));
  try {
    assert.equal((await post('/v2/auth/authenticate', { auth_mode: 'otp', email: 'a@example.test' })).status, 200);
    assert.equal((await post('/v2/auth/authenticate', { auth_mode: 'otp', email: 'a@example.test' })).status, 200);
    const limited = await post('/v2/auth/authenticate', { auth_mode: 'otp', email: 'a@example.test' });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.code, 'RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) >= 1 && Number(limited.headers['retry-after']) <= 60);
    assert.equal(limited.body.retry_after, Number(limited.headers['retry-after']));
    // Per client (a remote address): a third address from the same client is the client's third call.
    assert.equal((await post('/v2/auth/authenticate', { auth_mode: 'otp', email: 'b1@example.test' }, '10.0.0.1')).status, 200);
    assert.equal((await post('/v2/auth/authenticate', { auth_mode: 'otp', email: 'b2@example.test' }, '10.0.0.1')).status, 200);
    assert.equal((await post('/v2/auth/authenticate', { auth_mode: 'otp', email: 'b3@example.test' }, '10.0.0.1')).status, 200);
    assert.equal((await post('/v2/auth/authenticate', { auth_mode: 'otp', email: 'c@example.test' }, '10.0.0.1')).status, 429);
    assert.equal((await post('/v2/auth/authenticate', { auth_mode: 'otp', email: 'c@example.test' }, '10.0.0.2')).status, 200);
    assert.equal((await post('/v2/auth/resend', { email: 'z@example.test' })).status, 200);
    assert.equal((await post('/v2/auth/resend', { email: 'z@example.test' })).status, 429);
  } finally {
    await t.close();
  }
});

test('mail transport down: 503, nothing lost, the sign-up completes once mail is back', async () => {
  const probe = await startInbox();
  const port = probe.port;
  await probe.close();
  const t = await createTestApp({ accounts: smtp(port) });
  const post = (p: string, body: unknown) => t.app.inject({ method: 'POST', url: p, payload: body as object }).then((r) => ({ status: r.statusCode, body: JSON.parse(r.body), headers: r.headers }));
  let inbox;
  try {
    const down = await post('/v2/auth/authenticate', { auth_mode: 'otp', email: 'dee@example.test', should_create_user: true });
    assert.equal(down.status, 503, JSON.stringify(down.body));
    assert.equal(down.body.code, 'SERVICE_UNAVAILABLE');
    assert.ok(down.headers['retry-after']);
    const user = t.engine.accounts.store.userByEmail('dee@example.test');
    assert.ok(user, 'the account is kept');

    inbox = await startInbox({ port });
    const retry = await post('/v2/auth/authenticate', { auth_mode: 'otp', email: 'dee@example.test', should_create_user: true });
    assert.equal(retry.status, 200);
    assert.equal(retry.body.data.user_id, user.id, 'the same account');
    const verified = await post('/v2/auth/verify', { email: 'dee@example.test', token: await inbox.code('dee@example.test') });
    assert.equal(verified.status, 200);
    assert.equal((await t.call('GET', '/v2/repos', undefined, { 'x-api-key': retry.body.data.api_key.key })).status, 200);
    const states = t.engine.accounts.listKeys(user.id).items.map((k) => k.state).sort();
    assert.deepEqual(states, ['active', 'disabled'], 'the pending key whose plaintext never reached anyone is retired');
  } finally {
    await t.close();
    await inbox?.close();
  }
});

test('without SMTP the code goes to DATA_DIR/outbox, the log and mail listeners', async () => {
  const lines: string[] = [];
  const t = await createTestApp({ log: createLogger((_l, line) => lines.push(line), 'info') });
  const heard: string[] = [];
  t.engine.auth.onMail((m) => heard.push(`${m.via}:${m.to}`));
  try {
    const res = await t.app.inject({ method: 'POST', url: '/v2/auth/authenticate', payload: { auth_mode: 'otp', email: 'eve@example.test', should_create_user: true } });
    assert.equal(res.statusCode, 200);
    const outbox = path.join(t.dataDir, 'outbox');
    const files = fs.readdirSync(outbox);
    assert.equal(files.length, 1);
    const eml = fs.readFileSync(path.join(outbox, files[0]), 'utf8');
    const code = /code is (\d{6})/.exec(eml)![1];
    assert.ok(lines.some((l) => l.includes('eve@example.test') && l.includes(code)));
    assert.deepEqual(heard, ['outbox:eve@example.test']);
    const verify = await t.app.inject({ method: 'POST', url: '/v2/auth/verify', payload: { email: 'eve@example.test', token: code } });
    assert.equal(verify.statusCode, 200);
  } finally {
    await t.close();
  }
});

test('SMTP with STARTTLS: required TLS is used when offered, and refused (503) when the server has none', async () => {
  const tls = await startInbox({ starttls: true });
  const plain = await startInbox();
  const make = (port: number) => createTestApp({ accounts: { auth: { smtp: { host: '127.0.0.1', port, requireTls: true, allowSelfSigned: true, timeoutMs: 3000 } } } });
  const a = await make(tls.port);
  const b = await make(plain.port);
  const signup = (t: Awaited<ReturnType<typeof make>>) => t.app.inject({ method: 'POST', url: '/v2/auth/authenticate', payload: { auth_mode: 'otp', email: 'tls@example.test', should_create_user: true } });
  try {
    assert.equal((await signup(a)).statusCode, 200);
    assert.match(await tls.code('tls@example.test'), /^\d{6}$/);
    assert.equal((await signup(b)).statusCode, 503, 'no plaintext fallback when TLS is required');
    assert.equal(plain.messages.length, 0);
  } finally {
    await a.close();
    await b.close();
    await tls.close();
    await plain.close();
  }
});
