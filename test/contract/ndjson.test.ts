import { test } from 'node:test';
import assert from 'node:assert/strict';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { checkResearchLines, loadContract } from './contract-helpers';
import { buildRequest } from './valid-requests';
import { contractBackends } from './backends';

/**
 * Every documented NDJSON answer (the research mode of POST /v2/search), read line by line: each
 * line matches the documented line schema, and the lines follow the spec's event table (search,
 * chunks, then done or error, last). On both backends (backends.ts).
 */
const { names, withBackend } = contractBackends();

for (const name of names) test(`${name}: NDJSON operations stream lines that follow the spec event table`, () => withBackend(name, async (app) => {
  {
    const contract = await loadContract(app);
    const streaming = contract.operations.filter((op) => op.produces.includes('application/x-ndjson'));
    assert.ok(streaming.length > 0, 'POST /v2/search documents application/x-ndjson');
    const c = await app.setUp();
    const ajv = addFormats(new Ajv({ strict: false, validateSchema: false }));
    ajv.addSchema(contract.doc as object, 'openapi.json');
    for (const op of streaming) {
      const request = buildRequest(op, c, contract.doc);
      // A route with a chat switch streams only when it is on.
      const body = request.payload ? JSON.parse(request.payload) : {};
      if (op.body?.schema.properties?.chat) body.chat = true;
      const res = await app.inject({
        method: op.method, url: request.url, payload: JSON.stringify(body),
        headers: { ...request.headers, 'content-type': 'application/json', accept: 'application/x-ndjson', 'x-api-key': app.key },
      });
      assert.equal(res.statusCode, 200, `${op.key}: ${res.body.slice(0, 300)}`);
      assert.match(String(res.headers['content-type']), /^application\/x-ndjson/);
      assert.ok(res.body.endsWith('\n'), `${op.key}: every line ends with a newline`);
      const events = res.body.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
      const schema = contract.responseSchema(op, 200, 'application/x-ndjson');
      assert.ok(schema, `${op.key}: no schema documented for its lines`);
      const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
      const validate = ajv.compile({ $ref: `openapi.json#/paths/${pointer(op.path)}/${op.method.toLowerCase()}/responses/200/content/${pointer('application/x-ndjson')}/schema` });
      const problem = checkResearchLines(events, (e) => (validate(e) ? null : `${validate.errors![0].instancePath} ${validate.errors![0].message}`));
      assert.equal(problem, null, `${op.key}: ${events.map((e) => e.type).join(',')}`);
    }
  }
}));
