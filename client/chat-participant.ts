import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import type { ResearchChunk } from '../protocol/lsp';

interface LoupeChatResult extends vscode.ChatResult { metadata: { threadId: string | null } }

/**
 * `@loupe` in the chat view: a research question answered by Loupe's engine (the same as the
 * Research tab: search, grounding, the chosen model), streamed into the chat with its sources as
 * references. A follow-up in the same chat continues the conversation.
 */
export function registerChatParticipant(ctx: Ctx): void {
  if (!vscode.chat?.createChatParticipant) return; // an editor without the chat API
  const participant = vscode.chat.createChatParticipant('loupe.research', async (request, context, stream, token): Promise<LoupeChatResult> => {
    const previous = [...context.history].reverse().find((h): h is vscode.ChatResponseTurn => h instanceof vscode.ChatResponseTurn && h.participant === 'loupe.research');
    const threadId = (previous?.result as LoupeChatResult | undefined)?.metadata?.threadId ?? undefined;
    const streamId = `c${Date.now()}${Math.random().toString(36).slice(2, 8)}`;
    let resolved: (value: string | null) => void = () => {};
    let failed: (error: Error) => void = () => {};
    const finished = new Promise<string | null>((resolve, reject) => { resolved = resolve; failed = reject; });
    const referenced = new Set<string>();
    const listener = ctx.onResearchChunk((chunk: ResearchChunk) => {
      if (chunk.streamId !== streamId) return;
      switch (chunk.type) {
        case 'status': stream.progress(chunk.message); break;
        case 'text': stream.markdown(chunk.text); break;
        case 'citation': {
          if (referenced.has(chunk.citation.path)) break;
          referenced.add(chunk.citation.path);
          const uri = vscode.Uri.parse(chunk.citation.uri);
          stream.reference(new vscode.Location(uri, new vscode.Range(Math.max(0, chunk.citation.startLine - 1), 0, Math.max(0, chunk.citation.endLine - 1), 0)));
          break;
        }
        case 'done': resolved(chunk.conversationId); break;
        case 'error': failed(new Error(chunk.message)); break;
      }
    });
    const cancel = token.onCancellationRequested(() => void ctx.request('loupe/cancelResearch', { streamId }));
    try {
      // Loupe's model setting decides (loupe.models.*: built-in, the editor's models, or a server).
      const started = ctx.request('loupe/research', { streamId, question: request.prompt, conversationId: threadId, scope: 'code' });
      started.catch((error: Error) => failed(error));
      const conversation = await finished;
      return { metadata: { threadId: conversation } };
    } catch (error) {
      const message = (error as Error).message;
      if (message !== 'stopped') stream.markdown(`\n\n_Loupe could not answer: ${message}_`);
      return { metadata: { threadId: threadId ?? null }, errorDetails: message === 'stopped' ? undefined : { message } };
    } finally {
      listener.dispose();
      cancel.dispose();
    }
  });
  participant.iconPath = vscode.Uri.joinPath(ctx.extension.extensionUri, 'media', 'icon.png');
  ctx.push(participant);
}
