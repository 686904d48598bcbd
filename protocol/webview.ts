/**
 * Messages between the panel's webview and the extension host, as tagged unions on `type`. The
 * host forwards requests to the language server; the webview never computes results itself.
 */
import type {
  ConversationResult, HistoryEntry, ModelInfo, ResearchChunk, ScanMode, SearchHit, SearchParams, SearchResult, SearchScope,
} from './lsp';

/**
 * Where a hit of the panel comes from: the language server's index of this window's folders (`local`), or the
 * team server that `loupe.server.url` names (`team`, labelled with its host).
 */
export interface HitSource { kind: 'local' | 'team'; label: string }

export type PanelHit = SearchHit & { source: HitSource };

/**
 * The panel's search: the local index's answer and the team server's, merged (client/team/merge.ts). A source
 * that failed (unreachable, refused key) is in `errors`, and the other source's hits still show.
 */
export interface PanelSearchResult extends Omit<SearchResult, 'hits'> {
  hits: PanelHit[];
  /** Hits per source that answered, in the order shown in the status line. */
  sources: { source: HitSource; total: number }[];
  errors: { source: HitSource; message: string }[];
  /** Sources still searching: the local hits are shown at once, the team server's join them when they come. */
  pending?: HitSource[];
}

export type PanelTab = 'search' | 'research' | 'history';

/**
 * Where research asks when a team server is set: both sources (two answers in one turn, each labelled), only this
 * window's index, or only the team server. Without a team server it is always the local index.
 */
export type ResearchWhere = 'both' | 'local' | 'team';

/** Webview → host. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'search'; requestId: number; params: SearchParams }
  | {
    type: 'research';
    params: {
      streamId: string; question: string; modelId?: string; conversationId?: string; scope: SearchScope;
      /** Unset: the local index only (as before a team server). */
      where?: ResearchWhere;
      /** The team server's conversation to continue (its own id: each source keeps its own thread). */
      teamConversationId?: string;
    };
  }
  | { type: 'cancelResearch'; streamId: string }
  | { type: 'open'; uri: string; line: number }
  | { type: 'loadHistory' }
  | { type: 'loadModels' }
  /** Reopen a past research conversation with its answers. */
  | { type: 'openConversation'; threadId: string }
  /** Empty the History list (entries before now are no longer listed; the API's history is kept). */
  | { type: 'clearHistory' };

/** Host → webview. */
export type HostMessage =
  | { type: 'searchResult'; requestId: number; result: PanelSearchResult }
  | { type: 'searchError'; requestId: number; message: string }
  /** A piece of an answer; `source` set (kind `team`) for the team server's answer, unset for the local one. */
  | { type: 'researchChunk'; chunk: ResearchChunk; source?: HitSource }
  /** The team server research can ask (`loupe.server.url`), or null: sent when the view is ready and when it changes. */
  | { type: 'teamServer'; source: HitSource | null }
  | { type: 'models'; models: ModelInfo[] }
  | { type: 'history'; entries: HistoryEntry[] }
  | { type: 'conversation'; conversation: ConversationResult }
  /** Show a tab; with `query`, fill it in and run it (search) or ask it (research). */
  | { type: 'focus'; tab: PanelTab; query?: string; mode?: ScanMode; run?: boolean };
