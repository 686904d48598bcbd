import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFixture, createTestApp, type TestApp } from '../helpers/engine';
import { newId } from '../../server/engine/util/ids';
import type { Operation } from '../../server/transport/a2a/operations';
import { loadContract, validSample } from './contract-helpers';

/**
 * Every documented operation, called with a valid request, answers as the document says: a
 * documented status, a documented content type, a body that matches the schema. The operations
 * come from /openapi.json, so a new route is covered as soon as it is documented; inputs come from
 * its schemas, plus the few facts a schema cannot express (an existing folder, real ids) below.
 */
interface Ctx { folder: string; repoId: string; fileId: string; historyId?: string; conversationId?: string; spareKeyId: string }
type Input = { pathParams?: Record<string, string>; query?: Record<string, string>; body?: unknown; headers?: Record<string, string> };

const INPUTS: Record<string, (c: Ctx) => Input> = {
  'POST /v2/repos/index/new': (c) => ({ body: { url: c.folder } }),
  'POST /v2/repos/status': (c) => ({ body: { url: c.folder } }),
  'POST /v2/repos/{repo_id}/radius': () => ({ body: { file: 'src/lib/math.ts' } }),
  'POST /v2/repos/{repo_id}/review': () => ({ body: { files: ['src/lib/math.ts'] } }),
  'POST /v2/auth/authenticate': () => ({ body: { auth_mode: 'otp', email: 'contract-agent@example.com', should_create_user: true } }),
  'POST /v2/auth/resend': () => ({ body: { email: 'contract-agent@example.com', type: 'signup' } }),
  'POST /v1/fundi/convert': () => ({ body: { code: 'const a = 1;', target_language: 'python' } }),
  'POST /v2/search': (c) => ({ body: { query: 'math add', repo_ids: [c.repoId] } }),
};

/** Valid requests that still cannot succeed here, and why (the answer must still match the document). */
const NOT_2XX: Record<string, string> = {
  'POST /v2/auth/verify': 'the code is made up, so it is refused (400)',
};

/** Run last: they change the caller's keys. */
const LAST = ['DELETE /v2/keys/{key_id}', 'POST /v2/keys/regenerate'];

function pathParam(name: string, c: Ctx): string | undefined {
  return ({ repo_id: c.repoId, file_id: c.fileId, history_id: c.historyId, conversation_id: c.conversationId, key_id: c.spareKeyId } as Record<string, string | undefined>)[name];
}

function buildRequest(op: Operation, c: Ctx, doc: any): { url: string; payload?: string; headers: Record<string, string> } {
  const input = INPUTS[op.key]?.(c) ?? {};
  let url = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(input.pathParams?.[name] ?? pathParam(name, c) ?? String(validSample(op.pathParams.find((p) => p.name === name)?.schema, doc, name))));
  const query = new URLSearchParams(input.query ?? {});
  for (const p of op.queryParams) {
    if (p.required && p.schema.default === undefined && !query.has(p.name)) query.set(p.name, String(validSample(p.schema, doc, p.name)));
  }
  if (query.size) url += `?${query}`;
  const body = input.body ?? (op.body?.required ? validSample(op.body.schema, doc, 'body') : undefined);
  return { url, payload: body === undefined ? undefined : JSON.stringify(body), headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...input.headers } };
}

async function setUp(t: TestApp): Promise<Ctx> {
  const folder = copyFixture('ts-paths');
  const indexed = await t.call('POST', '/v2/repos/index/new', { url: folder });
  assert.equal(indexed.status, 200, JSON.stringify(indexed.body));
  await t.engine.queue.idle();
  const repoId = indexed.body.data.repo.repo_id;
  const files = await t.call('GET', `/v2/files/${repoId}?search=math`);
  const history = await t.call('GET', '/v2/history?limit=100');
  const rows = (history.body?.data ?? []) as { history_id: string; conversation_id: string | null }[];
  const spareKey = newId();
  return {
    folder, repoId, fileId: files.body.data[0].id, historyId: rows[0]?.history_id, conversationId: rows.find((r) => r.conversation_id)?.conversation_id ?? undefined,
    spareKeyId: t.engine.accounts.addKey(t.ownerId, spareKey, 'active'),
  };
}

test('every operation answers a valid request as /openapi.json documents it', async () => {
  const t = await createTestApp();
  try {
    const contract = await loadContract(t.app);
    const c = await setUp(t);
    let key = t.key;
    const ordered = [...contract.operations].sort((a, b) => LAST.indexOf(a.key) - LAST.indexOf(b.key));
    const problems: string[] = [];
    for (const op of ordered) {
      const request = buildRequest(op, c, contract.doc);
      const res = await t.app.inject({ method: op.method as never, url: request.url, payload: request.payload, headers: { 'x-api-key': key, ...request.headers } });
      const contentType = String(res.headers['content-type'] ?? '');
      let body: unknown = res.body;
      if (contentType.includes('json') && !contentType.includes('ndjson')) body = JSON.parse(res.body);
      if (contentType.includes('ndjson')) continue; // checked line by line in ndjson.test.ts
      const mismatch = contract.checkResponse(op, res.statusCode, contentType, body);
      if (mismatch) problems.push(mismatch);
      const expected2xx = !(op.key in NOT_2XX) && !(op.key === 'GET /v2/history/conversation/{conversation_id}' && !c.conversationId);
      if (res.statusCode >= 500 && !(res.statusCode === 503 && /unavailable|not configured|no model/i.test(res.body))) problems.push(`${op.key}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      else if (expected2xx && res.statusCode >= 300 && res.statusCode !== 503) problems.push(`${op.key}: a valid request got ${res.statusCode} ${res.body.slice(0, 300)}`);
      if (op.key === 'POST /v2/keys/regenerate' && res.statusCode === 200) key = (body as { data: { key: string } }).data.key;
    }
    assert.deepEqual(problems, []);
  } finally {
    await t.close();
  }
});

test('the document itself: servers, operation ids, summaries, the key scheme, error responses in the error shape', async () => {
  const t = await createTestApp();
  try {
    const { doc, operations } = await loadContract(t.app);
    assert.ok((doc.servers as unknown[] | undefined)?.length, 'servers');
    assert.deepEqual((doc.components as any).securitySchemes.ApiKey, { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A key UUID.' });
    assert.ok(operations.length > 0);
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
  } finally {
    await t.close();
  }
});

test('unknown routes are 404 and wrong methods 405, in the error shape', async () => {
  const t = await createTestApp();
  try {
    const { operations } = await loadContract(t.app);
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
  } finally {
    await t.close();
  }
});
