import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/engine';
import { startLocalLlm } from './local-llm-server';

test('GET /v2/models lists the built-in model as default and a configured server\'s models; limits per model', async () => {
  const llm = await startLocalLlm();
  const t = await createTestApp({ research: { openai: { baseUrl: llm.baseUrl, models: ['echo-1'], contextWindow: 16384, maxOutput: 2048 } } });
  try {
    const res = await t.call('GET', '/v2/models');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data.map((m: { id: string; default: boolean; kind: string }) => [m.id, m.default, m.kind]),
      [['loupe-grounded', true, 'extractive'], ['echo-1', false, 'llm']]);
    assert.match(res.body.data[0].description, /Not a language model/);
    assert.equal(res.body.data[1].provider, 'openai-compatible');

    const limits = await t.call('GET', '/v2/models/limits');
    assert.equal(limits.status, 200);
    assert.deepEqual(limits.body.data.find((m: { id: string }) => m.id === 'echo-1'), { id: 'echo-1', context_window: 16384, max_output: 2048, max_input: 14336 });
    const one = await t.call('GET', '/v2/models/limits?model=loupe-grounded');
    assert.deepEqual(one.body.data.map((m: { id: string }) => m.id), ['loupe-grounded']);
    const unknown = await t.call('GET', '/v2/models/limits?model=gpt-9');
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, 'UNKNOWN_MODEL');
    assert.match(unknown.body.message, /model: "gpt-9" is not an available chat model; available: loupe-grounded, echo-1/);
    assert.equal((await t.app.inject({ method: 'GET', url: '/v2/models' })).statusCode, 401);

    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.ok(spec.paths['/v2/models'].get.responses['200']);
    assert.ok(spec.paths['/v2/models/limits'].get.responses['200']);
  } finally {
    await t.close();
    await llm.close();
  }
});
