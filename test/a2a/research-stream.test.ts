import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import type { Task } from '@a2a-js/sdk';
import { copyFixture, createTestEngine, indexFolder } from '../helpers/engine';
import { createApp } from '../../server/transport/http/app';
import { answerResearch } from '../../server/transport/http/research-stream';
import { researchStreamContent } from '../../protocol/api/research';
import { OpenAICompatibleProvider } from '../../server/engine/research/providers/openai-compatible';
import { startLocalLlm } from '../research/local-llm-server';
import { checkResearchLines } from '../contract/contract-helpers';

/**
 * Research output through A2A arrives as it is produced: each NDJSON line of the route is an
 * artifact chunk on the same task, sent while the model is still writing. The operation here is
 * a documented /v2 route that runs the research branch (answerResearch) over fixed hits, so the
 * test does not depend on search ranking; a model server on 127.0.0.1 writes a word every 60 ms.
 */
test('NDJSON research lines are forwarded as artifact chunks while they stream, over JSON-RPC and HTTP+JSON', async () => {
  const t = createTestEngine();
  const repo = await indexFolder(t, copyFixture('ts-paths'));
  const llm = await startLocalLlm({ delayMs: 60 });
  t.engine.research.models.register(new OpenAICompatibleProvider({ baseUrl: llm.baseUrl, models: ['echo-1'] }));
  const app = await createApp(t.engine);
  app.post('/v2/test/research', {
    schema: {
      operationId: 'testResearch', tags: ['test'], summary: 'Research over fixed hits (test route)',
      body: { type: 'object', required: ['query'], properties: { query: { type: 'string' }, model: { type: 'string' } }, additionalProperties: false },
      response: { 200: { description: 'The research stream', content: researchStreamContent } },
    },
    config: { cost: 5, operation: 'search.research', stream: true },
  }, async (request, reply) => {
    const body = request.body as { query: string; model?: string };
    return answerResearch(t.engine, request, reply, {
      question: body.query, model: body.model, repoIds: [repo.id],
      search: async () => ({
        results: [{ type: 'code', repo_id: repo.id, file_path: 'src/app/area.ts', start_line: 4, end_line: 7, score: 1 }], total: 1, meta: { mode: 'fixed hits' },
        hits: [{ repoId: repo.id, repoName: repo.name, filePath: 'src/app/area.ts', startLine: 4, endLine: 7, score: 1 }],
      }),
    });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const validate = addFormats(new Ajv({ strict: false })).compile(researchStreamContent['application/x-ndjson'].schema);
  try {
    for (const transport of ['JSONRPC', 'HTTP+JSON']) {
      // The key travels in message.metadata for the stream and as X-API-Key for reading the task back.
      const fetchImpl: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), 'x-api-key': t.key } });
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
    await app.close();
    await llm.close();
    await t.close();
  }
});
