import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { copyFixture } from '../helpers/engine';
import type { OpenApiDocument, Operation } from '../../server/transport/common/openapi-operations';
import { resolve } from '../../server/transport/common/openapi-operations';
import { loadContract, validSample } from './contract-helpers';
import { contractBackends } from './backends';

/**
 * Property: whatever invalid input an operation is sent — a wrong type, a number out of range, a
 * string too long, an unknown enum value, a missing or unknown field, a huge body — the answer is
 * a 4xx in the error shape, never a 500, and nothing is written. Cases are generated from each
 * operation's own schemas in /openapi.json, so new routes are covered as they appear. Runs on both
 * backends (backends.ts): "nothing written" is every table's row count, on SQLite or PostgreSQL.
 */
type Json = Record<string, any>;
interface Case { what: string; query?: Record<string, string>; body?: unknown; rawBody?: string }

const typesOf = (schema: Json, doc: OpenApiDocument): string[] => {
  schema = resolve(doc, schema);
  const alt = schema?.anyOf ?? schema?.oneOf;
  if (alt) return alt.flatMap((s: Json) => typesOf(s, doc));
  if (schema?.const !== undefined) return [typeof schema.const];
  if (schema?.enum) return [...new Set(schema.enum.map((v: unknown) => (v === null ? 'null' : typeof v)))] as string[];
  return [schema?.type ?? 'any'].flat();
};
const enumOf = (schema: Json, doc: OpenApiDocument): unknown[] | null => {
  schema = resolve(doc, schema);
  const alt = schema?.anyOf ?? schema?.oneOf;
  if (alt) { const all = alt.map((s: Json) => enumOf(s, doc)); return all.every(Boolean) ? all.flat() : null; }
  if (schema?.const !== undefined) return [schema.const];
  return schema?.enum ?? null;
};
const firstOf = (schema: Json, doc: OpenApiDocument): Json => {
  schema = resolve(doc, schema);
  const alt = schema?.anyOf ?? schema?.oneOf;
  return alt ? firstOf(alt.find((s: Json) => resolve(doc, s)?.type !== 'null') ?? alt[0], doc) : schema ?? {};
};

/** A value of none of these JSON types. */
function wrongType(types: string[]): fc.Arbitrary<unknown> {
  const all: [string, fc.Arbitrary<unknown>][] = [
    ['string', fc.string({ minLength: 1, maxLength: 8 }).map((s) => `~${s}`)],
    ['integer', fc.integer({ min: -1000, max: 1000 })],
    ['boolean', fc.boolean()],
    ['array', fc.array(fc.integer(), { maxLength: 2 })],
    ['object', fc.constant({ unexpected: true })],
    ['null', fc.constant(null)],
  ];
  const excluded = new Set(types.includes('number') ? [...types, 'integer'] : types);
  return fc.oneof(...all.filter(([t]) => !excluded.has(t)).map(([, a]) => a));
}

/** Invalid values for one field, from its schema. */
function invalidValues(schema: Json, doc: OpenApiDocument, inQuery: boolean): fc.Arbitrary<{ why: string; value: unknown }>[] {
  const s = firstOf(schema, doc);
  const types = typesOf(schema, doc);
  const out: fc.Arbitrary<{ why: string; value: unknown }>[] = [];
  if (types.includes('any')) return out;
  if (!inQuery) out.push(wrongType(types).map((value) => ({ why: 'wrong type', value })));
  else if (types.every((t) => t === 'integer' || t === 'number' || t === 'boolean')) out.push(fc.constantFrom('abc', '1.5x', '').map((value) => ({ why: 'not a number', value })));
  const values = enumOf(schema, doc);
  if (values) out.push(fc.string({ minLength: 1, maxLength: 12 }).map((v) => `zz-${v}`).filter((v) => !values.includes(v)).map((value) => ({ why: 'unknown enum value', value })));
  if (typeof s.maximum === 'number') out.push(fc.integer({ min: s.maximum + 1, max: s.maximum + 1_000_000 }).map((value) => ({ why: 'above maximum', value })));
  if (typeof s.minimum === 'number') out.push(fc.integer({ min: s.minimum - 1_000_000, max: s.minimum - 1 }).map((value) => ({ why: 'below minimum', value })));
  if (s.type === 'integer') out.push(fc.double({ min: 1.1, max: 99.9, noInteger: true }).map((value) => ({ why: 'not an integer', value })));
  if (typeof s.maxLength === 'number' && s.maxLength < 50_000) out.push(fc.integer({ min: s.maxLength + 1, max: s.maxLength + 100 }).map((n) => ({ why: 'too long', value: 'a'.repeat(n) })));
  if (typeof s.maxItems === 'number' && s.maxItems < 1000) out.push(fc.constant({ why: 'too many items', value: Array.from({ length: s.maxItems + 1 }, () => validSample(s.items, doc)) }));
  return out;
}

