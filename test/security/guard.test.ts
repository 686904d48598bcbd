import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createTestEngine, type TestEngine } from '../helpers/engine';
import { startSidecar, type Sidecar } from '../../server/host';

/**
 * The guard over real HTTP on 127.0.0.1: Host and Origin checks, and every request limit answered
 * as a 4xx in the error shape (Node's own refusals included).
 */
let t: TestEngine;
let sidecar: Sidecar;
let port: number;

before(async () => {
  t = createTestEngine();
  sidecar = await startSidecar(t.engine, {
    host: '127.0.0.1', port: 0,
    guard: { allowedOrigins: ['http://localhost:5173'], headersTimeoutMs: 300, requestTimeoutMs: 600, maxHeaderBytes: 8 * 1024, maxUrlLength: 4096 },
  });
  port = Number(new URL(sidecar.url).port);
});

after(async () => {
  await sidecar.close();
  await t.close();
});

interface RawResponse { status: number; headers: Record<string, string>; body: any; raw: string }

/** Writes bytes on a socket and reads until the server closes or answers one full response. */
function raw(payload: string | Buffer, { pauseAfterMs }: { pauseAfterMs?: number } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`no answer; got ${JSON.stringify(data.slice(0, 200))}`)); }, 10_000);
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      const parsed = parse(data);
      if (parsed) { clearTimeout(timer); socket.destroy(); resolve(parsed); }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const parsed = parse(data);
      if (parsed) resolve(parsed); else reject(new Error(`connection closed; got ${JSON.stringify(data.slice(0, 200))}`));
    });
    socket.write(payload);
    if (pauseAfterMs === undefined) return;
  });
}

function parse(data: string): RawResponse | null {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = data.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  const length = Number(headers['content-length'] ?? NaN);
  const body = data.slice(end + 4);
  if (Number.isFinite(length) && Buffer.byteLength(body, 'latin1') < length) return null;
  if (!Number.isFinite(length) && headers['transfer-encoding'] === 'chunked' && !body.endsWith('0\r\n\r\n')) return null;
  let parsedBody: unknown = body;
  try { parsedBody = JSON.parse(body); } catch { /* not JSON */ }
  return { status: Number(statusLine.split(' ')[1]), headers, body: parsedBody, raw: data };
}

function request(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawResponse> {
  const all: Record<string, string> = { host: `127.0.0.1:${port}`, 'x-api-key': t.key, connection: 'close', ...headers };
  if (body !== undefined) { all['content-type'] ??= 'application/json'; all['content-length'] = String(Buffer.byteLength(body)); }
  const head = Object.entries(all).filter(([, v]) => v !== '').map(([k, v]) => `${k}: ${v}`).join('\r\n');
  return raw(`${method} ${path} HTTP/1.1\r\n${head}\r\n\r\n${body ?? ''}`);
}

function assertError(res: RawResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.raw.slice(0, 300));
  assert.equal(res.body.status, 'error');
  assert.equal(res.body.code, code);
  assert.equal(typeof res.body.message, 'string');
  assert.match(res.headers['content-type'] ?? '', /application\/json/);
}

test('Host must name this server: loopback names with its port pass, anything else is refused (DNS rebinding)', async () => {
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, 'localhost']) {
    const res = await request('GET', '/v2/repos', { host });
    assert.equal(res.status, 200, `${host}: ${res.raw.slice(0, 200)}`);
  }
  for (const host of [`evil.example:${port}`, 'attacker.localhost.evil.example', `127.0.0.1:${port + 1}`, `127.0.0.2:${port}`, '', 'local host']) {
    assertError(await request('GET', '/v2/repos', { host }), 403, 'HOST_NOT_ALLOWED');
  }
  // Public routes and unknown routes are guarded too: the check runs before routing.
  assertError(await request('GET', '/openapi.json', { host: 'evil.example' }), 403, 'HOST_NOT_ALLOWED');
  assertError(await request('GET', '/no/such/route', { host: 'evil.example' }), 403, 'HOST_NOT_ALLOWED');
});

