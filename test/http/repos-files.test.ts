import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFixture, createTestApp } from '../helpers/engine';

test('index a local folder, poll it, list repositories and files through the API', async () => {
  const t = await createTestApp();
  const folder = copyFixture('ts-paths');
  try {
    const indexed = await t.call('POST', '/v2/repos/index/new', { url: folder });
    assert.equal(indexed.status, 200, JSON.stringify(indexed.body));
    assert.equal(indexed.body.status, 'success');
    assert.equal(indexed.body.data.created, true);
    assert.ok(indexed.body.data.file_tree.some((f: { path: string }) => f.path === 'src/lib/math.ts'));
    const repoId = indexed.body.data.repo.repo_id;
    await t.engine.queue.idle();

    const status = await t.call('POST', '/v2/repos/status', { url: `file://${folder}` });
    assert.equal(status.status, 200);
    assert.equal(status.body.data.updating, false);
    assert.equal(status.body.data.status, true);
    assert.equal(status.body.data.state, 'ready');
    assert.equal(status.body.meta.credits_used, 1);

    const list = await t.call('GET', '/v2/repos?limit=5');
    assert.equal(list.body.data.length, 1);
    assert.deepEqual(list.body.pagination, { total: 1, limit: 5, offset: 0, has_more: false });
    assert.equal(typeof list.body.meta.max_repos_allowed, 'number');

    const byUrl = await t.call('GET', `/v2/files/${encodeURIComponent(folder)}?search=math&limit=10`);
    assert.equal(byUrl.status, 200, JSON.stringify(byUrl.body));
    assert.deepEqual(byUrl.body.data.map((f: { file_path: string }) => f.file_path), ['src/lib/math.ts']);
    const file = byUrl.body.data[0];
    assert.equal(file.total_lines, 11);
    assert.equal(file.function_count, 2);

    const page2 = await t.call('GET', `/v2/files/${repoId}?limit=2&offset=2&order=desc`);
    assert.equal(page2.body.data.length, 2);
    assert.equal(page2.body.pagination.has_more, true);
  } finally {
    await t.close();
  }
});

test('bad input is a 400 naming the field; unknown things are 404; no key is 401', async () => {
  const t = await createTestApp();
  try {
    const cases: [string, string, unknown, number, RegExp][] = [
      ['GET', '/v2/repos?limit=101', undefined, 400, /limit/],
      ['GET', '/v2/repos?limit=0', undefined, 400, /limit/],
      ['GET', `/v2/repos?search=${'x'.repeat(201)}`, undefined, 400, /search/],
      ['GET', '/v2/repos?order=sideways', undefined, 400, /order: must be one of "asc", "desc"/],
      ['POST', '/v2/repos/index/new', {}, 400, /url: is required/],
      ['POST', '/v2/repos/index/new', { url: 42 }, 400, /url: must be string/],
      ['POST', '/v2/repos/index/new', { url: 'http://example.com/x' }, 400, /url: must be an https:\/\/github.com/],
      ['POST', '/v2/repos/index/new', { url: '/tmp/definitely/not/here' }, 400, /does not exist/],
      ['POST', '/v2/repos/index/new', { url: '/definitely/not/here' }, 403, /outside the folders/],
      ['POST', '/v2/repos/index/new', { url: '/etc' }, 403, /outside the folders/],
      ['POST', '/v2/repos/index/new', { url: '/tmp', extra: 1 }, 400, /extra: is not a known field/],
      ['POST', '/v2/repos/status', { url: '/tmp/nothing-indexed-here' }, 404, /not found/],
      ['GET', '/v2/files/00000000-0000-4000-8000-000000000000', undefined, 404, /repository not found/],
      ['GET', '/v2/public/repos?limit=501', undefined, 400, /limit/],
    ];
    for (const [method, url, body, status, message] of cases) {
      const res = await t.call(method, url, body);
      assert.equal(res.status, status, `${method} ${url}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.status, 'error');
      assert.match(res.body.message, message, `${method} ${url}`);
      assert.equal(typeof res.body.code, 'string');
    }
    assert.equal(t.engine.reposStore.all().length, 0, 'nothing half-made');
    const noKey = await t.app.inject({ method: 'GET', url: '/v2/repos' });
    assert.equal(noKey.statusCode, 401);
    assert.equal(JSON.parse(noKey.body).code, 'UNAUTHORIZED');
    const badKey = await t.call('GET', '/v2/repos', undefined, { 'x-api-key': '11111111-1111-4111-8111-111111111111' });
    assert.equal(badKey.status, 401);
    const publicList = await t.app.inject({ method: 'GET', url: '/v2/public/repos' });
    assert.equal(publicList.statusCode, 200);
  } finally {
    await t.close();
  }
});

test('anonymous calls to the public catalog are rate limited per client; callers with a key are not', async () => {
  const t = await createTestApp();
  try {
    const anonymous = () => t.app.inject({ method: 'GET', url: '/v2/public/repos?limit=1', remoteAddress: '127.0.0.9' });
    for (let i = 0; i < 60; i++) assert.equal((await anonymous()).statusCode, 200);
    const limited = await anonymous();
    assert.equal(limited.statusCode, 429);
    assert.equal(JSON.parse(limited.body).code, 'RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    const otherClient = await t.app.inject({ method: 'GET', url: '/v2/public/repos', remoteAddress: '127.0.0.10' });
    assert.equal(otherClient.statusCode, 200);
    const withKey = await t.app.inject({ method: 'GET', url: '/v2/public/repos', remoteAddress: '127.0.0.9', headers: { 'x-api-key': t.key } });
    assert.equal(withKey.statusCode, 200);
    assert.equal(JSON.parse(withKey.body).meta.tier, 'ENTERPRISE');
    const badKey = await t.app.inject({ method: 'GET', url: '/v2/public/repos', headers: { 'x-api-key': '11111111-1111-4111-8111-111111111111' } });
    assert.equal(badKey.statusCode, 401);
  } finally {
    await t.close();
  }
});
