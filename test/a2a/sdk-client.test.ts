import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import type { Message, Task } from '@a2a-js/sdk';
import { copyFixture, createTestApp, type TestApp } from '../helpers/engine';
import { newId } from '../../server/engine/util/ids';

/**
 * The official SDK client, over a real socket on 127.0.0.1, against both bindings: it discovers
 * the agent from its card, then sends, streams, reads and cancels tasks that run real operations.
 */
async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

/** A client whose every request carries this key as the X-API-Key header. */
async function clientFor(baseUrl: string, transport: 'JSONRPC' | 'HTTP+JSON', key?: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (key) headers.set('X-API-Key', key);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    preferredTransports: [transport],
  });
  return factory.createFromUrl(baseUrl);
}

const message = (parts: Message['parts'], extra: Partial<Message> = {}): Message => ({ kind: 'message', messageId: randomUUID(), role: 'user', parts, ...extra });
const op = (data: Record<string, unknown>): Message['parts'] => [{ kind: 'data', data }];
const httpOutput = (task: Task) => (task.artifacts?.at(-1)?.parts[0] as unknown as { data: { status: number; body: any } }).data;

for (const transport of ['JSONRPC', 'HTTP+JSON'] as const) {
  test(`SDK client over ${transport}: help, index a fixture, list files, stream, get, cancel`, async () => {
    const t = await createTestApp();
    try {
      const base = await listen(t);
      const client = await clientFor(base, transport, t.key);
      const card = await client.getAgentCard();
      assert.equal(card.protocolVersion, '0.3.0');

      // "help": what to send, and the task waits for input.
      const help = await client.sendMessage({ message: message([{ kind: 'text', text: 'help' }]) }) as Task;
      assert.equal(help.kind, 'task');
      assert.equal(help.status.state, 'input-required');
      const helpText = (help.status.message?.parts[0] as { text: string }).text;
      assert.match(helpText, /POST \/v2\/repos\/index\/new/);
      assert.match(helpText, /\/openapi\.json/);

      // Continue the same task with an operation: index the fixture.
      const folder = copyFixture('ts-paths');
      const indexed = await client.sendMessage({ message: message(op({ operationKey: 'POST /v2/repos/index/new', body: { url: folder } }), { taskId: help.id, contextId: help.contextId }) }) as Task;
      assert.equal(indexed.id, help.id);
      assert.equal(indexed.status.state, 'completed', JSON.stringify(indexed.status));
      const out = httpOutput(indexed);
      assert.equal(out.status, 200);
      const repoId = out.body.data.repo.repo_id as string;
      await t.engine.queue.idle();

      // Path parameters and query strings reach the route.
      const files = await client.sendMessage({ message: message(op({ operationKey: 'GET /v2/files/{repo_id}', pathParams: { repo_id: repoId }, query: { search: 'math', limit: 5 } })) }) as Task;
      assert.equal(files.status.state, 'completed');
      assert.deepEqual(httpOutput(files).body.data.map((f: { file_path: string }) => f.file_path), ['src/lib/math.ts']);

      // Streaming: the task, working, the artifact, completed — in that order.
      const kinds: string[] = [];
      let streamedTaskId = '';
      for await (const event of client.sendMessageStream({ message: message(op({ operationKey: 'GET /v2/repos', query: { limit: 1 } })) })) {
        kinds.push(event.kind === 'status-update' ? `status:${event.status.state}` : event.kind);
        if (event.kind === 'task') streamedTaskId = event.id;
      }
      assert.deepEqual(kinds, ['task', 'status:working', 'artifact-update', 'status:completed']);

      // tasks/get with historyLength; the artifact is the HTTP output.
      const got = await client.getTask({ id: streamedTaskId, historyLength: 1 });
      assert.equal(got.status.state, 'completed');
      assert.equal(got.history?.length, 1);
      assert.equal(httpOutput(got).body.pagination.limit, 1);

      // A 4xx is a failed task carrying the operation's error.
      const bad = await client.sendMessage({ message: message(op({ operationKey: 'GET /v2/repos', query: { limit: 1000 } })) }) as Task;
      assert.equal(bad.status.state, 'failed');
      assert.equal(httpOutput(bad).status, 400);
      assert.equal(httpOutput(bad).body.code, 'VALIDATION_FAILED');
      assert.match(httpOutput(bad).body.message, /limit/);

      // Cancel a waiting task; a finished one cannot be canceled.
      const waiting = await client.sendMessage({ message: message([{ kind: 'text', text: 'help' }]) }) as Task;
      const canceled = await client.cancelTask({ id: waiting.id });
      assert.equal(canceled.status.state, 'canceled');
      await assert.rejects(client.cancelTask({ id: got.id }), /cancel/i);
      await assert.rejects(client.getTask({ id: randomUUID() }), /not found/i);
    } finally {
      await t.close();
    }
  });
}

