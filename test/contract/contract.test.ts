import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadContract } from './contract-helpers';
import { buildRequest, LAST, NOT_2XX } from './valid-requests';
import { contractBackends } from './backends';

/**
 * The suite runs on each backend: the embedded engine on SQLite (in-process), and a team server
 * (real `serve` and `worker` processes on a private PostgreSQL, over HTTP), started once for the file.
 */
const { names: BACKENDS, withBackend } = contractBackends();

/**
 * Cases that cannot run on the team server yet, by operation, with the reason. (None so far: a case
 * listed here is skipped on the team server only, and the list is checked to name real operations.)
 */
export const NOT_ON_TEAM: Record<string, string> = {};

/**
 * Every documented operation, called with a valid request, answers as the document says: a
 * documented status, a documented content type, a body that matches the schema. The operations
 * come from /openapi.json, so a new route is covered as soon as it is documented; inputs come from
 * its schemas, plus the few facts a schema cannot express (an existing folder, real ids) below.
 */
for (const name of BACKENDS) test(`${name}: every operation answers a valid request as /openapi.json documents it`, () => withBackend(name, async (t) => {
  {
    const contract = await loadContract(t);
    for (const k of Object.keys(NOT_ON_TEAM)) assert.ok(contract.operations.some((op) => op.key === k), `NOT_ON_TEAM names no operation: ${k}`);
    assert.ok(contract.operations.length >= 30, `only ${contract.operations.length} operations documented`);
    const c = await t.setUp();
    let key = t.key;
    const ordered = [...contract.operations].sort((a, b) => LAST.indexOf(a.key) - LAST.indexOf(b.key));
    const problems: string[] = [];
    for (const op of ordered) {
      if (name === 'team' && op.key in NOT_ON_TEAM) continue;
      const request = buildRequest(op, c, contract.doc);
      const res = await t.inject({ method: op.method as never, url: request.url, payload: request.payload, headers: { 'x-api-key': key, ...request.headers } });
      const contentType = String(res.headers['content-type'] ?? '');
      let body: unknown = res.body;
      if (contentType.includes('json') && !contentType.includes('ndjson')) body = JSON.parse(res.body);
      if (contentType.includes('ndjson')) continue; // checked line by line in ndjson.test.ts
      const mismatch = contract.checkResponse(op, res.statusCode, contentType, body);
      if (mismatch) problems.push(mismatch);
      const expected2xx = !(op.key in NOT_2XX) && !(op.key === 'GET /v2/history/conversation/{conversation_id}' && !c.conversationId);
      // 501 MODEL_NOT_CONFIGURED: no generative model here; 503: a service the tests do not reach.
      const unconfigured = res.statusCode === 501 && /MODEL_NOT_CONFIGURED/.test(res.body);
      if (res.statusCode >= 500 && !unconfigured && !(res.statusCode === 503 && /unavailable|not configured|no model|could not be reached/i.test(res.body))) problems.push(`${op.key}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      else if (expected2xx && res.statusCode >= 300 && res.statusCode !== 503 && !unconfigured) problems.push(`${op.key}: a valid request got ${res.statusCode} ${res.body.slice(0, 300)}`);
      if (op.key === 'POST /v2/keys/regenerate' && res.statusCode === 200) key = (body as { data: { key: string } }).data.key;
    }
    assert.deepEqual(problems, []);
  }
}));

for (const name of BACKENDS) test(`${name}: the document itself: servers, operation ids, summaries, the key scheme, error responses in the error shape`, () => withBackend(name, async (t) => {
  {
    const { doc, operations } = await loadContract(t);
    assert.ok((doc.servers as unknown[] | undefined)?.length, 'servers');
    assert.deepEqual((doc.components as any).securitySchemes.ApiKey, { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A key UUID.' });
    assert.ok(operations.length > 0);
    // Every tag is declared with a description: the agent card makes one skill of each.
    const declared = new Set(((doc.tags ?? []) as { name: string; description?: string }[]).filter((t) => t.description).map((t) => t.name));
    for (const op of operations) assert.ok(declared.has(op.tag), `${op.key}: tag ${op.tag} is not declared with a description`);
    const ids = new Set<string>();
    for (const op of operations) {
      assert.ok(op.operationId, `${op.key}: operationId`);
      assert.ok(!ids.has(op.operationId!), `${op.key}: operationId ${op.operationId} is not unique`);
      ids.add(op.operationId!);
      assert.ok(op.summary, `${op.key}: summary`);
      const responses = (doc.paths as any)[op.path][op.method.toLowerCase()].responses as Record<string, any>;
      const errors = Object.keys(responses).filter((s) => /^[45]/.test(s));
      assert.ok(errors.some((s) => s.startsWith('4')), `${op.key}: documents no 4xx`);
      assert.ok(errors.includes('500'), `${op.key}: documents no 500`);
      if (op.needsKey) assert.ok(errors.includes('401'), `${op.key}: protected but documents no 401`);
      for (const s of errors) {
        const schema = responses[s].content?.['application/json']?.schema;
        assert.equal(schema?.$ref, '#/components/schemas/ErrorBody', `${op.key} ${s}: not the error shape`);
      }
    }
  }
}));

for (const name of BACKENDS) test(`${name}: unknown routes are 404 and wrong methods 405, in the error shape`, () => withBackend(name, async (t) => {
  {
    const { operations } = await loadContract(t);
    const unknown = await t.call('GET', '/v2/no-such-thing');
    assert.equal(unknown.status, 404);
    assert.deepEqual(Object.keys(unknown.body).sort(), ['code', 'message', 'status']);
    assert.equal(unknown.body.code, 'ROUTE_NOT_FOUND');
    for (const op of operations) {
      const methods = new Set(operations.filter((o) => o.path === op.path).map((o) => o.method));
      const wrong = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].find((m) => !methods.has(m))!;
      const url = op.path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      const res = await t.call(wrong, url, wrong === 'GET' || wrong === 'DELETE' ? undefined : {});
      assert.equal(res.status, 405, `${wrong} ${url}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'METHOD_NOT_ALLOWED');
      assert.equal(res.body.status, 'error');
      // Allow lists every method some route accepts at this URL (a parametric route may match it too).
      const allow = String(res.headers.allow).split(', ');
      assert.ok(!allow.includes(wrong) && allow.some((m) => methods.has(m)), `${wrong} ${url}: Allow ${res.headers.allow}`);
    }
  }
}));
