import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/engine';

/** The JSON-RPC binding's error codes, request by request (A2A 0.3.0 and JSON-RPC 2.0). */
test('JSON-RPC errors: -32700, -32600, -32601, -32602, -32001, -32002, -32003, -32007', async () => {
  const t = await createTestApp();
  try {
    const rpc = async (body: unknown, key?: string) => {
      const res = await t.app.inject({ method: 'POST', url: '/a2a/jsonrpc', payload: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) } });
      assert.equal(res.statusCode, 200);
      return JSON.parse(res.body);
    };
    const message = (patch: Record<string, unknown>) => ({ kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'hi' }], ...patch });
    const call = (method: string, params: unknown, id: unknown = 7) => ({ jsonrpc: '2.0', id, method, params });
    const cases: [string, unknown, number, RegExp?][] = [
      ['malformed JSON', '{"jsonrpc": "2.0", ', -32700],
      ['a batch', [call('tasks/get', { id: 'x' })], -32600],
      ['no jsonrpc version', { id: 1, method: 'tasks/get', params: { id: 'x' } }, -32600],
      ['a non-string method', { jsonrpc: '2.0', id: 1, method: 5 }, -32600],
      ['unknown method', call('tasks/teleport', {}), -32601],
      ['empty parts', call('message/send', { message: message({ parts: [] }) }), -32602, /parts/],
      ['no role', call('message/send', { message: message({ role: undefined }) }), -32602, /role/],
      ['unknown part kind', call('message/send', { message: message({ parts: [{ kind: 'video', url: 'x' }] }) }), -32602, /kind/],
      ['text part without text', call('message/send', { message: message({ parts: [{ kind: 'text' }] }) }), -32602, /text/],
      ['no message', call('message/send', {}), -32602, /message/],
      ['negative historyLength', call('tasks/get', { id: 'x', historyLength: -1 }), -32602, /historyLength/],
      ['tasks/get without id', call('tasks/get', {}), -32602, /id/],
      ['unknown task', call('tasks/get', { id: 'no-such-task' }), -32001],
      ['cancel an unknown task', call('tasks/cancel', { id: 'no-such-task' }), -32001],
      ['push notifications', call('tasks/pushNotificationConfig/set', { taskId: 'x', pushNotificationConfig: { url: 'http://127.0.0.1:1/' } }), -32003],
      ['extended card', call('agent/getAuthenticatedExtendedCard', {}), -32007],
    ];
    for (const [what, body, code, message_] of cases) {
      const answer = await rpc(body);
      assert.equal(answer.jsonrpc, '2.0', what);
      assert.equal(answer.error?.code, code, `${what}: ${JSON.stringify(answer)}`);
      if (message_) assert.match(answer.error.message, message_, what);
    }
    // The id is echoed; a final task cannot be canceled (-32002).
    const done = await rpc(call('message/send', { message: message({ parts: [{ kind: 'data', data: { operationKey: 'GET /v2/public/repos' } }] }) }, 'req-1'), t.key);
    assert.equal(done.id, 'req-1');
    assert.equal(done.result.status.state, 'completed');
    assert.equal((await rpc(call('tasks/cancel', { id: done.result.id }), t.key)).error.code, -32002);
    // A finished task takes no more messages (-32600, as the SDK answers).
    const more = await rpc(call('message/send', { message: message({ taskId: done.result.id }) }), t.key);
    assert.equal(more.error.code, -32600);
    // Without the key it is no task at all, and the message says why.
    const hidden = await rpc(call('tasks/get', { id: done.result.id }));
    assert.equal(hidden.error.code, -32001);
    assert.match(hidden.error.message, /visible only with the key that created them/);
    // Unknown operations and bad path parameters fail the task with the HTTP error shape.
    const unknownOp = await rpc(call('message/send', { message: message({ parts: [{ kind: 'data', data: { operationKey: 'GET /v2/nowhere' } }] }) }));
    assert.equal(unknownOp.result.status.state, 'failed');
    assert.equal(unknownOp.result.artifacts[0].parts[0].data.body.code, 'ROUTE_NOT_FOUND');
    const noParam = await rpc(call('message/send', { message: message({ parts: [{ kind: 'data', data: { operationKey: 'GET /v2/files/:repo_id' } }] }) }));
    assert.equal(noParam.result.artifacts[0].parts[0].data.status, 400);
    assert.match(noParam.result.artifacts[0].parts[0].data.body.message, /pathParams\.repo_id: is required/);
  } finally {
    await t.close();
  }
});

