import type { Connection } from 'vscode-languageserver/node';
import type { Logger } from '../../../engine/log';
import { Method, type Citation, type ConversationTurn } from '../../../../protocol/lsp';
import type { Session } from '../session';
import { guarded } from '../guarded';
import { onLoupeRequest } from '../typed';

interface KeptResearch { answer?: string; error?: string; context_files?: { repo_id: string; file_path: string; start_line: number | null; end_line: number | null }[] }

/**
 * `loupe/conversation`: a past research conversation with its answers and sources, as History
 * kept them (the rows behind GET /v2/history/conversations/{id}), so the panel can reopen it.
 */
export function bindConversation(connection: Connection, session: Session, log: Logger): void {
  const editor = session.ops.editor;
  onLoupeRequest(connection, Method.conversation, guarded(log, 'conversation', ({ threadId }) => {
    const thread = editor.conversation(session.ownerId, threadId);
    const turns = thread.items.filter((i) => i.category === 'research').map((item): ConversationTurn => {
      const kept = (item.result ?? {}) as KeptResearch;
      const citations: Citation[] = [];
      for (const f of kept.context_files ?? []) {
        const repo = editor.repo(f.repo_id);
        if (!repo) continue;
        citations.push({ path: f.file_path, uri: session.workspace.uriOf(repo, f.file_path), startLine: f.start_line ?? 1, endLine: f.end_line ?? f.start_line ?? 1 });
      }
      return { question: item.query ?? '', answer: kept.answer ?? '', citations, error: kept.error ?? null, at: item.created_at };
    });
    return { threadId: thread.conversation_id, turns };
  }));
}
