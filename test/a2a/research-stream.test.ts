import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import type { Task } from '@a2a-js/sdk';
import { copyFixture, createTestEngine, indexFolder } from '../helpers/engine';
import { createHttpApp } from '../../server/host';
import { researchOverFixedHits } from '../helpers/fixed-research';
import { researchStreamContent } from '../../protocol/api/research';
import { OpenAICompatibleProvider } from '../../server/engine/research/providers/openai-compatible';
import { startLocalLlm } from '../research/local-llm-server';
import { checkResearchLines } from '../contract/contract-helpers';

/**
 * Research output through A2A arrives as it is produced: each NDJSON line of the route is an
 * artifact chunk on the same task, sent while the model is still writing. The operation here is
 * a documented /v2 route that runs the research branch over fixed hits, so the
 * test does not depend on search ranking; a model server on 127.0.0.1 writes a word every 60 ms.
 */
async function researchApp(delayMs: number) {
  const t = createTestEngine();
  const repo = await indexFolder(t, copyFixture('ts-paths'));
  const llm = await startLocalLlm({ delayMs });
  t.engine.research.models.register(new OpenAICompatibleProvider({ baseUrl: llm.baseUrl, models: ['echo-1'] }));
  const app = await createHttpApp(t.engine);
  app.post('/v2/test/research', {
    schema: {
      operationId: 'testResearch', tags: ['test'], summary: 'Research over fixed hits (test route)',
      body: { type: 'object', required: ['query'], properties: { query: { type: 'string' }, model: { type: 'string' } }, additionalProperties: false },
      response: { 200: { description: 'The research stream', content: researchStreamContent } },
    },
    config: { stream: true },
  }, async (request, reply) => {
    const body = request.body as { query: string; model?: string };
    return researchOverFixedHits(t.engine, request, reply, {
      question: body.query, model: body.model, repoIds: [repo.id],
      found: {
        results: [{ type: 'code', repo_id: repo.id, file_path: 'src/app/area.ts', start_line: 4, end_line: 7, score: 1 }], total: 1, meta: { mode: 'fixed hits' },
        hits: [{ repoId: repo.id, repoName: repo.name, filePath: 'src/app/area.ts', startLine: 4, endLine: 7, score: 1 }],
      },
    });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return { t, llm, app, base, close: async () => { await app.close(); await llm.close(); await t.close(); } };
}

/** fetch, with X-API-Key on every request. */
const withKey = (key: string): typeof fetch => (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('x-api-key', key);
  return fetch(input, { ...init, headers });
};

const researchPart = (key: string, question: string) => ({
  kind: 'message' as const, messageId: randomUUID(), role: 'user' as const, metadata: { apiKey: key },
  parts: [{ kind: 'data' as const, data: { operationKey: 'POST /v2/test/research', headers: { accept: 'application/x-ndjson' }, body: { query: question, model: 'echo-1' } } }],
});

test('NDJSON research lines are forwarded as artifact chunks while they stream, over JSON-RPC and HTTP+JSON', async () => {
  const { t, base, close } = await researchApp(60);
  const validate = addFormats(new Ajv({ strict: false })).compile(researchStreamContent['application/x-ndjson'].schema);
  try {
    for (const transport of ['JSONRPC', 'HTTP+JSON']) {
      // The key travels in message.metadata for the stream and as X-API-Key for reading the task back.
      const fetchImpl = withKey(t.key);
      const reader = await new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })], preferredTransports: [transport] }).createFromUrl(base);
      const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory(), new RestTransportFactory()], preferredTransports: [transport] }).createFromUrl(base);
      const question = 'how is the area of a shape computed';
      const chunks: { at: number; event: Record<string, unknown> }[] = [];
      let taskId = '';
      let final = '';
      let headerSeen = 0;
      for await (const event of client.sendMessageStream({
        message: { kind: 'message', messageId: randomUUID(), role: 'user', metadata: { apiKey: t.key }, parts: [{ kind: 'data', data: { operationKey: 'POST /v2/test/research', headers: { accept: 'application/x-ndjson' }, body: { query: question, model: 'echo-1' } } }] },
      })) {
        if (event.kind === 'task') taskId = event.id;
        // The first artifact update carries the HTTP status and headers; every later one is a line.
        // (Not told apart by `append`: the SDK 0.3.14 client drops that flag on HTTP+JSON.)
        if (event.kind === 'artifact-update' && headerSeen++) chunks.push({ at: performance.now(), event: (event.artifact.parts[0] as { data: Record<string, unknown> }).data });
        if (event.kind === 'status-update' && event.final) final = event.status.state;
      }
      assert.equal(final, 'completed', transport);
      const events = chunks.map((c) => c.event);
      assert.equal(checkResearchLines(events, (e) => (validate(e) ? null : JSON.stringify(validate.errors?.[0]))), null, `${transport}: ${events.map((e) => e.type).join(',')}`);
      const words = chunks.filter((c) => c.event.type === 'chunk');
      assert.equal(words.map((c) => c.event.text).join(''), `You asked: ${question}`);
      // Nine words 60 ms apart: a binding that buffered the response would deliver them at once.
      assert.ok(words.at(-1)!.at - words[0].at > 300, `${transport}: chunks spread over ${Math.round(words.at(-1)!.at - words[0].at)} ms`);

      const stored = await reader.getTask({ id: taskId }) as Task;
      const parts = stored.artifacts![0].parts.map((p) => (p as { data: Record<string, unknown> }).data);
      assert.equal((parts[0] as { status: number }).status, 200);
      assert.deepEqual(parts.slice(1).map((p) => p.type), events.map((e) => e.type), 'the stored artifact holds every line in order');
    }
  } finally {
    await close();
  }
});

test('a streaming task can be followed with tasks/resubscribe and stopped with tasks/cancel', async () => {
  const { t, llm, base, close } = await researchApp(150);
  try {
    const fetchImpl = withKey(t.key);
    const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] }).createFromUrl(base);
    const stream = client.sendMessageStream({ message: researchPart(t.key, 'one two three four five six seven eight nine ten eleven twelve') });
    let taskId = '';
    let chunks = 0;
    let followed = 0;
    let resubscribed: Promise<string> | undefined;
    let final = '';
    for await (const event of stream) {
      if (event.kind === 'task') taskId = event.id;
      if (event.kind === 'artifact-update' && ++chunks === 3) {
        // A second subscriber joins mid-stream and sees the rest, up to the same final state.
        resubscribed = (async () => {
          let last = '';
          for await (const e of client.resubscribeTask({ id: taskId })) {
            if (e.kind === 'artifact-update') followed++;
            if (e.kind === 'status-update' && e.final) last = e.status.state;
          }
          return last;
        })();
        await new Promise((r) => setTimeout(r, 200));
        const disconnected = llm.nextDisconnect();
        const canceled = await client.cancelTask({ id: taskId });
        assert.equal(canceled.status.state, 'canceled');
        // The operation's HTTP request was aborted, and with it the model call.
        await Promise.race([disconnected, new Promise((_, reject) => setTimeout(() => reject(new Error('the model call was not stopped')), 5000))]);
      }
      if (event.kind === 'status-update' && event.final) final = event.status.state;
    }
    assert.equal(final, 'canceled');
    assert.equal(await resubscribed, 'canceled');
    assert.ok(followed >= 1, 'the resubscriber received chunks');
    const stored = await client.getTask({ id: taskId });
    assert.equal(stored.status.state, 'canceled');
  } finally {
    await close();
  }
});
