import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFixture, createTestApp } from '../helpers/engine';
import { startLocalLlm } from '../research/local-llm-server';
import { addUser } from './helpers';
import { startSidecar } from '../../server/host';

test('V1 code operations run on a generative model, charge 2 + usage, write history; deprecated in OpenAPI', async () => {
  const llm = await startLocalLlm();
  const t = await createTestApp({ research: { openai: { baseUrl: llm.baseUrl, models: ['echo-1'], contextWindow: 16384, maxOutput: 2048, creditsPer1kTokens: 1 } } });
  try {
    const u = addUser(t, { credits: 10 });
    const status = await u.as('GET', '/v1/fundi');
    assert.equal(status.status, 200);
    assert.equal(status.headers.deprecation, 'true');
    assert.equal(status.body.data.generative_models, 1);
    const models = await u.as('GET', '/v1/fundi/models');
    const v2 = await u.as('GET', '/v2/models');
    assert.deepEqual(models.body.data, v2.body.data);

    const optimized = await u.as('POST', '/v1/fundi/optimize', { code: 'for (let i = 0; i < a.length; i++) total += a[i];', language: 'js' });
    assert.equal(optimized.status, 200, JSON.stringify(optimized.body));
    assert.equal(optimized.body.data.model, 'echo-1');
    assert.match(optimized.body.data.result, /total \+= a\[i\]/, 'the echo model answered with the code it was sent');
    assert.equal(optimized.body.data.credits_used, 3, '2 + 1 per started 1,000 tokens');
    assert.equal(optimized.body.meta.credits_remaining, 7);
    const prompt = llm.requests.at(-1).messages;
    assert.match(prompt[0].content, /faster or leaner/);

    // Over a real socket too: the request ending must not read as the client leaving.
    const sidecar = await startSidecar(t.engine, { host: '127.0.0.1', port: 0 });
    try {
      const res = await fetch(`${sidecar.url}/v1/fundi/debug`, {
        method: 'POST', headers: { 'x-api-key': t.key, 'content-type': 'application/json' }, body: JSON.stringify({ code: 'let x = 1' }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      assert.match(((await res.json()) as any).data.result, /let x = 1/);
    } finally {
      await sidecar.close();
    }

    const converted = await u.as('POST', '/v1/fundi/convert', { code: 'print(1)', language: 'python', target_language: 'go' });
    assert.equal(converted.status, 200);
    assert.match(llm.requests.at(-1).messages[0].content, /Target language: go/);
    assert.equal((await u.as('POST', '/v1/fundi/convert', { code: 'print(1)' })).body.message, 'target_language: is required for convert');
    assert.equal((await u.as('POST', '/v1/fundi/debug', { code: 'x', model: 'loupe-grounded' })).status, 400);

    const history = await u.as('POST', '/v1/fundi/history', { limit: 5 });
    assert.equal(history.status, 200, JSON.stringify(history.body));
    assert.deepEqual(history.body.data.map((h: any) => h.operation), ['fundi.convert', 'fundi.optimize']);
    assert.equal(history.body.data[1].credits, 3);

    // 4 credits left: a 2-credit call passes the pre-check, a third does not.
    await u.as('POST', '/v1/fundi/comment', { code: 'x = 1' });
    const broke = await u.as('POST', '/v1/fundi/explain', { code: 'x = 1' });
    assert.equal(broke.status, 402);
    assert.equal(broke.body.required, 2);

    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const p of ['/v1/fundi', '/v1/fundi/models', '/v1/fundi/chat', '/v1/fundi/explain', '/v1/fundi/history', '/v1/fundi/optimize', '/v1/fundi/debug', '/v1/fundi/comment', '/v1/fundi/convert']) {
      const ops = Object.values(spec.paths[p] ?? {}) as { deprecated?: boolean }[];
      assert.ok(ops.length && ops.every((o) => o.deprecated === true), `${p} is deprecated in OpenAPI`);
    }
    for (const p of ['/v2/auth/authenticate', '/v2/auth/verify', '/v2/auth/resend', '/v2/keys', '/v2/keys/regenerate', '/v2/keys/{key_id}', '/v2/history',
      '/v2/history/{history_id}', '/v2/history/conversation/{conversation_id}', '/v2/stats/usage', '/v2/stats/activity', '/v2/stats/languages', '/v2/agent/credentials']) {
      assert.ok(spec.paths[p], `${p} in /openapi.json`);
    }
    assert.deepEqual(spec.paths['/v2/auth/authenticate'].post.security, []);
  } finally {
    await t.close();
    await llm.close();
  }
});

test('V1 generative operations without a configured model are 501 MODEL_NOT_CONFIGURED (not retryable), charge nothing and write no history', async () => {
  const t = await createTestApp();
  try {
    for (const op of ['optimize', 'debug', 'comment', 'convert', 'explain']) {
      const res = await t.call('POST', `/v1/fundi/${op}`, { code: 'x = 1', ...(op === 'convert' ? { target_language: 'python' } : {}) });
      assert.equal(res.status, 501, `${op}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'MODEL_NOT_CONFIGURED');
      assert.match(res.body.message, /LOUPE_CHAT_BASE_URL/);
      assert.equal(res.headers['retry-after'], undefined, 'nothing to wait for');
    }
    assert.equal(t.engine.accounts.meta(t.ownerId).credits_used, 0);
    assert.equal((await t.call('GET', '/v2/history?limit=5')).body.data.length, 0, 'no history row');
  } finally {
    await t.close();
  }
});

test('V1 chat is POST /v2/search with chat: true folded into one answer; charged once, threaded by conversation_id', async () => {
  const t = await createTestApp();
  const folder = copyFixture('ts-paths');
  try {
    await t.call('POST', '/v2/repos/index/new', { url: folder });
    await t.engine.queue.idle();
    const before = t.engine.accounts.meta(t.ownerId).credits_used;
    const first = await t.call('POST', '/v1/fundi/chat', { message: 'where is the area of a circle computed?' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.headers.deprecation, 'true');
    const answer = first.body.data;
    assert.ok(answer.answer.length > 0);
    assert.equal(answer.model, 'loupe-grounded');
    assert.ok(answer.context_files.length > 0);
    assert.ok(answer.conversation_id && answer.history_id);
    assert.equal(t.engine.accounts.meta(t.ownerId).credits_used - before, answer.credits_used, 'charged once, by the V2 search');
    const row = t.engine.history.get(t.ownerId, answer.history_id);
    assert.equal(row.category, 'research');

    const follow = await t.call('POST', '/v1/fundi/chat', { message: 'and the square?', conversation_id: answer.conversation_id });
    assert.equal(follow.status, 200, JSON.stringify(follow.body));
    const thread = await t.call('GET', `/v2/history/conversation/${answer.conversation_id}`);
    assert.deepEqual(thread.body.data.items.map((h: any) => h.query), ['where is the area of a circle computed?', 'and the square?']);

    const explained = await t.call('POST', '/v1/fundi/explain', { file_path: 'src/lib/math.ts', question: 'what does it export?' });
    assert.equal(explained.status, 200, JSON.stringify(explained.body));
    assert.equal(explained.body.data.source, 'index');
    assert.ok(explained.body.data.context_files.every((f: any) => f.file_path === 'src/lib/math.ts'), JSON.stringify(explained.body.data.context_files));
    assert.ok(explained.body.data.result.length > 0);
    assert.equal((await t.call('POST', '/v1/fundi/explain', { question: 'why?' })).body.message, 'code: is required unless file_path is given');
    assert.equal((await t.call('POST', '/v1/fundi/explain', { code: 'x', file_path: 'a.ts' })).status, 400);
    assert.equal((await t.call('POST', '/v1/fundi/explain', { code: 'x = 1' })).status, 501, 'a snippet needs a generative model');

    const bad = await t.call('POST', '/v1/fundi/chat', { message: 'x' });
    assert.equal(bad.status, 400);
    const unknownModel = await t.call('POST', '/v1/fundi/chat', { message: 'hello there', model: 'nope' });
    assert.equal(unknownModel.status, 400);
    assert.equal(unknownModel.body.code, 'UNKNOWN_MODEL');
    const b = addUser(t, { credits: 3 });
    const poor = await b.as('POST', '/v1/fundi/chat', { message: 'hello there' });
    assert.equal(poor.status, 402);
    assert.deepEqual([poor.body.required, poor.body.available], [5, 3]);
  } finally {
    await t.close();
  }
});
