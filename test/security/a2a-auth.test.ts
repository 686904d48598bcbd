import { test } from 'node:test';
import assert from 'node:assert/strict';
import { a2aApp, operation, userMessage } from './a2a-helpers';

/**
 * A present but invalid key was treated as no key at all (issue 13): the agent got "task not
 * found" or a help text instead of learning its key is wrong. Now it is a 401 with
 * WWW-Authenticate wherever the key was sent, on both bindings, before anything runs or is
 * stored or charged; and a key in the URL (`?apiKey=`) is refused, not used.
 */
test('A2A: an unknown, malformed or disabled key is a 401 with WWW-Authenticate on JSON-RPC, wherever it was sent', async () => {
  const t = await a2aApp();
  try {
    const ledger = () => t.engine.accounts.meta(t.ownerId).credits_used;
    const before = ledger();
    const unknown = '6f1c3a52-0000-4000-8000-000000000000';
    const attempts: [string, string, unknown, Record<string, string>][] = [
      ['X-API-Key header', 'message/send', operation({ operationKey: 'GET /v2/repos' }), { 'x-api-key': unknown }],
      ['malformed header', 'message/send', userMessage([{ kind: 'text', text: 'where are cookies signed?' }]), { 'x-api-key': 'not-a-key' }],
      ['bearer', 'message/send', userMessage([{ kind: 'text', text: 'help' }]), { authorization: 'Bearer not-a-session' }],
      ['data part headers', 'message/send', operation({ operationKey: 'GET /v2/repos', headers: { 'X-API-Key': unknown } }), {}],
      ['message metadata', 'message/send', userMessage([{ kind: 'text', text: 'hello' }], { metadata: { apiKey: unknown } }), {}],
      ['tasks/get metadata', 'tasks/get', { id: 'some-task', metadata: { apiKey: unknown } }, {}],
      ['tasks/cancel header', 'tasks/cancel', { id: 'some-task' }, { 'x-api-key': unknown }],
    ];
    for (const [where, method, params, headers] of attempts) {
      const res = await t.rpc(method, params, headers);
      assert.equal(res.status, 401, where);
      assert.match(String(res.headers['www-authenticate']), /X-API-Key/, where);
      assert.equal(res.body.error.data.code, 'UNAUTHORIZED', where);
      assert.equal(res.body.id, 1, where);
    }
    // A disabled key is refused the same way.
    const keys = await t.rpc('message/send', operation({ operationKey: 'POST /v2/keys/regenerate', body: {} }), { 'x-api-key': t.key });
    assert.equal(keys.body.result.status.state, 'completed');
    const old = await t.rpc('message/send', operation({ operationKey: 'GET /v2/repos' }), { 'x-api-key': t.key });
    assert.equal(old.status, 401);
    assert.equal(t.taskCount(), 1);
    assert.equal(ledger(), before);
  } finally {
    await t.close();
  }
});

test('A2A HTTP+JSON: an invalid key is a 401 with WWW-Authenticate; ?apiKey= in a URL is refused and not used', async () => {
  const t = await a2aApp();
  try {
    const send = await t.app.inject({ method: 'POST', url: '/a2a/rest/v1/message:send', headers: { 'content-type': 'application/json', 'x-api-key': 'b0b0b0b0-0000-4000-8000-000000000000' },
      payload: JSON.stringify({ message: { messageId: 'm-1', role: 'ROLE_USER', content: [{ text: 'help' }] } }) });
    assert.equal(send.statusCode, 401);
    assert.match(String(send.headers['www-authenticate']), /X-API-Key/);
    assert.equal(JSON.parse(send.body).data.code, 'UNAUTHORIZED');

    const created = await t.rpc('message/send', userMessage([{ kind: 'text', text: 'help' }]), { 'x-api-key': t.key });
    const id = created.body.result.id as string;
    const inUrl = await t.app.inject({ method: 'GET', url: `/a2a/rest/v1/tasks/${id}?apiKey=${t.key}` });
    assert.equal(inUrl.statusCode, 400);
    assert.match(JSON.parse(inUrl.body).message, /apiKey: keys do not go in URLs/);
    const inHeader = await t.app.inject({ method: 'GET', url: `/a2a/rest/v1/tasks/${id}`, headers: { authorization: `Bearer ${t.key}` } });
    assert.equal(inHeader.statusCode, 200);
    assert.equal(JSON.parse(inHeader.body).id, id);
    const wrong = await t.app.inject({ method: 'POST', url: `/a2a/rest/v1/tasks/${id}:cancel`, headers: { 'x-api-key': 'not-a-key' } });
    assert.equal(wrong.statusCode, 401);
  } finally {
    await t.close();
  }
});
