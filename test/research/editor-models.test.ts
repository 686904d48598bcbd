/**
 * The VS Code model hook, end to end on the server side: the language server's real LSP binding
 * (bindEditorModels) over a real JSON-RPC connection. The other end of the pipe stands in for the
 * extension's vscode.lm (which needs a running editor): it lists one model and streams an echo of
 * the question word by word, honouring `loupe/lm/cancel`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createConnection } from 'vscode-languageserver/node';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { providerConformance } from './provider-conformance';
import { indexedFixture } from './grounding-fixture';
import { ModelRegistry } from '../../server/engine/research/model-registry';
import { silentLogger } from '../../server/engine/log';
import { bindEditorModels } from '../../server/transport/lsp/features/editor-models';
import type { Session } from '../../server/transport/lsp/session';
import type { EditorModelBridge } from '../../server/engine/operations';
import type { ModelProvider } from '../../server/engine/research/model-provider';

async function editorPair(options: { fail?: boolean } = {}) {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const server = createConnection(new StreamMessageReader(toServer), new StreamMessageWriter(toClient));
  const client = createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
  const cancelled = new Set<string>();
  client.onRequest('loupe/lm/models', () => [{ id: 'echo', name: 'Echo', vendor: 'test', family: 'echo', maxInputTokens: 8192, maxOutputTokens: 1024 }]);
  client.onNotification('loupe/lm/cancel', ({ requestId }: { requestId: string }) => { cancelled.add(requestId); });
  client.onRequest('loupe/lm/chat', async (params: { requestId: string; messages: { role: string; content: string }[] }) => {
    if (options.fail) throw new Error('the language model refused the request');
    const question = params.messages.at(-1)!.content;
    const words = `You asked: ${question}`.split(' ');
    for (const [i, word] of words.entries()) {
      if (cancelled.has(params.requestId)) throw new Error('cancelled');
      await client.sendNotification('loupe/lm/chunk', { requestId: params.requestId, text: i ? ` ${word}` : word });
      await new Promise((r) => setTimeout(r, 5));
    }
    return { inputTokens: 100, outputTokens: words.length };
  });
  client.listen();
  server.listen();
  const models = new ModelRegistry(silentLogger);
  // The binding only hands its bridge to ops.editor.useEditorModels; the registry behind it is the real one.
  const session = { ops: { editor: { useEditorModels: (bridge: EditorModelBridge | null) => models.setEditorBridge(bridge) } } };
  bindEditorModels(server, session as unknown as Session);
  const provider = (await models.resolve('vscode:echo')).provider as ModelProvider;
  return { provider, cancelled, close: () => { client.dispose(); server.dispose(); } };
}

providerConformance('vscode language models (through the LSP bridge)', async () => {
  const f = await indexedFixture();
  const ok = await editorPair();
  const failing = await editorPair({ fail: true });
  return {
    provider: ok.provider, failing: failing.provider, context: await f.context('how is the area of a shape computed', [['src/app/area.ts', 4, 7]]),
    close: async () => { ok.close(); failing.close(); await f.close(); },
  };
});

test('aborting an editor model\'s chat tells the client to cancel it', async () => {
  const pair = await editorPair();
  try {
    const controller = new AbortController();
    const context = { question: 'one two three four five six seven eight', files: [], edges: [] };
    const iterator = pair.provider.chat({ model: 'vscode:echo', messages: [{ role: 'user', content: context.question }], context, signal: controller.signal })[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    await assert.rejects(iterator.next(), { name: 'AbortError' });
    for (let i = 0; i < 40 && pair.cancelled.size === 0; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(pair.cancelled.size, 1, 'loupe/lm/cancel reached the client');
  } finally {
    pair.close();
  }
});
