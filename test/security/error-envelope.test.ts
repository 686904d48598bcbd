import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createTestApp } from '../helpers/engine';
import { startSidecar } from '../../server/host';
import { ERROR_CODES } from '../../server/engine/errors';

/**
 * Attack: malformed requests that reach Fastify's own error paths, which answered in Fastify's
 * shape (`{"error":"Bad Request","code":"FST_ERR_BAD_URL",…}`, a 414 `FST_ERR_MAX_PARAM_LENGTH`)
 * and told clients nothing they could rely on. Every error is the envelope with a documented code
 * whose status is the one documented. Also here: a wrong or missing key is a 401 with a
 * WWW-Authenticate challenge, and a key in the URL is refused rather than ignored.
 */
function raw(port: number, request: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => { data += d; });
    socket.on('end', () => {
      const [head, ...rest] = data.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head, body: rest.join('\r\n\r\n') });
    });
    socket.on('error', reject);
    socket.write(request);
  });
}

test('every error Fastify or Node raises is the envelope with a documented code and status', { timeout: 60_000 }, async () => {
  const t = await createTestApp();
  const sidecar = await startSidecar(t.engine, { host: '127.0.0.1', port: 0 });
  const port = Number(new URL(sidecar.url).port);
  const key = t.key;
  const long = 'a'.repeat(3000);
  const cases: [string, string][] = [
    ['bad escape in a route parameter', `GET /v2/repos/%E0%A4%A/blueprint HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`],
    ['bad escape in an unknown path', 'GET /v2/%zz%/nothing HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'],
    ['route parameter over the maximum length', `GET /v2/files/${long} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`],
    ['invalid JSON', `POST /v2/search HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nConnection: close\r\n\r\n{"a":`],
    ['empty JSON body', `POST /v2/search HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`],
    ['unsupported media type', `POST /v2/search HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nContent-Type: text/xml\r\nContent-Length: 4\r\nConnection: close\r\n\r\n<a/>`],
    ['bad charset', `POST /v2/search HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nContent-Type: application/json; charset=utf-7\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`],
    ['body over the limit', `POST /v2/search HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\nConnection: close\r\n\r\n{`],
    ['content-length larger than the body', `POST /v2/search HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 10\r\nConnection: close\r\n\r\n{}`],
    ['unknown method', 'BREW /v2/repos HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'],
    ['wrong method', `PUT /v2/repos HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`],
    ['no Host', 'GET /v2/repos HTTP/1.1\r\nConnection: close\r\n\r\n'],
    ['URL over the limit', `GET /v2/repos?search=${'b'.repeat(9000)} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`],
    ['not HTTP', 'HELLO THERE\r\n\r\n'],
  ];
  try {
    for (const [what, request] of cases) {
      const res = await (what === 'content-length larger than the body' ? rawHalfClosed(port, request) : raw(port, request));
      assert.ok(res.status >= 400 && res.status < 500, `${what}: ${res.status} ${res.body.slice(0, 200)}`);
      let body: any;
      try { body = JSON.parse(res.body); } catch { assert.fail(`${what}: the body is not JSON: ${res.body.slice(0, 200)}`); }
      assert.equal(body.status, 'error', what);
      assert.ok(body.code in ERROR_CODES, `${what}: ${body.code} is not a documented code`);
      assert.equal(ERROR_CODES[body.code as keyof typeof ERROR_CODES].status, res.status, `${what}: ${body.code} documents another status than ${res.status}`);
      assert.doesNotMatch(res.body, /FST_ERR|"statusCode"|"error":"/, `${what}: Fastify's own shape leaked`);
    }
  } finally {
    await sidecar.close();
    await t.close();
  }
});

/** Sends the request and half-closes the socket, so the server sees the body end early. */
function rawHalfClosed(port: number, request: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(request));
    let data = '';
    socket.on('data', (d) => { data += d; });
    socket.on('close', () => {
      const [head, ...rest] = data.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head, body: rest.join('\r\n\r\n') });
    });
    socket.on('error', reject);
  });
}

test('a missing, unknown or disabled key is a 401 with a WWW-Authenticate challenge; a key in the URL is a 400', async () => {
  const t = await createTestApp();
  try {
    const cases: [string, Record<string, string>][] = [
      ['/v2/repos', {}],
      ['/v2/repos', { 'x-api-key': '00000000-0000-4000-8000-000000000000' }],
      ['/v2/repos', { 'x-api-key': 'not-a-key' }],
      ['/v2/repos', { authorization: 'Bearer no-such-session' }],
      ['/v2/public/repos', { 'x-api-key': '00000000-0000-4000-8000-000000000000' }],
    ];
    for (const [url, headers] of cases) {
      const res = await t.app.inject({ method: 'GET', url, headers });
      assert.equal(res.statusCode, 401, `${url} ${JSON.stringify(headers)}: ${res.body}`);
      assert.match(String(res.headers['www-authenticate']), /ApiKey realm="Loupe", header="X-API-Key"/);
      assert.equal(JSON.parse(res.body).code, 'UNAUTHORIZED');
    }
    for (const name of ['apiKey', 'api_key', 'APIKEY', 'access_token']) {
      const res = await t.app.inject({ method: 'GET', url: `/v2/repos?${name}=${t.key}`, headers: { 'x-api-key': t.key } });
      assert.equal(res.statusCode, 400, `${name}: ${res.body}`);
      const body = JSON.parse(res.body);
      assert.equal(body.field, name);
      assert.match(body.message, /do not belong in URLs/);
      assert.ok(!res.body.includes(t.key), 'the key is not echoed');
    }
  } finally {
    await t.close();
  }
});
