import { test } from 'node:test';
import assert from 'node:assert/strict';
import { a2aApp, operation, userMessage } from './a2a-helpers';

/**
 * Attacks on what A2A keeps (issue 13): an anonymous agent signs up through A2A, its password in
 * the data part's headers; the answer carries the new key and session token. Before, the task
 * stored the password, the key and the token, and any caller without a key read them back with
 * tasks/get. Now no credential header is stored, keys/passwords/tokens are redacted from stored
 * artifacts, and an anonymous task that ended is gone (its result was in the response only).
 */
test('A2A password sign-up: the live answer carries the key once; nothing secret is stored; the anonymous task cannot be read back', async () => {
  const t = await a2aApp();
  try {
    const password = 'correct horse battery staple 42';
    const signUp = await t.rpc('message/send', operation({
      operationKey: 'POST /v2/auth/authenticate',
      headers: { 'X-Service-Auth-Password': password },
      body: { auth_mode: 'password', email: 'agent@example.test', should_create_user: true },
    }));
    assert.equal(signUp.status, 200);
    const task = signUp.body.result;
    assert.equal(task.status.state, 'completed', JSON.stringify(task.status));
    const answer = task.artifacts[0].parts[0].data.body.data;
    const key = answer.api_key.key as string;
    const token = answer.session.access_token as string;
    assert.match(key, /^[0-9a-f-]{36}$/);
    assert.ok(token.length > 20);

    // Nothing of it in the database: not the password, not the key, not the token.
    const stored = t.stored();
    for (const secret of [password, key, token]) assert.ok(!stored.includes(secret), `stored: ${secret}`);
    // The anonymous task ended: no one reads it back, with or without a key.
    const anonymous = await t.rpc('tasks/get', { id: task.id });
    assert.equal(anonymous.body.error.code, -32001);
    const withKey = await t.rpc('tasks/get', { id: task.id }, { 'x-api-key': key });
    assert.equal(withKey.body.error.code, -32001);

    // Sign-in with the alias header and a bearer session: the same, and the key works.
    const signIn = await t.rpc('message/send', operation({
      operationKey: 'POST /v2/auth/authenticate', headers: { 'x-auth-password': password }, body: { auth_mode: 'password', email: 'agent@example.test' },
    }));
    const session = signIn.body.result.artifacts[0].parts[0].data.body.data.session.access_token as string;
    assert.ok(!t.stored().includes(password) && !t.stored().includes(session));
  } finally {
    await t.close();
  }
});

test('A2A keys/regenerate and agent credentials: the new key is redacted in the stored task, which only its owner reads', async () => {
  const t = await a2aApp();
  try {
    // The owner, by a bearer key in the data part; the answer carries an agent credential.
    const minted = await t.rpc('message/send', operation({ operationKey: 'POST /v2/agent/credentials', headers: { Authorization: `Bearer ${t.key}` }, body: {} }));
    const task = minted.body.result;
    assert.equal(task.status.state, 'completed', JSON.stringify(task.status));
    const agentKey = task.artifacts[0].parts[0].data.body.data.key as string;
    assert.match(agentKey, /^[0-9a-f-]{36}$/);
    const regenerated = await t.rpc('message/send', operation({ operationKey: 'POST /v2/keys/regenerate', body: {} }), { 'x-api-key': t.key });
    const newKey = regenerated.body.result.artifacts[0].parts[0].data.body.data.key as string;
    assert.match(newKey, /^[0-9a-f-]{36}$/);
    const stored = t.stored();
    for (const secret of [t.key, agentKey, newKey]) assert.ok(!stored.includes(secret), 'a key is stored');
    assert.match(stored, /\[redacted\]/);

    // The owner (with the new key) reads the redacted task; another caller without a key does not.
    const own = await t.rpc('tasks/get', { id: task.id }, { 'x-api-key': newKey });
    assert.equal(own.body.result.artifacts[0].parts[0].data.body.data.key, '[redacted]');
    assert.equal((await t.rpc('tasks/get', { id: task.id })).body.error.code, -32001);
  } finally {
    await t.close();
  }
});

test('A2A: cookies, custom token headers and a key pasted in a JSON operation are not stored', async () => {
  const t = await a2aApp();
  try {
    const secrets = ['cookie-secret-123', 'ghp_tokenvalue456', 'session-value-789'];
    const sent = await t.rpc('message/send', operation({
      operationKey: 'GET /v2/repos', headers: { 'X-API-Key': t.key, Cookie: `sid=${secrets[0]}`, 'X-GitHub-Token': secrets[1], 'X-Session': secrets[2], Accept: 'application/json' },
    }));
    assert.equal(sent.body.result.status.state, 'completed');
    const pasted = await t.rpc('message/send', userMessage([{ kind: 'text', text: JSON.stringify({ operationKey: 'GET /v2/repos', headers: { 'x-api-key': t.key } }) }]));
    assert.equal(pasted.body.result.status.state, 'completed', JSON.stringify(pasted.body.result.status));
    const viaMetadata = await t.rpc('message/send', { ...operation({ operationKey: 'GET /v2/repos' }), metadata: { apiKey: t.key } });
    assert.equal(viaMetadata.body.result.status.state, 'completed');
    const stored = t.stored();
    for (const secret of [t.key, ...secrets]) assert.ok(!stored.includes(secret), `stored: ${secret}`);
    // What is not a credential stays (the operation is still readable as sent).
    assert.match(stored, /"Accept":"application\/json"/);
  } finally {
    await t.close();
  }
});

test('A2A: a waiting anonymous task holds no credential and a caller with a key cannot read it', async () => {
  const t = await a2aApp();
  try {
    const waiting = (await t.rpc('message/send', userMessage([{ kind: 'text', text: 'help' }]))).body.result;
    assert.equal(waiting.status.state, 'input-required');
    assert.equal((await t.rpc('tasks/get', { id: waiting.id }, { 'x-api-key': t.key })).body.error.code, -32001);
    // Its creator (still without a key) can continue and cancel it; once canceled it is gone.
    const canceled = await t.rpc('tasks/cancel', { id: waiting.id });
    assert.equal(canceled.body.result.status.state, 'canceled');
    assert.equal((await t.rpc('tasks/get', { id: waiting.id })).body.error.code, -32001);
    assert.equal(t.taskCount(), 0);
  } finally {
    await t.close();
  }
});
