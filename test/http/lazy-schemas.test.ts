import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Ajv from 'ajv';
import { coercingAjv, strictAjv } from '../../server/transport/common/validate';
import { createTestApp } from '../helpers/engine';

/** Counts the schemas the request validators' Ajv instances compile (and compiles them as before). */
function countCompiles(): { count: () => number; restore: () => void } {
  let n = 0;
  const saved = ([strictAjv, coercingAjv] as Ajv[]).map((ajv) => {
    const compile = ajv.compile;
    ajv.compile = function (this: Ajv, ...args: Parameters<Ajv['compile']>) {
      n++;
      return compile.apply(this, args);
    } as Ajv['compile'];
    return () => { ajv.compile = compile; };
  });
  return { count: () => n, restore: () => saved.forEach((r) => r()) };
}

test('a route\'s request schemas are compiled at its first request, not when the application is built, and validate as before', async () => {
  const spy = countCompiles();
  const t = await createTestApp();
  try {
    assert.equal(spy.count(), 0, 'the application compiled request schemas while it was built');
    const bad = await t.call('GET', '/v2/repos?limit=abc');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'VALIDATION_FAILED');
    assert.match(bad.body.message, /^query\.limit: /);
    const compiledFirst = spy.count();
    assert.ok(compiledFirst > 0, 'the first request compiled nothing');
    const good = await t.call('GET', '/v2/repos?limit=5');
    assert.equal(good.status, 200);
    assert.ok(Array.isArray(good.body.data));
    // Once per route: the same route again compiles nothing more.
    assert.equal((await t.call('GET', '/v2/repos?limit=abc')).status, 400);
    assert.equal(spy.count(), compiledFirst);
    // A body is checked strictly, with defaults filled in, as when every route was compiled at start.
    const unknown = await t.call('POST', '/v2/search', { query: 'x', nope: 1 });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.message, /nope: is not a known field/);
  } finally {
    spy.restore();
    await t.close();
  }
});
