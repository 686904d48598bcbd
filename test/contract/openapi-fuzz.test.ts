import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { copyFixture, SHARE_TMP_WITH_EVERYONE } from '../helpers/engine';
import type { OpenApiDocument, Operation } from '../../server/transport/common/openapi-operations';
import { resolve } from '../../server/transport/common/openapi-operations';
import { documentedAbsence, loadContract } from './contract-helpers';
import { contractBackends, type ContractBackend } from './backends';

/**
 * A fuzz run generated from /openapi.json: for every operation, a few hundred requests whose path
 * parameters, query strings and bodies are drawn from its own schemas — valid values, hostile
 * strings (traversal, NUL, regexes, SQL and FTS syntax, URLs), numbers at the edges (paging
 * extremes included: 0, -1, 2^31, 2^53, 1e308, Infinity, NaN), fields left out or added — and not
 * one answer is a 5xx; every answer is JSON, and every error is the envelope with a code. The only
 * 5xx allowed are the documented ones for services this test does not have: 501
 * MODEL_NOT_CONFIGURED (no generative model) and 503 from GitHub (unreachable here).
 *
 * On both backends (backends.ts). The team server answers over real HTTP, each keyed request a few
 * round trips to PostgreSQL, so it draws fewer requests per operation (the same seed, the same
 * generators: its draws are the SQLite run's first ones).
 */
type Json = Record<string, any>;
const RUNS: Record<ContractBackend['name'], number> = {
  sqlite: Number(process.env.LOUPE_FUZZ_RUNS ?? 200),
  team: Number(process.env.LOUPE_FUZZ_TEAM_RUNS ?? process.env.LOUPE_FUZZ_RUNS ?? 40),
};

const HOSTILE_STRINGS = [
  '', ' ', '..', '../../../../etc/passwd', '/etc/passwd', '%00', '\u0000', 'a\u0000b', '\ud800', '😀'.repeat(50), 'x'.repeat(5000),
  '-', '--upload-pack=touch /tmp/pwned', '/(a+)+$/', '/[/', '(', '*', '**/*', '"', "' OR 1=1 --", 'NEAR(a b)', 'a* OR b*', '%', '_',
  // No reachable repository (no /tmp, no github.com URL): the fuzz must not index the machine or the internet.
  'https://github.com/../../x', 'https://gitlab.com/a/b', 'file:///etc', 'http://127.0.0.1:1/', 'C:\\Windows', '00000000-0000-4000-8000-000000000000',
  'null', 'undefined', '__proto__', 'constructor', 'true', '0', '-1', 'NaN', 'Infinity', '1e308',
];
const EXTREME_NUMBERS = [0, -0, 1, -1, 0.5, 2 ** 31, -(2 ** 31), 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e308, -1e308, Number.MIN_VALUE];
const EXTREME_QUERY_NUMBERS = ['0', '-1', '1.5', 'Infinity', '-Infinity', 'NaN', '1e308', '9007199254740993', '0x10', ' 1', '1 ', '', '01', '+1', '-0'];

function arb(schema: Json | undefined, doc: OpenApiDocument, inQuery: boolean, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(doc, schema ?? {}) as Json;
  const alt = s.anyOf ?? s.oneOf;
  const hostile = fc.constantFrom<unknown>(...HOSTILE_STRINGS);
  if (alt) return fc.oneof(...alt.map((a: Json) => arb(a, doc, inQuery, depth)));
  if (s.const !== undefined) return fc.oneof({ weight: 4, arbitrary: fc.constant(s.const) }, { weight: 1, arbitrary: hostile });
  if (s.enum) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...s.enum) }, { weight: 1, arbitrary: hostile });
  const type = [s.type ?? 'any'].flat()[0];
  if (type === 'integer' || type === 'number') {
    const bounded = fc.integer({ min: Math.max(-1000, s.minimum ?? -1000), max: Math.min(1000, s.maximum ?? 1000) });
    if (inQuery) return fc.oneof(bounded.map(String), fc.constantFrom(...EXTREME_QUERY_NUMBERS));
    return fc.oneof(bounded, fc.constantFrom<unknown>(...EXTREME_NUMBERS), fc.double(), hostile);
  }
  if (type === 'boolean') return inQuery ? fc.constantFrom('true', 'false', '1', '0', 'yes', '') : fc.oneof(fc.boolean(), hostile);
  if (type === 'string') return fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), hostile);
  if (inQuery) return fc.oneof(fc.string({ maxLength: 20 }), hostile);
  if (depth > 3) return fc.constant(null);
  if (type === 'array') return fc.oneof(fc.array(arb(s.items, doc, false, depth + 1), { maxLength: 4 }), fc.constant(Array.from({ length: 200 }, () => 'x')), hostile);
  if (type === 'object' || s.properties) {
    const props = Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, arb(v as Json, doc, false, depth + 1)]));
    const record = fc.record(props, { requiredKeys: [] });
    return fc.oneof({ weight: 6, arbitrary: record }, { weight: 1, arbitrary: record.map((r) => ({ ...r, no_such_field: 1 })) }, { weight: 1, arbitrary: hostile });
  }
  return fc.oneof(fc.jsonValue({ maxDepth: 2 }), hostile);
}

