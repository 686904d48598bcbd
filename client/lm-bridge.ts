import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import type { LmChatParams, LmModel, LoupeClientRequests } from '../protocol/lsp';

/**
 * Lends VS Code's language models (`vscode.lm`) to the server's research engine, which cannot
 * import `vscode`: the server asks for the list and for chats, the client runs them and streams
 * the text back as notifications.
 */
/** How long the editor's model list may take before the server is told there are none (its own limit is 2 s). */
const MODELS_WAIT_MS = 1500;

export function registerLanguageModelBridge(ctx: Ctx): void {
  if (!vscode.lm?.selectChatModels) return; // an editor without the language model API
  const running = new Map<string, vscode.CancellationTokenSource>();

  ctx.push(ctx.client.onRequest('loupe/lm/models', async (): Promise<LoupeClientRequests['loupe/lm/models'][1]> => {
    // An editor whose model service does not answer (code-server with AI features off never does) lists
    // none rather than hold the research view's list: models that come later announce themselves
    // (onDidChangeChatModels below), which drops the server's cached list.
    let timer: NodeJS.Timeout | undefined;
    const models = await Promise.race([
      Promise.resolve(vscode.lm.selectChatModels()),
      new Promise<vscode.LanguageModelChat[]>((resolve) => { timer = setTimeout(() => resolve([]), MODELS_WAIT_MS); }),
    ]).finally(() => clearTimeout(timer));
    return models.map((m): LmModel => ({ id: m.id, name: m.name, vendor: m.vendor, family: m.family, maxInputTokens: m.maxInputTokens }));
  }));

  ctx.push(ctx.client.onRequest('loupe/lm/chat', async (params: LmChatParams, token: vscode.CancellationToken) => {
    const [model] = await vscode.lm.selectChatModels({ id: params.modelId });
    if (!model) throw new Error(`the editor has no language model ${params.modelId}`);
    const source = new vscode.CancellationTokenSource();
    running.set(params.requestId, source);
    token.onCancellationRequested(() => source.cancel());
    try {
      // The language model API has no system role: system text goes first as a user message.
      const messages = params.messages.map((m) => m.role === 'assistant'
        ? vscode.LanguageModelChatMessage.Assistant(m.content)
        : vscode.LanguageModelChatMessage.User(m.content));
      const response = await model.sendRequest(messages, { justification: 'Loupe answers your research question from your code.' }, source.token);
      let output = '';
      for await (const text of response.text) {
        output += text;
        void ctx.client.sendNotification('loupe/lm/chunk', { requestId: params.requestId, text });
      }
      const count = (text: string) => Promise.resolve(model.countTokens(text)).catch(() => undefined);
      const inputTokens = await count(params.messages.map((m) => m.content).join('\n'));
      const outputTokens = await count(output);
      return { inputTokens, outputTokens };
    } finally {
      running.delete(params.requestId);
      source.dispose();
    }
  }));

  ctx.push(ctx.client.onNotification('loupe/lm/cancel', ({ requestId }: { requestId: string }) => running.get(requestId)?.cancel()));
  ctx.push(vscode.lm.onDidChangeChatModels(() => void ctx.client.sendNotification('loupe/lm/changed', {})));
}
