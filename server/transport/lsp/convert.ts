/** Domain ↔ LSP wire conversions for the panel's requests. No logic beyond reshaping. */
import type { SearchHit as EngineHit, SearchOutcome } from '../../engine/search/types';
import type { ResearchHit } from '../../engine/research/grounding';
import type { HistoryItem } from '../../engine/accounts/history';
import type { HistoryEntry, SearchHit, SearchParams } from '../../../protocol/lsp';
import type { RepoRecord } from '../../engine/types';
import type { WorkspaceRepos } from './workspace-repos';

export function toEngineSearch(params: SearchParams, repoIds: string[]) {
  return {
    query: params.query,
    scope: params.scope,
    scanMode: params.mode,
    repoIds,
    limit: Math.min(Math.max(params.limit ?? 50, 1), 200),
    filters: {
      ...(params.fileTypes.length ? { fileTypes: params.fileTypes } : {}),
      ...(params.paths.length ? { filePaths: params.paths } : {}),
    },
  };
}

export function toWireHit(hit: EngineHit, workspace: WorkspaceRepos, rootOf: (repoId: string) => RepoRecord | undefined): SearchHit {
  const repo = rootOf(hit.repoId);
  const uri = hit.filePath && repo ? workspace.uriOf(repo, hit.filePath) : null;
  const line = hit.snippet?.startLine ?? hit.startLine ?? 1;
  return {
    kind: hit.type, repoName: hit.repoName, path: hit.filePath, uri,
    line: firstHighlightLine(hit) ?? line, endLine: hit.endLine ?? line,
    name: hit.name, signature: hit.signature,
    snippet: hit.snippet ? { startLine: hit.snippet.startLine, text: hit.snippet.text, highlights: hit.snippet.highlights } : null,
    score: hit.score,
  };
}

/** The line of the first highlighted match: where a click should land. */
function firstHighlightLine(hit: EngineHit): number | undefined {
  return hit.snippet?.highlights[0]?.line;
}

/** What research grounds on: the hits that point into files. */
export function toResearchHits(outcome: SearchOutcome): ResearchHit[] {
  return outcome.results
    .filter((h): h is EngineHit & { filePath: string } => !!h.filePath)
    .map((h) => ({ repoId: h.repoId, repoName: h.repoName, filePath: h.filePath, startLine: h.startLine ?? null, endLine: h.endLine ?? null, score: h.score }));
}

export function toHistoryEntry(item: HistoryItem): HistoryEntry {
  return {
    id: item.history_id,
    query: item.query ?? '',
    kind: item.category === 'research' ? 'research' : 'search',
    at: item.created_at,
    threadId: item.conversation_id,
  };
}
