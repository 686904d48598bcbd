import fs from 'node:fs';
import path from 'node:path';

/**
 * A second user, as an attacker would become one: signed up through the API of a running server
 * (OTP sign-up; the code is read from DATA_DIR/outbox, where a server without SMTP writes it).
 */
export interface ApiUser {
  key: string;
  call(method: string, p: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; text: string; headers: Headers }>;
}

export async function call(url: string, method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${p}`, {
    method, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed: any = null;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

/** The newest code mailed to `email` in the outbox of `dataDir`. */
export function outboxCode(dataDir: string, email: string): string {
  const dir = path.join(dataDir, 'outbox');
  const mails = fs.readdirSync(dir).filter((f) => f.endsWith(`${email.replace(/[^a-z0-9@._-]/gi, '_')}.eml`)).sort();
  if (!mails.length) throw new Error(`no mail to ${email} in ${dir}`);
  const text = fs.readFileSync(path.join(dir, mails[mails.length - 1]), 'utf8');
  const code = /Your Loupe code: (\d{6})/.exec(text)?.[1];
  if (!code) throw new Error(`no code in the mail to ${email}`);
  return code;
}

export async function signUp(url: string, dataDir: string, email: string): Promise<ApiUser> {
  const started = await call(url, 'POST', '/v2/auth/authenticate', { auth_mode: 'otp', email, should_create_user: true });
  if (started.status !== 200) throw new Error(`sign-up: ${started.status} ${started.text}`);
  const verified = await call(url, 'POST', '/v2/auth/verify', { email, token: outboxCode(dataDir, email) });
  if (verified.status !== 200) throw new Error(`verify: ${verified.status} ${verified.text}`);
  const key: string = verified.body.data.api_key.key ?? started.body.data.api_key.key;
  return { key, call: (method, p, body, headers = {}) => call(url, method, p, body, { 'x-api-key': key, ...headers }) };
}