test('browser requests from other origins are refused, the auth routes included; no CORS headers are sent', async () => {
  const evil = { origin: 'https://evil.example' };
  assertError(await request('GET', '/v2/repos', evil), 403, 'ORIGIN_NOT_ALLOWED');
  assertError(await request('POST', '/v2/repos/index/new', evil, JSON.stringify({ url: '/tmp' })), 403, 'ORIGIN_NOT_ALLOWED');
  // No key is needed on the auth routes, so the origin check is what keeps a page from signing up or spamming mail.
  for (const route of ['/v2/auth/authenticate', '/v2/auth/verify', '/v2/auth/resend']) {
    const res = await request('POST', route, { ...evil, 'x-api-key': '' }, JSON.stringify({ email: 'a@example.com', auth_mode: 'otp' }));
    assertError(res, 403, 'ORIGIN_NOT_ALLOWED');
  }
  assertError(await request('OPTIONS', '/v2/repos', { ...evil, 'access-control-request-method': 'POST' }), 403, 'ORIGIN_NOT_ALLOWED');
  assertError(await request('GET', '/v2/repos', { origin: 'null' }), 403, 'ORIGIN_NOT_ALLOWED');
  // A no-cors request carries no Origin but does carry Sec-Fetch-Site.
  assertError(await request('GET', '/v2/repos', { 'sec-fetch-site': 'cross-site' }), 403, 'ORIGIN_NOT_ALLOWED');

  const same = await request('GET', '/v2/repos', { origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' });
  assert.equal(same.status, 200, 'the sidecar\'s own pages (/docs) may call it');
  const configured = await request('GET', '/v2/repos', { origin: 'http://localhost:5173' });
  assert.equal(configured.status, 200, 'an origin given with --allow-origin may call it');
  for (const res of [same, configured]) {
    assert.equal(res.headers['access-control-allow-origin'], undefined, 'no CORS headers: browsers still cannot read cross-origin');
  }
});

test('a body over the limit is 413 in the error shape', async () => {
  const big = JSON.stringify({ url: 'x'.repeat(1024 * 1024 + 10) });
  assertError(await request('POST', '/v2/repos/index/new', {}, big), 413, 'PAYLOAD_TOO_LARGE');
});

test('headers over the limit are 431 in the error shape, not Node\'s bare status line', async () => {
  assertError(await request('GET', '/v2/repos', { 'x-padding': 'p'.repeat(10 * 1024) }), 431, 'HEADERS_TOO_LARGE');
});

test('a URL over the limit is 414; a URL larger than the header limit is 431', async () => {
  assertError(await request('GET', `/v2/repos?search=${'q'.repeat(5000)}`), 414, 'URI_TOO_LONG');
  assertError(await request('GET', `/v2/repos?search=${'q'.repeat(9000)}`), 431, 'HEADERS_TOO_LARGE');
});

test('a client that sends its headers too slowly is answered 408 and disconnected', async () => {
  const started = Date.now();
  const res = await raw(`GET /v2/repos HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nx-api-key: ${t.key}\r\n`, { pauseAfterMs: 0 });
  assertError(res, 408, 'REQUEST_TIMEOUT');
  assert.ok(Date.now() - started < 3000, `answered after ${Date.now() - started} ms`);
});

test('a client that sends half a body and stalls is answered 408', async () => {
  const head = `POST /v2/repos/index/new HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nx-api-key: ${t.key}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"url":`;
  const res = await raw(head);
  assert.equal(res.status, 408, res.raw.slice(0, 300));
  assert.equal(res.body.code, 'REQUEST_TIMEOUT');
});

test('garbage instead of HTTP is a 400 in the error shape', async () => {
  assertError(await raw('HELLO THERE\r\n\r\n'), 400, 'BAD_REQUEST');
});

test('hostile JSON bodies (prototype keys, deep nesting, thousands of fields) are 400s, never 500s', async () => {
  for (const body of ['{"__proto__":{"admin":true},"url":"/tmp"}', '{"constructor":{"prototype":{"admin":true}},"url":"/tmp"}',
    `${'['.repeat(50_000)}${']'.repeat(50_000)}`, `{"url":"/tmp"${',"a":1'.repeat(20_000)}}`, '{"url":"/tmp"', '\u0000']) {
    const res = await request('POST', '/v2/repos/index/new', {}, body);
    assertError(res, 400, 'VALIDATION_FAILED');
  }
  assert.equal(({} as Record<string, unknown>).admin, undefined, 'no prototype was polluted');
});
