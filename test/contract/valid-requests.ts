import assert from 'node:assert/strict';
import { copyFixture, type TestApp } from '../helpers/engine';
import { newId } from '../../server/engine/util/ids';
import type { Operation } from '../../server/transport/common/openapi-operations';
import { validSample } from './contract-helpers';

/**
 * Valid requests for any documented operation: inputs from its schemas, plus the facts a schema
 * cannot state (an existing folder, ids of real rows), listed per operation below.
 */
export interface Ctx { folder: string; repoId: string; fileId: string; historyId?: string; conversationId?: string; spareKeyId: string }
type Input = { pathParams?: Record<string, string>; query?: Record<string, string>; body?: unknown; headers?: Record<string, string> };

export const INPUTS: Record<string, (c: Ctx) => Input> = {
  'POST /v2/repos/index/new': (c) => ({ body: { url: c.folder } }),
  'POST /v2/repos/status': (c) => ({ body: { url: c.folder } }),
  'POST /v2/repos/{repo_id}/radius': () => ({ body: { file: 'src/lib/math.ts' } }),
  'POST /v2/repos/{repo_id}/review': () => ({ body: { files: ['src/lib/math.ts'] } }),
  'POST /v2/auth/authenticate': () => ({ body: { auth_mode: 'otp', email: 'contract-agent@example.com', should_create_user: true } }),
  'POST /v2/auth/resend': () => ({ body: { email: 'contract-agent@example.com', type: 'signup' } }),
  'POST /v1/fundi/convert': () => ({ body: { code: 'const a = 1;', target_language: 'python' } }),
  // code or file_path is required (one of the two: a rule the schema does not state).
  ...Object.fromEntries(['explain', 'optimize', 'debug', 'comment'].map((op) => [`POST /v1/fundi/${op}`, () => ({ body: { code: 'const a = 1;' } })])),
  'POST /v2/search': (c) => ({ body: { query: 'math add', repo_ids: [c.repoId] } }),
};

/** Valid requests that still cannot succeed here, and why (the answer must still match the document). */
export const NOT_2XX: Record<string, string> = {
  'POST /v2/auth/verify': 'the code is made up, so it is refused (400)',
  'PUT /v2/keys/github-token': 'the token is checked with GitHub, which the tests do not reach (503)',
};

/** Run last: they change the caller's keys. */
export const LAST = ['DELETE /v2/keys/{key_id}', 'POST /v2/keys/regenerate'];

function pathParam(name: string, c: Ctx): string | undefined {
  return ({ repo_id: c.repoId, file_id: c.fileId, history_id: c.historyId, conversation_id: c.conversationId, key_id: c.spareKeyId } as Record<string, string | undefined>)[name];
}

export function buildRequest(op: Operation, c: Ctx, doc: any): { url: string; payload?: string; headers: Record<string, string> } {
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

export async function setUp(t: TestApp): Promise<Ctx> {
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

