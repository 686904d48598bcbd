import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { createTestApp } from '../helpers/engine';
import { createLogger } from '../../server/engine/log';
import { startSidecar } from '../../server/host';
import { startInbox } from '../accounts/smtp';

/**
 * Runs the flows that handle secrets (sign-up by emailed code and by password, keys regenerated
 * and disabled, a private GitHub URL, mail through an authenticating SMTP relay, wrong keys) with
 * known secret values, then looks for those values in every log line, every response (except the
 * one that creates the secret), every row of every table and every file in the data dir.
 */
interface Seen { label: string; status: number; text: string }

const hex = (n: number) => randomBytes(n).toString('hex');

test('secrets never appear in logs, errors, history, other responses or the database', { timeout: 60_000 }, async () => {
  const smtpPassword = `smtp-${hex(12)}`;
  const githubToken = `ghp_${hex(18)}`;
  const password = `pw-${hex(10)} horse battery`;
  const wrongPassword = `wrong-${hex(10)} staple`;
  const lines: string[] = [];
  const inbox = await startInbox({ user: 'relay', password: smtpPassword });
  const t = await createTestApp({
    log: createLogger((level, line) => lines.push(`[${level}] ${line}`), 'debug'),
    githubToken,
    accounts: { auth: { smtp: { host: '127.0.0.1', port: inbox.port, user: 'relay', password: smtpPassword, timeoutMs: 3000 }, passwordSignupRequiresVerification: false } },
  });
  const sidecar = await startSidecar(t.engine, { host: '127.0.0.1', port: 0 });
  const seen: Seen[] = [];
  const call = async (label: string, method: string, p: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${sidecar.url}${p}`, {
      method, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    const headerLines: string[] = [];
    res.headers.forEach((value, name) => headerLines.push(`${name}: ${value}`));
    seen.push({ label, status: res.status, text: `${headerLines.join('\n')}\n${text}` });
    let json: any = null;
    try { json = JSON.parse(text); } catch { /* NDJSON or empty */ }
    return { status: res.status, body: json, text };
  };
  const owner = { 'x-api-key': t.key };
  const secrets: Record<string, string> = { ownerKey: t.key, smtpPassword, githubToken, password, wrongPassword };
  /** Responses allowed to carry a secret: the ones that hand it out. */
  const creators: Record<string, string[]> = {};

  try {
    // OTP sign-up through the authenticating relay.
    const signup = await call('otp-signup', 'POST', '/v2/auth/authenticate', { auth_mode: 'otp', email: 'ada@example.test', should_create_user: true });
    assert.equal(signup.status, 200, signup.text);
    secrets.adaKey = signup.body.data.api_key.key;
    creators.adaKey = ['otp-signup'];
    const code = await inbox.code('ada@example.test');
    secrets.otpCode = code;
    const wrongCode = code === '000000' ? '111111' : '000000';
    assert.equal((await call('otp-wrong', 'POST', '/v2/auth/verify', { email: 'ada@example.test', token: wrongCode })).status, 400);
    const verified = await call('otp-verify', 'POST', '/v2/auth/verify', { email: 'ada@example.test', token: code });
    assert.equal(verified.status, 200, verified.text);
    secrets.adaSession = verified.body.data.session.access_token;
    creators.adaSession = ['otp-verify'];
    creators.adaKey.push('otp-verify'); // the verify answer repeats the key it activated

    const ada = { 'x-api-key': secrets.adaKey };
    assert.equal((await call('ada-repos', 'GET', '/v2/repos', undefined, ada)).status, 200);
    assert.equal((await call('ada-keys', 'GET', '/v2/keys', undefined, ada)).status, 200);
    assert.equal((await call('ada-keys-by-session', 'GET', '/v2/keys', undefined, { authorization: `Bearer ${secrets.adaSession}` })).status, 200);
    const regenerated = await call('ada-regenerate', 'POST', '/v2/keys/regenerate', {}, ada);
    assert.equal(regenerated.status, 200, regenerated.text);
    secrets.adaKey2 = regenerated.body.data.key;
    creators.adaKey2 = ['ada-regenerate'];
    assert.equal((await call('ada-old-key', 'GET', '/v2/repos', undefined, ada)).status, 401);
    assert.equal((await call('ada-keys-after', 'GET', '/v2/keys', undefined, { 'x-api-key': secrets.adaKey2 })).status, 200);
    const agent = await call('ada-agent', 'POST', '/v2/agent/credentials', {}, { 'x-api-key': secrets.adaKey2 });
    if (agent.status === 200 && agent.body?.data?.key) { secrets.agentKey = agent.body.data.key; creators.agentKey = ['ada-agent']; }

    // Password sign-up and sign-in; wrong password; a password in the body.
    const pwSignup = await call('pw-signup', 'POST', '/v2/auth/authenticate', { auth_mode: 'password', email: 'bo@example.test', should_create_user: true }, { 'x-service-auth-password': password });
    assert.equal(pwSignup.status, 200, pwSignup.text);
    for (const [name, value] of [['boKey', pwSignup.body.data.api_key?.key], ['boSession', pwSignup.body.data.session?.access_token]] as const) {
      if (value) { secrets[name] = value; creators[name] = ['pw-signup']; }
    }
    const pwSignin = await call('pw-signin', 'POST', '/v2/auth/authenticate', { auth_mode: 'password', email: 'bo@example.test' }, { 'x-auth-password': password });
    assert.equal(pwSignin.status, 200, pwSignin.text);
    for (const [name, value] of [['boSigninKey', pwSignin.body.data.api_key?.key], ['boSigninSession', pwSignin.body.data.session?.access_token]] as const) {
      if (value && !Object.values(secrets).includes(value)) { secrets[name] = value; creators[name] = ['pw-signin']; }
    }
    const wrong = await call('pw-wrong', 'POST', '/v2/auth/authenticate', { auth_mode: 'password', email: 'bo@example.test' }, { 'x-auth-password': wrongPassword });
    assert.equal(wrong.status, 400);
    const inBody = await call('pw-in-body', 'POST', '/v2/auth/authenticate', { auth_mode: 'password', email: 'bo@example.test', password: wrongPassword });
    assert.equal(inBody.status, 400);

    // A private GitHub repository: git runs with the token and fails (no network here, or no such repo).
    const github = await call('github', 'POST', '/v2/repos/index/new', { url: 'https://github.com/loupe-secret-test/private-repo' }, owner);
    assert.ok(github.status >= 400, github.text);

    // Keys that are not keys, or not ours; secrets in query strings and odd headers.
    await call('bad-key', 'GET', '/v2/repos', undefined, { 'x-api-key': `${secrets.smtpPassword}` });
    await call('session-as-key', 'GET', '/v2/repos', undefined, { 'x-api-key': secrets.adaSession });
    await call('key-in-query', 'GET', `/v2/repos?search=${encodeURIComponent(secrets.githubToken)}&limit=1000`, undefined, owner);
    await call('disabled-key-delete', 'DELETE', `/v2/keys/${encodeURIComponent(secrets.adaKey)}`, undefined, { 'x-api-key': secrets.adaKey2 });
    await call('search', 'POST', '/v2/search', { query: 'weighted total' }, owner);

    // A relay that rejects the password: the failure is reported without the password.
    const failingInbox = await startInbox({ user: 'relay', password: `other-${hex(6)}` });
    const failing = await createTestApp({
      log: createLogger((level, line) => lines.push(`[${level}] ${line}`), 'debug'),
      accounts: { auth: { smtp: { host: '127.0.0.1', port: failingInbox.port, user: 'relay', password: smtpPassword, timeoutMs: 3000 } } },
    });
    try {
      const res = await failing.app.inject({ method: 'POST', url: '/v2/auth/authenticate', payload: { auth_mode: 'otp', email: 'cy@example.test', should_create_user: true } });
      seen.push({ label: 'smtp-rejected', status: res.statusCode, text: res.body });
      assert.equal(res.statusCode, 503, res.body);
    } finally {
      await failing.close();
      await failingInbox.close();
    }
  } finally {
    await sidecar.close();
    await t.close();
    await inbox.close();
  }

  // --- where secrets must not be ---
  const leaks: string[] = [];
  const mentions = (text: string, name: string, value: string) =>
    name === 'otpCode' ? new RegExp(`(^|[^0-9a-f])${value}([^0-9a-f]|$)`, 'i').test(text) : text.includes(value);
  for (const [name, value] of Object.entries(secrets)) {
    for (const line of lines) if (mentions(line, name, value)) leaks.push(`log line has ${name}: ${line.slice(0, 200)}`);
    for (const r of seen) {
      if (creators[name]?.includes(r.label)) continue;
      if (mentions(r.text, name, value)) leaks.push(`response ${r.label} (${r.status}) has ${name}: ${r.text.slice(0, 300)}`);
    }
  }
  for (const file of ['loupe.db', 'accounts.db']) {
    const db = new Database(path.join(t.dataDir, file), { readonly: true });
    try {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%'").all() as { name: string }[];
      for (const { name: table } of tables) {
        for (const row of db.prepare(`SELECT * FROM "${table}"`).all() as Record<string, unknown>[]) {
          for (const [column, cell] of Object.entries(row)) {
            if (typeof cell !== 'string' && !Buffer.isBuffer(cell)) continue;
            const text = Buffer.isBuffer(cell) ? cell.toString('latin1') : cell;
            for (const [name, value] of Object.entries(secrets)) {
              if (mentions(text, name, value)) leaks.push(`table ${file}:${table}.${column} has ${name}`);
            }
          }
        }
      }
    } finally {
      db.close();
    }
  }
  // Raw bytes of every file in the data dir (the WAL and freed pages included), except owner-key,
  // which exists to hand the owner their key (mode 0600). The 6-digit code is too short to look for in binary pages.
  const files = fs.readdirSync(t.dataDir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
  for (const entry of files) {
    const file = path.join(entry.parentPath, entry.name);
    if (path.basename(file) === 'owner-key') continue;
    const bytes = fs.readFileSync(file).toString('latin1');
    for (const [name, value] of Object.entries(secrets)) {
      if (name !== 'otpCode' && bytes.includes(value)) leaks.push(`file ${path.relative(t.dataDir, file)} has ${name}`);
    }
  }
  assert.ok(Object.keys(secrets).length >= 9, `secrets exercised: ${Object.keys(secrets).join(', ')}`);
  assert.deepEqual(leaks, []);
});
