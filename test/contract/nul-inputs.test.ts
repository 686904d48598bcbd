import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from '../../server/transport/common/openapi-operations';
import { documentedAbsence, loadContract } from './contract-helpers';
import { contractBackends } from './backends';
import { buildRequest } from './valid-requests';

type Json = Record<string, any>;
const { names, withBackend } = contractBackends();

/**
 * A NUL in every string input of every operation, one at a time (a path parameter, a query
 * parameter, a top-level body field; the rest a valid request): never an undocumented 5xx.
 * PostgreSQL's text cannot hold a NUL: the team server answered `GET /v2/repos?search=a%00b` with a
 * 500 (found by openapi-fuzz.test.ts); its parameters now carry U+FFFD, as COPY stores one (pg-db.ts).
 */
for (const name of names) test(`${name}: a NUL in any string input of any operation is never a 5xx`, () => withBackend(name, async (t) => {
  const { doc, operations } = await loadContract(t);
  const c = await t.setUp();
  const problems: string[] = [];
  let sent = 0;
  for (const op of operations) {
    if (['DELETE /v2/keys/{key_id}', 'POST /v2/keys/regenerate'].includes(op.key)) continue; // they change the owner's keys
    const base = buildRequest(op, c, doc);
    const [pathPart, queryPart] = base.url.split('?');
    const variants: { what: string; url: string; payload?: string }[] = [];
    const segments = op.path.split('/');
    segments.forEach((seg, i) => {
      if (!seg.startsWith('{')) return;
      const parts = pathPart!.split('/');
      parts[i] = `${parts[i]}%00x`;
      variants.push({ what: `path ${seg}`, url: parts.join('/') + (queryPart ? `?${queryPart}` : ''), payload: base.payload });
    });
    for (const p of op.queryParams) {
      const q = new URLSearchParams(queryPart ?? '');
      q.set(p.name, 'a\u0000b');
      variants.push({ what: `query.${p.name}`, url: `${pathPart}?${q}`, payload: base.payload });
    }
    const body = base.payload ? JSON.parse(base.payload) : undefined;
    const props = (resolve(doc, op.body?.schema ?? {}) as Json).properties ?? {};
    for (const field of Object.keys(props)) {
      variants.push({ what: `body.${field}`, url: base.url, payload: JSON.stringify({ ...(body ?? {}), [field]: 'a\u0000b' }) });
    }
    for (const v of variants) {
      sent++;
      const res = await t.inject({
        method: op.method, url: v.url, payload: v.payload,
        headers: { 'x-api-key': t.key, accept: 'application/json', ...(v.payload === undefined ? {} : { 'content-type': 'application/json' }) },
      });
      const type = String(res.headers['content-type'] ?? '');
      const body = type.includes('json') && !type.includes('ndjson') ? JSON.parse(res.body) : {};
      if (res.statusCode >= 500 && !documentedAbsence(op.key, res.statusCode, body)) problems.push(`${op.key} with a NUL in ${v.what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      else if (res.statusCode >= 400 && (body.status !== 'error' || typeof body.code !== 'string')) problems.push(`${op.key} with a NUL in ${v.what}: ${res.statusCode} not the error shape: ${res.body.slice(0, 200)}`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(sent >= 50, `only ${sent} inputs`);
}));