function casesFor(op: Operation, doc: OpenApiDocument): fc.Arbitrary<Case>[] {
  const cases: fc.Arbitrary<Case>[] = [];
  for (const p of op.queryParams) {
    for (const arb of invalidValues(p.schema, doc, true)) cases.push(arb.map(({ why, value }) => ({ what: `query.${p.name}: ${why}`, query: { [p.name]: String(value) } })));
  }
  if (op.queryParams.length) cases.push(fc.constant({ what: 'unknown query parameter', query: { no_such_parameter: '1' } }));
  if (op.body) {
    const schema = firstOf(op.body.schema, doc);
    const valid = (validSample(schema, doc) ?? {}) as Json;
    for (const [name, prop] of Object.entries(schema.properties ?? {}) as [string, Json][]) {
      for (const arb of invalidValues(prop, doc, false)) cases.push(arb.map(({ why, value }) => ({ what: `body.${name}: ${why}`, body: { ...valid, [name]: value } })));
    }
    for (const name of schema.required ?? []) {
      if (firstOf(schema.properties?.[name] ?? {}, doc).default !== undefined || resolve(doc, schema.properties?.[name] ?? {}).default !== undefined) continue; // a default fills it in
      cases.push(fc.constant({ what: `body.${name}: missing`, body: Object.fromEntries(Object.entries(valid).filter(([k]) => k !== name)) }));
    }
    if (schema.additionalProperties === false) cases.push(fc.constant({ what: 'body: unknown field', body: { ...valid, no_such_field: 1 } }));
    cases.push(wrongType(['object', 'null']).map((body) => ({ what: 'body: not an object', body })));
    cases.push(fc.constant({ what: 'body: not JSON', rawBody: '{"unterminated": ' }));
    cases.push(fc.constant({ what: 'body: huge', rawBody: JSON.stringify({ ...valid, padding: 'x'.repeat(1_100_000) }) }));
  }
  return cases;
}

/** fc.assert, with the failed assertion's own message in the report. */
async function check(property: fc.IAsyncProperty<[Case]>, options: fc.Parameters<[Case]>): Promise<void> {
  const details = await fc.check(property, options);
  if (details.failed) throw new Error(`${(details.errorInstance as Error | undefined)?.message ?? 'property failed'}\ncounterexample: ${JSON.stringify(details.counterexample)?.slice(0, 500)}`);
}

const { names, withBackend } = contractBackends();

for (const name of names) test(`${name}: invalid inputs to every operation: a 4xx in the error shape, never a 500, nothing written`, () => withBackend(name, async (t) => {
  const { doc, operations } = await loadContract(t);
  const repoId = await t.index(copyFixture('ts-paths'));
  let covered = 0;
  for (const op of operations) {
    const cases = casesFor(op, doc);
    if (!cases.length) continue;
    covered++;
    const url = op.path.replace(/\{([^}]+)\}/g, (_, param: string) => (param === 'repo_id' ? repoId : '00000000-0000-4000-8000-000000000000'));
    await check(fc.asyncProperty(fc.oneof(...cases), async (c) => {
      const before = await t.rowCounts();
      const query = c.query ? `?${new URLSearchParams(c.query)}` : '';
      const payload = c.rawBody ?? (c.body === undefined ? undefined : JSON.stringify(c.body));
      const res = await t.inject({
        method: op.method, url: `${url}${query}`, payload,
        headers: { 'x-api-key': t.key, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      });
      const where = `${op.key} with ${c.what}: ${res.statusCode} ${res.body.slice(0, 300)}`;
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, where);
      const body = JSON.parse(res.body);
      assert.equal(body.status, 'error', where);
      assert.equal(typeof body.message, 'string', where);
      assert.equal(typeof body.code, 'string', where);
      // A field-level mistake is named: the message says which field (and the rule it broke).
      const field = /^(?:body|query)\.([^:]+):/.exec(c.what)?.[1];
      if (field) assert.ok(String(body.message).includes(field) || body.field === field, `${where}: the message does not name ${field}`);
      assert.deepEqual(await t.rowCounts(), before, `${where}: something was written`);
    }), { numRuns: 12, seed: 20261121 });
  }
  assert.ok(covered >= 5, `only ${covered} operations have inputs to vary`);
}));
