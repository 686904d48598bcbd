import { randomUUID } from 'node:crypto';
import type { Connection } from 'vscode-languageserver/node';
import type { EditorModelBridge, EditorModel } from '../../../engine/operations';
import type { LmModel, LoupeLmNotifications } from '../../../../protocol/lsp';
import type { Session } from '../session';

/** How long a cached model list stays fresh; `loupe/lm/changed` drops it at once. */
const MODELS_TTL_MS = 60_000;

/**
 * The research engine's hook for VS Code's language models, implemented by asking the client
 * (which alone may call `vscode.lm`) over LSP.
 */
export function bindEditorModels(connection: Connection, session: Session): void {
  const chunkHandlers = new Map<string, (text: string) => void>();
  let cached: { at: number; models: LmModel[] } | null = null;

  connection.onNotification('loupe/lm/chunk', (p: LoupeLmNotifications['loupe/lm/chunk']) => chunkHandlers.get(p.requestId)?.(p.text));
  connection.onNotification('loupe/lm/changed', () => { cached = null; });

  const bridge: EditorModelBridge = {
    async listModels(): Promise<EditorModel[]> {
      if (!cached || Date.now() - cached.at > MODELS_TTL_MS) {
        cached = { at: Date.now(), models: await connection.sendRequest<LmModel[]>('loupe/lm/models') };
      }
      return cached.models;
    },
    async chat(params, onText, signal) {
      const requestId = randomUUID();
      chunkHandlers.set(requestId, onText);
      const onAbort = () => void connection.sendNotification('loupe/lm/cancel', { requestId });
      signal.addEventListener('abort', onAbort);
      try {
        return await connection.sendRequest<{ inputTokens?: number; outputTokens?: number }>('loupe/lm/chat', { requestId, ...params });
      } finally {
        signal.removeEventListener('abort', onAbort);
        chunkHandlers.delete(requestId);
      }
    },
  };
  session.ops.editor.useEditorModels(bridge);
}