test('the key may come from the data part headers or message.metadata; without one, operations fail as 401', async () => {
  const t = await createTestApp();
  try {
    const base = await listen(t);
    const anonymous = await clientFor(base, 'JSONRPC');
    const noKey = await anonymous.sendMessage({ message: message(op({ operationKey: 'GET /v2/repos' })) }) as Task;
    assert.equal(noKey.status.state, 'failed');
    assert.equal(httpOutput(noKey).status, 401);

    const viaHeaders = await anonymous.sendMessage({ message: message(op({ operationKey: 'GET /v2/repos', headers: { 'x-api-key': t.key } })) }) as Task;
    assert.equal(viaHeaders.status.state, 'completed');
    const viaMetadata = await anonymous.sendMessage({ message: message(op({ operationKey: 'GET /v2/repos' }), { metadata: { apiKey: t.key } }) }) as Task;
    assert.equal(viaMetadata.status.state, 'completed');
    // The key is not kept in the task (keys are stored only as hashes).
    const row = t.engine.db.prepare('SELECT task_json FROM a2a_tasks WHERE id = ?').get(viaMetadata.id) as { task_json: string };
    assert.ok(!row.task_json.includes(t.key));

    // A public operation needs no key at all.
    const catalog = await anonymous.sendMessage({ message: message(op({ operationKey: 'GET /v2/public/repos' })) }) as Task;
    assert.equal(catalog.status.state, 'completed', JSON.stringify(catalog.status));
  } finally {
    await t.close();
  }
});

test('a task is visible only to the user whose key made it, and survives a restart', async () => {
  const t = await createTestApp();
  const otherUser = newId();
  const otherKey = newId();
  t.engine.accounts.store.insertUser({ id: otherUser, email: 'other@example.com', display_name: 'Other', plan: 'FREE', is_owner: 0 });
  t.engine.accounts.addKey(otherUser, otherKey, 'active');
  let taskId = '';
  const interruptedId = randomUUID();
  try {
    const base = await listen(t);
    const owner = await clientFor(base, 'JSONRPC', t.key);
    const task = await owner.sendMessage({ message: message(op({ operationKey: 'GET /v2/repos' })) }) as Task;
    taskId = task.id;
    const other = await clientFor(base, 'HTTP+JSON', otherKey);
    await assert.rejects(other.getTask({ id: taskId }), /not found/i);
    const anonymous = await clientFor(base, 'JSONRPC');
    await assert.rejects(anonymous.getTask({ id: taskId }), /not found/i);
    // Another user cannot continue it either.
    await assert.rejects(other.sendMessage({ message: message([{ kind: 'text', text: 'hi' }], { taskId }) }), /not found/i);
    // A task still working when the process stops (as after a crash).
    const working = { ...task, id: interruptedId, status: { state: 'working' as const, timestamp: new Date().toISOString() } };
    t.engine.a2aTasks.save({ id: interruptedId, ownerUserId: t.ownerId, contextId: task.contextId, state: 'working', json: JSON.stringify(working) });
  } finally {
    await t.close();
  }
  // A new engine and app on the same data directory: the task is still there.
  const again = await createTestApp({ dataDir: t.dataDir });
  try {
    again.engine.accounts.addKey(t.ownerId, newId(), 'active');
    const base = await listen(again);
    const owner = await clientFor(base, 'HTTP+JSON', t.key);
    const task = await owner.getTask({ id: taskId, historyLength: 10 });
    assert.equal(task.status.state, 'completed');
    assert.equal(httpOutput(task).status, 200);
    // Its operation died with the old process: the task is failed, not left working forever.
    const interrupted = await owner.getTask({ id: interruptedId });
    assert.equal(interrupted.status.state, 'failed');
    assert.match((interrupted.status.message?.parts[0] as { text: string }).text, /stopped before this operation finished/);
  } finally {
    await again.close();
  }
});
