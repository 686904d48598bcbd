/**
 * Messages between the panel's webview and the extension host, as tagged unions on `type`. The
 * host forwards requests to the language server; the webview never computes results itself.
 */
import type {
  HistoryEntry, ModelInfo, RadiusResult, ResearchChunk, ScanMode, SearchParams, SearchResult, SearchScope,
} from './lsp';

export type PanelTab = 'search' | 'research' | 'history' | 'radius';

/** Webview → host. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'search'; requestId: number; params: SearchParams }
  | { type: 'research'; params: { streamId: string; question: string; modelId?: string; conversationId?: string; scope: SearchScope } }
  | { type: 'cancelResearch'; streamId: string }
  | { type: 'open'; uri: string; line: number }
  | { type: 'loadHistory' }
  | { type: 'loadModels' };

/** Host → webview. */
export type HostMessage =
  | { type: 'init'; tab: PanelTab; query?: string; mode?: ScanMode }
  | { type: 'searchResult'; requestId: number; result: SearchResult }
  | { type: 'searchError'; requestId: number; message: string }
  | { type: 'researchChunk'; chunk: ResearchChunk }
  | { type: 'models'; models: ModelInfo[] }
  | { type: 'history'; entries: HistoryEntry[] }
  | { type: 'radiusTree'; result: RadiusResult }
  | { type: 'focus'; tab: PanelTab; query?: string };