test('the agent card: protocol, transports, capabilities, modes, the key scheme, a skill per tag with examples', async () => {
  const t = await createTestApp();
  try {
    const res = await t.app.inject({ method: 'GET', url: '/.well-known/agent-card.json', headers: { host: '127.0.0.1:7341' } });
    assert.equal(res.statusCode, 200);
    const card = JSON.parse(res.body);
    assert.equal(card.protocolVersion, '0.3.0');
    assert.equal(card.version, '2.0.0');
    assert.equal(card.url, 'http://127.0.0.1:7341/a2a/jsonrpc');
    assert.equal(card.preferredTransport, 'JSONRPC');
    assert.deepEqual(card.additionalInterfaces, [
      { url: 'http://127.0.0.1:7341/a2a/jsonrpc', transport: 'JSONRPC' },
      { url: 'http://127.0.0.1:7341/a2a/rest', transport: 'HTTP+JSON' },
    ]);
    assert.deepEqual(card.capabilities, { streaming: true, pushNotifications: false, stateTransitionHistory: true });
    assert.deepEqual(card.defaultInputModes, ['application/json', 'text/plain']);
    assert.deepEqual(card.defaultOutputModes, ['application/json', 'application/x-ndjson', 'text/event-stream']);
    assert.equal(card.supportsAuthenticatedExtendedCard, false);
    assert.deepEqual(card.securitySchemes.ApiKey, { type: 'apiKey', in: 'header', name: 'X-API-Key', description: card.securitySchemes.ApiKey.description });
    // One skill per tag of the API; every example is a data part naming a real operation.
    const doc = JSON.parse((await t.app.inject({ method: 'GET', url: '/openapi.json' })).body);
    const keys = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .filter(([p]) => /^\/v\d\//.test(p)).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`));
    // Every operation has an example data part; the ask skill's examples are questions in plain text.
    const examples = card.skills.filter((s: { id: string }) => s.id !== 'ask').flatMap((s: { examples: string[] }) => s.examples.map((e) => JSON.parse(e)));
    assert.deepEqual([...new Set(examples.map((e: { operationKey: string }) => e.operationKey))].sort(), [...keys].sort());
    // The key goes in the HTTP header, never in an example; research is search with chat: true.
    assert.ok(examples.every((e: { headers?: Record<string, string> }) => !Object.keys(e.headers ?? {}).some((h) => /key|auth/i.test(h))));
    const research = card.skills.find((s: { id: string }) => s.id === 'research');
    assert.ok(research.examples.some((e: string) => JSON.parse(e).operationKey === 'POST /v2/search' && JSON.parse(e).body.chat === true));
    assert.match(card.description, /X-API-Key HTTP header/);
    assert.ok(card.skills.find((s: { id: string }) => s.id === 'ask').examples.includes('what does this repository do?'));
    assert.ok(card.skills.some((s: { id: string }) => s.id === 'repos'));
  } finally {
    await t.close();
  }
});

test('message/send with configuration.blocking false answers at once; tasks/get then shows the result', async () => {
  const t = await createTestApp();
  try {
    const rpc = async (method: string, params: unknown) => {
      const res = await t.app.inject({ method: 'POST', url: '/a2a/jsonrpc', payload: { jsonrpc: '2.0', id: 1, method, params }, headers: { 'x-api-key': t.key } });
      return JSON.parse(res.body);
    };
    const sent = await rpc('message/send', {
      configuration: { blocking: false },
      message: { kind: 'message', messageId: 'nb-1', role: 'user', parts: [{ kind: 'data', data: { operationKey: 'GET /v2/repos' } }] },
    });
    assert.equal(sent.result.kind, 'task');
    // The answer is the task as of its first event (submitted or working), not the operation's end.
    assert.ok(['submitted', 'working', 'completed'].includes(sent.result.status.state), sent.result.status.state);
    let task = sent.result;
    for (let i = 0; i < 100 && task.status.state !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      task = (await rpc('tasks/get', { id: sent.result.id, historyLength: 0 })).result;
    }
    assert.equal(task.status.state, 'completed');
    assert.deepEqual(task.history, []);
    assert.equal(task.artifacts[0].parts[0].data.status, 200);
  } finally {
    await t.close();
  }
});
