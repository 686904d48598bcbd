import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import type { Message, Task, TaskArtifactUpdateEvent } from '@a2a-js/sdk';
import { copyFixture, createTestApp, indexFolder } from '../helpers/engine';

/**
 * A language-model agent sends plain text, as most A2A hosts do. The official SDK client, over
 * both bindings on a real socket, with the key only in the X-API-Key header: a question is
 * researched over the caller's repositories (streamed as text chunks on message/stream, whole on
 * message/send, sources as a data part), "what does this repository do?" comes from the
 * blueprint, a follow-up in the same context continues the research conversation, and "help"
 * is short and points to /openapi.json.
 */
async function clientFor(baseUrl: string, transport: 'JSONRPC' | 'HTTP+JSON', key: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('X-API-Key', key);
    return fetch(input, { ...init, headers });
  };
  return new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    preferredTransports: [transport],
  }).createFromUrl(baseUrl);
}

const text = (question: string, extra: Partial<Message> = {}): Message => ({ kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: question }], ...extra });
const partsOf = (task: Task) => task.artifacts?.find((a) => a.name === 'answer')?.parts ?? [];
const answerText = (task: Task) => partsOf(task).flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('');
const sourcesOf = (task: Task) => (partsOf(task).find((p) => p.kind === 'data') as { data: { sources: { file_path: string }[]; conversation_id: string } } | undefined)?.data;

test('text questions over the official A2A client, both bindings, streamed and not, key by header only', async () => {
  const t = await createTestApp();
  try {
    await indexFolder(t, copyFixture('ts-paths'));
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    for (const transport of ['JSONRPC', 'HTTP+JSON'] as const) {
      const client = await clientFor(base, transport, t.key);

      // message/send: the whole answer in one artifact, the sources as its data part.
      const sent = await client.sendMessage({ message: text('where are two numbers multiplied?') }) as Task;
      assert.equal(sent.status.state, 'completed', `${transport}: ${JSON.stringify(sent.status)}`);
      assert.equal(partsOf(sent).filter((p) => p.kind === 'text').length, 1, transport);
      assert.ok(answerText(sent).length > 20, transport);
      assert.ok(sourcesOf(sent)!.sources.some((s) => s.file_path === 'src/lib/math.ts'), `${transport}: ${JSON.stringify(sourcesOf(sent))}`);

      // message/stream: text chunks of one artifact as they are written, then the sources.
      const chunks: TaskArtifactUpdateEvent[] = [];
      let streamed: Task | undefined;
      let final = '';
      for await (const event of client.sendMessageStream({ message: text('where are two numbers multiplied?') })) {
        if (event.kind === 'task') streamed = event;
        if (event.kind === 'artifact-update') chunks.push(event);
        if (event.kind === 'status-update' && event.final) final = event.status.state;
      }
      assert.equal(final, 'completed', transport);
      const textChunks = chunks.filter((c) => c.artifact.parts[0].kind === 'text');
      assert.ok(textChunks.length > 1, `${transport}: ${textChunks.length} text chunks`);
      assert.equal(new Set(chunks.map((c) => c.artifact.artifactId)).size, 1, transport);
      assert.ok(chunks.at(-1)!.lastChunk && chunks.at(-1)!.artifact.parts[0].kind === 'data', transport);
      // tasks/get without historyLength: the whole history, and the answer as stored.
      const got = await client.getTask({ id: streamed!.id });
      assert.ok((got.history?.length ?? 0) >= 1, `${transport}: history ${got.history?.length}`);
      assert.equal(answerText(got), textChunks.map((c) => (c.artifact.parts[0] as { text: string }).text).join(''), transport);

      // A follow-up in the same context continues the research conversation.
      const follow = await client.sendMessage({ message: text('and where are they added?', { contextId: sent.contextId }) }) as Task;
      assert.equal(follow.status.state, 'completed', transport);
      assert.equal(sourcesOf(follow)!.conversation_id, sourcesOf(sent)!.conversation_id, transport);

      // "What does this repository do?": the blueprint.
      const overview = await client.sendMessage({ message: text('What does this repository do?') }) as Task;
      assert.equal(overview.status.state, 'completed', transport);
      assert.match(answerText(overview), /ts-paths/, transport);
      assert.equal((sourcesOf(overview)!.sources[0] as unknown as { operation: string }).operation, 'GET /v2/repos/{repo_id}/blueprint');

      // "help": short, pointing to the contract; the task waits.
      const help = await client.sendMessage({ message: text('help') }) as Task;
      assert.equal(help.status.state, 'input-required');
      const helpJson = JSON.stringify(help.status.message);
      assert.ok(helpJson.length < 4000, `${transport}: help is ${helpJson.length} bytes`);
      assert.match(helpJson, /\/openapi\.json/);

      // A JSON operation pasted as text runs like a data part.
      const pasted = await client.sendMessage({ message: text('{"operationKey": "GET /v2/repos", "query": {"limit": 1}}') }) as Task;
      assert.equal(pasted.status.state, 'completed', transport);
      assert.equal((pasted.artifacts![0].parts[0] as unknown as { data: { status: number } }).data.status, 200);
    }
    // The research was charged and written to history like the HTTP call (one row per answer).
    const history = await t.call('GET', '/v2/history?limit=50');
    assert.ok(history.body.data.filter((h: { category: string }) => h.category === 'research').length >= 6);
  } finally {
    await t.close();
  }
});
