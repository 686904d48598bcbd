import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestEngine } from '../helpers/engine';
import { createHttpApp } from '../../server/host';
import { streamNdjson } from '../../server/transport/http/ndjson';
import { newId } from '../../server/engine/util/ids';

/**
 * Stream slots over a real socket: a route marked `config.stream` holds a slot per open response;
 * a user over their limit (with any of their keys), or the server over its total, gets 429 with Retry-After before any work;
 * a client that hangs up frees its slot and aborts the work behind it at once.
 */
test('concurrent streams per user (whatever key) and in total are bounded (429 + Retry-After); a disconnect frees the slot and stops the work', async () => {
  const t = createTestEngine();
  // Another key of the same user (an agent credential, a sign-in key) shares the user's slots.
  const sameUser = newId();
  t.engine.accounts.addKey(t.ownerId, sameUser, 'active');
  const otherUser = newId();
  t.engine.accounts.store.insertUser({ id: otherUser, email: 'other@example.test', display_name: null, plan: 'PRO', is_owner: 0 });
  const other = newId();
  t.engine.accounts.addKey(otherUser, other, 'active');
  const app = await createHttpApp(t.engine, { guard: { maxStreamsPerUser: 2, maxStreamsTotal: 3 } });
  let started = 0;
  const aborted: number[] = [];
  app.post('/test/stream', { config: { stream: (r) => (r.body as { chat?: boolean })?.chat === true } }, async (request, reply) => {
    if ((request.body as { chat?: boolean }).chat !== true) return reply.send({ status: 'success', data: 'not a stream' });
    started++;
    const opened = Date.now();
    await streamNdjson(request, reply, t.engine.log, async function* (signal) {
      yield { type: 'search' };
      // A long answer: a chunk every 20 ms until the client leaves (or 10 s pass).
      for (let i = 0; i < 500 && !signal.aborted; i++) {
        await new Promise((r) => setTimeout(r, 20));
        if (signal.aborted) break;
        yield { type: 'chunk', i };
      }
      if (signal.aborted) aborted.push(Date.now() - opened);
    });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;

  const open = (key: string) => new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Promise<string>; req: http.ClientRequest; res: http.IncomingMessage }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/test/stream', headers: { 'x-api-key': key, 'content-type': 'application/json' } });
    req.on('response', (res) => {
      let text = '';
      const body = new Promise<string>((done) => { res.on('data', (d) => { text += d; }); res.on('end', () => done(text)); res.on('close', () => done(text)); });
      resolve({ status: res.statusCode!, headers: res.headers, body, req, res });
    });
    req.on('error', reject);
    req.end(JSON.stringify({ chat: true }));
  });

  try {
    const a1 = await open(t.key);
    const a2 = await open(t.key);
    assert.deepEqual([a1.status, a2.status], [200, 200]);
    const a3 = await open(t.key);
    assert.equal(a3.status, 429);
    assert.equal(a3.headers['retry-after'], '1');
    const refused = JSON.parse(await a3.body);
    assert.equal(refused.code, 'RATE_LIMITED');
    assert.equal(refused.retry_after, 1);
    assert.equal(started, 2, 'a refused stream starts no work');
    const viaOtherKey = await open(sameUser);
    assert.equal(viaOtherKey.status, 429, 'a second key of the same user does not get more slots');

    const b1 = await open(other);
    assert.equal(b1.status, 200, 'another user has their own slots');
    const b2 = await open(other);
    assert.equal(b2.status, 429, 'the server-wide cap holds');
    assert.equal(JSON.parse(await b2.body).code, 'RATE_LIMITED');
    assert.equal(app.streams.count(), 3);

    // The client hangs up mid-stream: its slot is free and its producer stopped, within milliseconds.
    const hungUpAt = Date.now();
    a1.req.destroy();
    for (let i = 0; i < 100 && app.streams.count() > 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(app.streams.count(), 2, 'the slot was freed');
    for (let i = 0; i < 100 && aborted.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(aborted.length, 1, 'the work behind the stream was aborted');
    assert.ok(Date.now() - hungUpAt < 500, `freed in ${Date.now() - hungUpAt} ms`);
    const a4 = await open(t.key);
    assert.equal(a4.status, 200, 'the key may open a stream again');

    // The same route without chat is not a stream and takes no slot.
    const plain = await fetch(`http://127.0.0.1:${port}/test/stream`, { method: 'POST', headers: { 'x-api-key': t.key, 'content-type': 'application/json' }, body: JSON.stringify({ chat: false }) });
    assert.equal(plain.status, 200);
    for (const s of [a2, b1, a4]) s.req.destroy();
    for (let i = 0; i < 100 && app.streams.count() > 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(app.streams.count(), 0, 'every slot is returned');
  } finally {
    await app.close();
    await t.close();
  }
});

test('POST /v2/search with chat: true takes a stream slot; plain search does not', async () => {
  const t = createTestEngine();
  // No slots at all: every research stream is refused before any work or charge, searches still run.
  const app = await createHttpApp(t.engine, { guard: { maxStreamsPerUser: 0 } });
  try {
    const headers = { 'x-api-key': t.key, accept: 'application/x-ndjson' };
    const before = t.engine.accounts.meta(t.ownerId).credits_used;
    const research = await app.inject({ method: 'POST', url: '/v2/search', headers, payload: { query: 'how does it work', chat: true } });
    assert.equal(research.statusCode, 429, research.body);
    assert.equal(research.headers['retry-after'], '1');
    assert.equal(JSON.parse(research.body).code, 'RATE_LIMITED');
    assert.equal(t.engine.accounts.meta(t.ownerId).credits_used, before, 'a refused stream costs nothing');
    const search = await app.inject({ method: 'POST', url: '/v2/search', headers: { 'x-api-key': t.key }, payload: { query: 'how does it work' } });
    assert.equal(search.statusCode, 200, search.body);
  } finally {
    await app.close();
    await t.close();
  }
});
