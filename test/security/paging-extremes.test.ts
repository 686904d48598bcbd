import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/engine';
import { loadContract } from '../contract/contract-helpers';
import { setUp, buildRequest } from '../contract/valid-requests';
import { rowCounts } from '../helpers/db-snapshot';
import { resolve } from '../../server/transport/common/openapi-operations';

/**
 * Attack: paging past the end of the number line. `offset=Infinity`, `1e308` and `2^53` are
 * "integers" to a JSON-schema validator once a query string is coerced; they reached SQL and the
 * page arithmetic and answered 500 (keyless on /v2/public/repos), and coverage-gaps charged for it.
 * Every operation with an `offset` in /openapi.json (query or body) answers 400 naming the field,
 * charges nothing and writes nothing.
 */
const EXTREMES = ['Infinity', '-Infinity', '1e308', String(2 ** 53), String(2 ** 53 + 2), '1e400', 'NaN', '-1', '0.5', '1e7x'];

test('offset at the extremes on every paged route is a 400 naming offset, free and unwritten', { timeout: 120_000 }, async () => {
  const t = await createTestApp();
  try {
    const { doc, operations } = await loadContract(t.app);
    const ctx = await setUp(t);
    const paged = operations.filter((op) => op.queryParams.some((p) => p.name === 'offset')
      || Object.keys(resolve(doc, op.body?.schema)?.properties ?? resolve(doc, op.body?.schema)?.anyOf?.find((s: any) => s.type === 'object')?.properties ?? {}).includes('offset'));
    assert.ok(paged.length >= 6, `paged routes found: ${paged.map((o) => o.key).join(', ')}`);
    const before = rowCounts(t.engine.db);
    const balance = t.engine.accounts.credits.balance(t.ownerId);
    for (const op of paged) {
      const base = buildRequest(op, ctx, doc);
      const inQuery = op.queryParams.some((p) => p.name === 'offset');
      for (const value of EXTREMES) {
        let url = base.url;
        let payload = base.payload;
        if (inQuery) url += `${url.includes('?') ? '&' : '?'}offset=${encodeURIComponent(value)}`;
        else {
          const number = Number(value);
          if (!Number.isFinite(number)) continue; // JSON has no Infinity or NaN: the parser refuses them on its own
          payload = `${(payload ?? '{}').replace(/}$/, '')}${payload && payload !== '{}' ? ',' : ''}"offset":${value}}`;
        }
        const headers = { ...base.headers, 'x-api-key': t.key, ...(payload ? { 'content-type': 'application/json' } : {}) };
        const res = await t.app.inject({ method: op.method as never, url, payload, headers });
        const where = `${op.key} offset=${value}: ${res.statusCode} ${res.body.slice(0, 200)}`;
        assert.equal(res.statusCode, 400, where);
        const body = JSON.parse(res.body);
        assert.equal(body.code, 'VALIDATION_FAILED', where);
        assert.match(body.message, /offset/, where);
      }
    }
    assert.deepEqual(rowCounts(t.engine.db), before, 'nothing was written (no ledger or history row)');
    assert.deepEqual(t.engine.accounts.credits.balance(t.ownerId), balance, 'nothing was charged');
    // Keyless, on the public catalog.
    const anonymous = await t.app.inject({ method: 'GET', url: '/v2/public/repos?offset=Infinity' });
    assert.equal(anonymous.statusCode, 400, anonymous.body);
  } finally {
    await t.close();
  }
});
