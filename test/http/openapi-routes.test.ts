import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/engine';

/** The spec's routes, as METHOD + OpenAPI path. Each must be in /openapi.json with its schemas. */
export const SPEC_ROUTES = [
  'POST /v2/auth/authenticate', 'POST /v2/auth/verify', 'POST /v2/auth/resend',
  'GET /v2/repos', 'GET /v2/public/repos', 'POST /v2/repos/index/new', 'POST /v2/repos/status',
  'GET /v2/repos/{repo_id}/readme', 'GET /v2/repos/{repo_id}/blueprint', 'POST /v2/repos/{repo_id}/scope',
  'POST /v2/repos/{repo_id}/radius', 'GET /v2/repos/{repo_id}/map',
  'POST /v2/repos/{repo_id}/review', 'GET /v2/repos/{repo_id}/coverage-gaps',
  'POST /v2/search',
  'GET /v2/files/{repo_id}', 'GET /v2/files/{repo_id}/{file_id}',
  'GET /v2/history', 'GET /v2/history/{history_id}', 'GET /v2/history/conversation/{conversation_id}',
  'GET /v2/stats/usage', 'GET /v2/stats/activity', 'GET /v2/stats/languages',
  'GET /v2/keys', 'POST /v2/keys/regenerate', 'DELETE /v2/keys/{key_id}',
  'GET /v2/models', 'GET /v2/models/limits', 'POST /v2/agent/credentials',
  'GET /v1/fundi', 'GET /v1/fundi/models', 'POST /v1/fundi/chat', 'POST /v1/fundi/explain', 'POST /v1/fundi/history',
];

/** Deprecated operations must say so in the document. */
const DEPRECATED = ['GET /v2/repos/{repo_id}/readme', 'GET /v1/fundi', 'POST /v1/fundi/chat'];

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
      assert.ok(op.responses['400'] || method !== 'POST', `${route} documents no 400`);
      assert.ok(op.responses['500'], `${route} documents no 500`);
      const bodyless = ['POST /v2/keys/regenerate', 'POST /v2/agent/credentials', 'POST /v1/fundi/history'];
      if (method === 'POST' && !bodyless.includes(route)) assert.ok(op.requestBody, `${route} has no request body schema`);
    }
    for (const route of DEPRECATED) {
      const [method, path] = route.split(' ');
      assert.equal(doc.paths[path][method.toLowerCase()].deprecated, true, `${route} is not marked deprecated`);
    }
  } finally {
    await t.close();
  }
});
