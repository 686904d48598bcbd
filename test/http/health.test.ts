import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/engine';

/**
 * The health route of the embedded server (`npm start`, SQLite): liveness and readiness without a
 * key, free, documented in /openapi.json as keyless. The team server's (PostgreSQL up, down, a
 * migration missing) is tested with real processes in test/team/load.test.ts.
 */
test('GET /health and /health/ready: no key, no credits, the SQLite check, documented', async () => {
  const t = await createTestApp();
  try {
    const balance = async () => (await t.call('GET', '/v2/models')).body.meta.credits_remaining as number;
    const before = await balance();
    const live = await t.app.inject({ method: 'GET', url: '/health' });
    assert.equal(live.statusCode, 200);
    assert.deepEqual(JSON.parse(live.body), { status: 'pass' });
    assert.equal(live.headers['cache-control'], 'no-store');
    const ready = await t.app.inject({ method: 'GET', url: '/health/ready' });
    assert.equal(ready.statusCode, 200, ready.body);
    const body = JSON.parse(ready.body);
    assert.equal(body.status, 'pass');
    assert.deepEqual(body.checks.map((c: any) => [c.name, c.status, c.reachable, c.schema]), [['sqlite', 'pass', 'ok', 'current']]);
    assert.equal(typeof body.checks[0].latency_ms, 'number');
    // A bad key is not looked at; HEAD answers as GET does, without a body.
    const badKey = await t.app.inject({ method: 'GET', url: '/health/ready', headers: { 'x-api-key': '11111111-1111-4111-8111-111111111111' } });
    assert.equal(badKey.statusCode, 200);
    const head = await t.app.inject({ method: 'HEAD', url: '/health' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.equal((await t.app.inject({ method: 'POST', url: '/health' })).statusCode, 405);
    assert.equal(await balance(), before, 'free');

    const doc = JSON.parse((await t.app.inject({ method: 'GET', url: '/openapi.json' })).body);
    for (const [path, id] of [['/health', 'liveness'], ['/health/ready', 'readiness']]) {
      const op = doc.paths[path]?.get;
      assert.ok(op, `${path} is documented`);
      assert.equal(op.operationId, id);
      assert.deepEqual(op.security, []);
      assert.ok(op.responses['200'].content['application/json'].schema);
    }
    assert.equal(doc.paths['/health/ready'].get.responses['503'].content['application/json'].schema.$ref, '#/components/schemas/ErrorBody');
  } finally {
    await t.close();
  }
});