/** A path segment; a lone surrogate (no UTF-8 for it) goes as the bytes of one, which is invalid UTF-8. */
const pathSegment = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
};

interface Draw { path: Record<string, string>; query: Record<string, string>; body?: unknown }

function requests(op: Operation, doc: OpenApiDocument, realIds: Record<string, string[]>): fc.Arbitrary<Draw> {
  const path = fc.record(Object.fromEntries(op.pathParams.map((p) => [p.name,
    fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...(realIds[p.name] ?? ['00000000-0000-4000-8000-000000000000'])) }, { weight: 2, arbitrary: arb(p.schema, doc, true).map(String) })])), { requiredKeys: op.pathParams.map((p) => p.name) }) as fc.Arbitrary<Record<string, string>>;
  const query = fc.record(Object.fromEntries(op.queryParams.map((p) => [p.name, arb(p.schema, doc, true).map(String)])), { requiredKeys: [] }) as fc.Arbitrary<Record<string, string>>;
  const body = op.body ? arb(op.body.schema, doc, false) : fc.constant(undefined);
  return fc.record({ path, query, body }, { requiredKeys: ['path', 'query'] }) as fc.Arbitrary<Draw>;
}

const { names, withBackend } = contractBackends({ accounts: { owner: { credits: 1_000_000_000 }, ...SHARE_TMP_WITH_EVERYONE } });

for (const name of names) test(`${name}: fuzz from /openapi.json: ${RUNS[name]} requests per operation, paging extremes included, and not one 5xx`, { timeout: 900_000 }, () => withBackend(name, async (t) => {
  {
    const runs = RUNS[name];
    const { doc, operations } = await loadContract(t);
    const folder = copyFixture('ts-paths');
    const repoId = await t.index(folder);
    const files = await t.call('GET', `/v2/files/${repoId}?limit=3`);
    const history = await t.call('GET', '/v2/history?limit=3');
    const realIds: Record<string, string[]> = {
      repo_id: [repoId, encodeURIComponent(folder)], file_id: files.body.data.map((f: Json) => f.id),
      history_id: history.body.data.map((h: Json) => h.history_id), conversation_id: ['00000000-0000-4000-8000-000000000000'],
    };
    let key = t.key;
    const counts: Record<string, Record<string, number>> = {};
    for (const op of operations) {
      if (op.key === 'DELETE /v2/keys/{key_id}') realIds.key_id = ['00000000-0000-4000-8000-000000000000'];
      const seen: Record<string, number> = (counts[op.key] = {});
      await fc.assert(fc.asyncProperty(requests(op, doc, realIds), async (d) => {
        const url = op.path.replace(/\{([^}]+)\}/g, (_, param: string) => pathSegment(d.path[param] ?? 'x'));
        const qs = new URLSearchParams(d.query).toString();
        const payload = d.body === undefined ? undefined : JSON.stringify(d.body);
        const res = await t.inject({
          method: op.method, url: `${url}${qs ? `?${qs}` : ''}`, payload,
          headers: { 'x-api-key': key, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
        });
        seen[res.statusCode] = (seen[res.statusCode] ?? 0) + 1;
        const where = `${op.key} ${url}?${qs} ${payload?.slice(0, 200) ?? ''} → ${res.statusCode} ${res.body.slice(0, 300)}`;
        const type = String(res.headers['content-type'] ?? '');
        if (type.includes('ndjson')) return; // a stream (research): its lines are checked in ndjson.test.ts
        const body = JSON.parse(res.body);
        assert.ok(res.statusCode < 500 || documentedAbsence(op.key, res.statusCode, body), where);
        if (res.statusCode >= 400) {
          assert.equal(body.status, 'error', where);
          assert.equal(typeof body.code, 'string', where);
        }
        if (op.key === 'POST /v2/keys/regenerate' && res.statusCode === 200) key = body.data.key;
      }), { numRuns: runs, seed: 20261126, endOnFailure: true, includeErrorInReport: true });
    }
    const total = Object.values(counts).reduce((n, c) => n + Object.values(c).reduce((a, b) => a + b, 0), 0);
    const statuses: Record<string, number> = {};
    for (const c of Object.values(counts)) for (const [status, n] of Object.entries(c)) statuses[status] = (statuses[status] ?? 0) + n;
    console.log(`# ${name}: ${operations.length} operations, ${total} requests; statuses: ${JSON.stringify(statuses)}`);
    assert.ok(total >= operations.length * runs);
  }
}));

