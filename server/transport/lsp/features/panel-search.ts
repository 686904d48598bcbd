import type { Connection } from 'vscode-languageserver/node';
import type { Logger } from '../../../engine/log';
import { Method, type Citation, type ResearchChunk } from '../../../../protocol/lsp';
import type { Session } from '../session';
import { guarded } from '../guarded';
import { onLoupeRequest, sendLoupeNotification } from '../typed';
import { toEngineSearch, toHistoryEntry, toResearchHits, toWireHit } from '../convert';

/**
 * The panel's search, research, models and history: the engine's SearchService, Research and
 * History (the operations behind POST /v2/search, GET /v2/models and /v2/history), for the owner.
 */
export function bindPanelSearch(connection: Connection, session: Session, log: Logger): void {
  const { engine } = session;
  const streams = new Map<string, AbortController>();
  const rootOf = (repoId: string) => engine.reposStore.get(repoId);

  onLoupeRequest(connection, Method.search, guarded(log, 'search', async (params) => {
    const started = Date.now();
    const outcome = await engine.search.search(session.ownerId, toEngineSearch(params, session.workspace.ids()));
    engine.history.record({
      userId: session.ownerId, category: 'search', operation: 'search.run', query: params.query,
      repoIds: session.workspace.ids(), summary: `${outcome.total} results (${params.mode}, ${params.scope}) from the editor`,
      durationMs: Date.now() - started,
    });
    return {
      hits: outcome.results.map((h) => toWireHit(h, session.workspace, rootOf)),
      total: outcome.total, tookMs: Math.round(outcome.timings.totalMs), warnings: outcome.warnings,
    };
  }));

  onLoupeRequest(connection, Method.research, guarded(log, 'research', async (params) => {
    const send = (chunk: ResearchChunk) => sendLoupeNotification(connection, Method.researchChunk, chunk);
    const controller = new AbortController();
    streams.set(params.streamId, controller);
    const repoIds = session.workspace.ids();
    try {
      const prepared = await engine.research.prepare({
        userId: session.ownerId, question: params.question, model: params.modelId ?? null,
        conversationId: params.threadId ?? null, repoIds,
        search: async () => {
          const outcome = await engine.search.search(session.ownerId, toEngineSearch({
            query: params.question, scope: 'code', mode: 'semantic', fileTypes: [], paths: [],
          }, repoIds));
          return { results: outcome.results, total: outcome.total, meta: {}, hits: toResearchHits(outcome) };
        },
      });
      send({ streamId: params.streamId, type: 'status', message: `Searching the workspace, then answering with ${prepared.model.info.id}…` });
      let threadId: string | null = null;
      for await (const event of prepared.run(controller.signal)) {
        if (event.type === 'chunk') send({ streamId: params.streamId, type: 'text', text: event.text });
        else if (event.type === 'search') send({ streamId: params.streamId, type: 'status', message: `${event.total} results found; writing the answer…` });
        else {
          for (const f of event.context_files) {
            const repo = rootOf(f.repo_id);
            if (!repo) continue;
            const citation: Citation = {
              path: f.file_path, uri: session.workspace.uriOf(repo, f.file_path),
              startLine: f.start_line ?? 1, endLine: f.end_line ?? f.start_line ?? 1,
            };
            send({ streamId: params.streamId, type: 'citation', citation });
          }
          threadId = event.conversation_id;
        }
      }
      send({ streamId: params.streamId, type: 'done', threadId });
      return { threadId };
    } catch (error) {
      const message = (error as Error).name === 'AbortError' ? 'stopped' : (error as Error).message;
      send({ streamId: params.streamId, type: 'error', message });
      throw error;
    } finally {
      streams.delete(params.streamId);
    }
  }));

  onLoupeRequest(connection, Method.cancelResearch, guarded(log, 'cancelResearch', ({ streamId }) => {
    streams.get(streamId)?.abort();
  }));

  onLoupeRequest(connection, Method.models, guarded(log, 'models', async () => {
    const models = await engine.research.models.list();
    return models.map((m) => ({
      id: m.id,
      label: `${m.id}${m.isDefault ? ' (default)' : ''}`,
      source: m.provider === 'loupe' ? 'built-in' as const : m.provider === 'vscode' ? 'vscode' as const : 'configured' as const,
    }));
  }));

  onLoupeRequest(connection, Method.history, guarded(log, 'history', ({ limit }) =>
    engine.history.list(session.ownerId, { limit: Math.min(limit ?? 50, 200), offset: 0 }).items
      .filter((i) => i.category === 'search' || i.category === 'research')
      .map(toHistoryEntry)));
}
