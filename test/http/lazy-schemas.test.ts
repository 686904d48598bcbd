import { test } from 'node:test';
import assert from 'node:assert/strict';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { coercingAjv, strictAjv } from '../../server/transport/common/validate';
import fs from 'node:fs';
import path from 'node:path';
import { createTestApp, createTestEngine, tempDir } from '../helpers/engine';
import { startSidecarOnDemand } from '../../server/host';

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

test('warmSchemas compiles every route\'s schemas in the background, each valid JSON Schema, and a first request after it compiles nothing', async () => {
  // Production Ajv skips the meta-schema check (validateSchema: false, 40 ms of a first request); this one does it.
  const metaChecked = addFormats(new Ajv({ strict: false }));
  metaChecked.addKeyword({ keyword: 'example' }).addKeyword({ keyword: 'x-field' });
  const invalid: string[] = [];
  let checked = 0;
  const saved = ([strictAjv, coercingAjv] as Ajv[]).map((ajv) => {
    const compile = ajv.compile;
    ajv.compile = function (this: Ajv, schema: object, ...rest: unknown[]) {
      checked++;
      if (!metaChecked.validateSchema(schema)) invalid.push(`${JSON.stringify(schema).slice(0, 120)}: ${metaChecked.errorsText()}`);
      return (compile as (...a: unknown[]) => ReturnType<Ajv['compile']>).call(this, schema, ...rest);
    } as Ajv['compile'];
    return () => { ajv.compile = compile; };
  });
  const spy = countCompiles();
  const t = await createTestApp();
  try {
    // While requests keep coming the warm-up waits (a request arriving during one compile waits for that one only).
    const before = spy.count();
    const warming = t.app.warmSchemas();
    for (let i = 0; i < 8; i++) {
      const during = await t.call('GET', '/v2/repos?limit=abc');
      assert.equal(during.status, 400);
      assert.match(during.body.message, /^query\.limit: /);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(spy.count() - before <= 3, `the warm-up compiled ${spy.count() - before} schemas while requests kept coming`);
    const warmed = await warming;
    assert.deepEqual(warmed.failed, []);
    assert.ok(warmed.compiled > 100, `only ${warmed.compiled} schemas compiled`);
    assert.ok(checked > 40, `only ${checked} request schemas checked`);
    assert.deepEqual(invalid, [], 'a route\'s request schema is not valid JSON Schema');
    const after = spy.count();
    assert.equal((await t.call('GET', '/v2/repos?limit=5')).status, 200);
    assert.equal((await t.call('POST', '/v2/search', { query: 'x', nope: 1 })).status, 400);
    assert.equal(spy.count(), after, 'a request after the warm-up compiled a schema');
    assert.deepEqual(await t.app.warmSchemas(), { compiled: 0, failed: [] }, 'a second warm-up found work left');
  } finally {
    spy.restore();
    saved.forEach((r) => r());
    await t.close();
  }
});

/**
 * An engine with one registered folder (a.ts) behind an on-demand sidecar, with the request schemas
 * compiled counted from before the sidecar starts; everything is stopped when `run` ends or fails.
 */
async function withSidecar(
  prefix: string,
  run: (c: { spy: ReturnType<typeof countCompiles>; t: ReturnType<typeof createTestEngine>; folder: string; url: string }) => Promise<void>,
): Promise<void> {
  const spy = countCompiles();
  const t = createTestEngine();
  try {
    const folder = tempDir(prefix);
    fs.writeFileSync(path.join(folder, 'a.ts'), 'export const a = 1;\n');
    const sidecar = await startSidecarOnDemand(t.engine, { host: '127.0.0.1', port: 0 });
    try {
      t.engine.repos.registerLocalFolder(t.ownerId, folder);
      await run({ spy, t, folder, url: sidecar.url });
    } finally {
      await sidecar.close();
    }
  } finally {
    spy.restore();
    await t.close();
  }
}

test('the sidecar warms the schemas once indexing is idle: a route\'s first request over HTTP then compiles nothing', () => withSidecar('loupe-warm-', async ({ spy, t, url }) => {
  assert.equal((await fetch(`${url}/health`)).status, 200); // builds the application
  await t.engine.queue.idle();
  // The warm-up begins once the server has had no request for a while, then yields between schemas:
  // wait until it has compiled everything (the count has moved and stopped moving).
  let last = -1;
  for (let i = 0; i < 200 && (spy.count() !== last || last < 40); i++) {
    last = spy.count();
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(last > 40, `only ${last} request schemas compiled`);
  const res = await fetch(`${url}/v2/repos?limit=5`, { headers: { 'x-api-key': t.key } });
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { data: unknown[] }).data.length, 1);
  assert.equal(spy.count(), last, 'the first GET /v2/repos compiled its schemas itself');
}));

test('the routes a caller polls while an index is built are compiled with the sidecar\'s application: their first requests compile nothing', () => withSidecar('loupe-status-', async ({ spy, t, folder, url }) => {
  assert.equal(spy.count(), 0, 'request schemas compiled before the application was built');
  assert.equal((await fetch(`${url}/health`)).status, 200); // builds the application
  const built = spy.count();
  assert.ok(built > 0, 'building the application compiled no status route');
  const headers = { 'x-api-key': t.key, 'content-type': 'application/json' };
  const list = await fetch(`${url}/v2/repos?limit=5`, { headers });
  assert.equal(list.status, 200);
  const status = await fetch(`${url}/v2/repos/status`, { method: 'POST', headers, body: JSON.stringify({ url: folder }) });
  assert.equal(status.status, 200, await status.clone().text());
  assert.equal(spy.count(), built, 'a status route\'s first request compiled its schemas itself');
  // Any other route still compiles its own at its first request (until the idle warm-up has).
  assert.equal((await fetch(`${url}/v2/search`, { method: 'POST', headers, body: JSON.stringify({ query: 'a', nope: 1 }) })).status, 400);
  assert.ok(spy.count() > built, 'POST /v2/search was compiled with the application');
}));
