import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/engine';

/** The spec's routes, as METHOD + OpenAPI path. Each must be in /openapi.json with its schemas. */
export const SPEC_ROUTES = [
  'POST /v2/repos/index/new',
  'POST /v2/repos/status',
  'GET /v2/repos',
  'GET /v2/public/repos',
  'GET /v2/files/{repo_id}',
];

test('every route of the spec is in /openapi.json with request and response schemas', async () => {
  const t = await createTestApp();
  try {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = JSON.parse(res.body);
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(doc.components.securitySchemes.ApiKey, { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A key UUID.' });
    for (const route of SPEC_ROUTES) {
      const [method, path] = route.split(' ');
      const op = doc.paths[path]?.[method.toLowerCase()];
      assert.ok(op, `${route} is missing from /openapi.json`);
      assert.ok(op.operationId, `${route} has no operationId`);
      assert.ok(op.responses['200'], `${route} has no 200 response`);
      assert.ok(op.responses['400'] || method === 'GET', `${route} documents no 400`);
      assert.ok(op.responses['500'], `${route} documents no 500`);
      if (method === 'POST') assert.ok(op.requestBody, `${route} has no request body schema`);
    }
  } finally {
    await t.close();
  }
});
