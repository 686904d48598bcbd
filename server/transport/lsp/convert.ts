/** API ↔ editor conversions for the panel's requests: URIs and the line a click lands on. Nothing else. */
import type { HistoryItem } from '../../../protocol/api/history';
import type { SearchHit as ApiSearchHit } from '../../../protocol/api/search';
import type { HistoryEntry, SearchHit } from '../../../protocol/lsp';
import type { RepoRecord } from '../../engine/types';
import type { WorkspaceRepos } from './workspace-repos';

/** The API's hit with the file's URI and the line of its first highlighted match (where a click should land). */
export function toEditorHit(hit: ApiSearchHit, workspace: WorkspaceRepos, repoOf: (repoId: string) => RepoRecord | undefined): SearchHit {
  const repo = repoOf(hit.repo_id);
  const uri = hit.file_path && repo ? workspace.uriOf(repo, hit.file_path) : null;
  const line = hit.snippet?.highlights[0]?.line ?? hit.snippet?.start_line ?? hit.start_line ?? 1;
  return { ...hit, uri, line };
}

export function toHistoryEntry(item: HistoryItem): HistoryEntry {
  return {
    id: item.history_id,
    query: item.query ?? '',
    kind: item.category === 'research' ? 'research' : 'search',
    at: item.created_at,
    conversationId: item.conversation_id,
  };
}
