import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import type { Message, Task } from '@a2a-js/sdk';
import { copyFixture, createTestApp } from '../helpers/engine';
import { checkResearchLines, loadContract } from '../contract/contract-helpers';

const send = (data: Record<string, unknown>, key: string): { message: Message } => ({
  message: { kind: 'message', messageId: randomUUID(), role: 'user', metadata: { apiKey: key }, parts: [{ kind: 'data', data }] },
});

/** The real search route through A2A: JSON search as a task result, research as streamed chunks. */
test('POST /v2/search through A2A: search as a completed task, research streamed on the same task', async () => {
  const app = await createTestApp();
  try {
    const { operations } = await loadContract(app.app);
    assert.ok(operations.some((o) => o.key === 'POST /v2/search'), 'POST /v2/search is documented');
    await app.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`;
    for (const transport of ['JSONRPC', 'HTTP+JSON']) {
      const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory(), new RestTransportFactory()], preferredTransports: [transport] }).createFromUrl(base);
      const indexed = await client.sendMessage(send({ operationKey: 'POST /v2/repos/index/new', body: { url: copyFixture('ts-paths') } }, app.key)) as Task;
      const repoId = (indexed.artifacts![0].parts[0] as unknown as { data: { body: { data: { repo: { repo_id: string } } } } }).data.body.data.repo.repo_id;
      await app.engine.queue.idle();

      const search = await client.sendMessage(send({ operationKey: 'POST /v2/search', body: { query: 'multiply numbers', repo_ids: [repoId] } }, app.key)) as Task;
      assert.equal(search.status.state, 'completed', `${transport}: ${JSON.stringify(search.status.message)}`);
      const out = (search.artifacts![0].parts[0] as unknown as { data: { status: number; body: { status: string } } }).data;
      assert.equal(out.status, 200);
      assert.equal(out.body.status, 'success');

      const lines: Record<string, unknown>[] = [];
      let seen = 0;
      let final = '';
      for await (const event of client.sendMessageStream(send({ operationKey: 'POST /v2/search', headers: { accept: 'application/x-ndjson' }, body: { query: 'how is the area computed', chat: true, repo_ids: [repoId] } }, app.key))) {
        if (event.kind === 'artifact-update' && seen++) lines.push((event.artifact.parts[0] as { data: Record<string, unknown> }).data);
        if (event.kind === 'status-update' && event.final) final = event.status.state;
      }
      assert.equal(checkResearchLines(lines), null, `${transport}: ${lines.map((l) => l.type).join(',')}`);
      assert.equal(final, lines.at(-1)!.type === 'done' ? 'completed' : 'failed');
    }
  } finally {
    await app.close();
  }
});
