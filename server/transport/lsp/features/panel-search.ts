import type { Connection } from 'vscode-languageserver/node';
import type { Logger } from '../../../engine/log';
import type { SearchRequest } from '../../../../protocol/api/search';
import { Method, type Citation, type ResearchChunk, type SearchParams } from '../../../../protocol/lsp';
import type { Session } from '../session';
import { guarded } from '../guarded';
import { onLoupeRequest, sendLoupeNotification } from '../typed';
import { toEditorHit, toHistoryEntry } from '../convert';

/** Hits per kind when the panel does not say: more than the API's 20, as a panel scrolls. */
const PANEL_LIMIT = 50;
/** Hits per kind research grounds on (its answer cites the best few files of them). */
const RESEARCH_LIMIT = 50;

/**
 * A search request checked as POST /v2/search's body would be. Ajv and the API's schemas load on the
 * first search, not when the server starts: the first lens does not need them (esbuild.mjs).
 */
async function checkSearch(request: unknown): Promise<SearchRequest> {
  const [{ SearchRequest: schema }, { checkRequest }] = await Promise.all([import('../../../../protocol/api/search'), import('../../common/validate')]);
  return checkRequest<SearchRequest>(schema, request);
}

/**
 * The panel's search, research, models and history: the same operations as POST /v2/search,
 * GET /v2/models and GET /v2/history, for the machine's owner, charged and recorded per the owner's
 * plan. This file converts only editor shapes (workspace folders as the default scope, URIs).
 */
export function bindPanelSearch(connection: Connection, session: Session, log: Logger): void {
  const { ops } = session;
  const streams = new Map<string, AbortController>();
  const repoOf = (repoId: string) => session.workspace.repos().find((r) => r.id === repoId) ?? ops.indexing.repo(repoId);

  onLoupeRequest(connection, Method.search, guarded(log, 'search', async (params: SearchParams) => {
    const { activeUri: _activeUri, ...request } = params;
    const checked = await checkSearch({
      ...request, repo_ids: request.repo_ids ?? session.workspace.ids(), limit: request.limit ?? PANEL_LIMIT,
    });
    const answer = await ops.search.run(await session.caller(), checked);
    return {
      hits: answer.data.results.map((h) => toEditorHit(h, session.workspace, repoOf)),
      total: answer.data.total, tookMs: Math.round(answer.data.search.timings.totalMs ?? 0), warnings: answer.data.search.warnings,
    };
  }));

  onLoupeRequest(connection, Method.research, guarded(log, 'research', async (params) => {
    const send = (chunk: ResearchChunk) => sendLoupeNotification(connection, Method.researchChunk, chunk);
    const controller = new AbortController();
    streams.set(params.streamId, controller);
    try {
      const request = await checkSearch({
        query: params.question, scope: 'code', scan_mode: 'semantic', repo_ids: session.workspace.ids(), limit: RESEARCH_LIMIT, chat: true,
        ...(params.modelId ? { model: params.modelId } : {}), ...(params.conversationId ? { conversation_id: params.conversationId } : {}),
      });
      const research = await ops.search.research(await session.caller(), request, { signal: controller.signal });
      send({ streamId: params.streamId, type: 'status', message: `Searching the workspace, then answering with ${research.model}…` });
      let conversationId: string | null = null;
      for await (const event of research.events(controller.signal)) {
        if (event.type === 'chunk') send({ streamId: params.streamId, type: 'text', text: event.text });
        else if (event.type === 'search') send({ streamId: params.streamId, type: 'status', message: `${event.total} results found; writing the answer…` });
        else {
          for (const f of event.context_files) {
            const repo = repoOf(f.repo_id);
            if (!repo) continue;
            const citation: Citation = {
              path: f.file_path, uri: session.workspace.uriOf(repo, f.file_path),
              startLine: f.start_line ?? 1, endLine: f.end_line ?? f.start_line ?? 1,
            };
            send({ streamId: params.streamId, type: 'citation', citation });
          }
          conversationId = event.conversation_id;
        }
      }
      send({ streamId: params.streamId, type: 'done', conversationId });
      return { conversationId };
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
    const models = (await ops.models.list(await session.caller())).data;
    return models.map((m) => ({
      id: m.id,
      label: `${m.id}${m.default ? ' (default)' : ''}`,
      source: m.provider === 'loupe' ? 'built-in' as const : m.provider === 'vscode' ? 'vscode' as const : 'configured' as const,
    }));
  }));

  onLoupeRequest(connection, Method.history, guarded(log, 'history', async ({ limit }) => {
    const answer = await ops.history.list(await session.caller(), { limit: Math.min(limit ?? 50, 100), offset: 0 });
    return answer.data.filter((i) => i.category === 'search' || i.category === 'research').map(toHistoryEntry);
  }));
}
