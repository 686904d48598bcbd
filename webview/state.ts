/**
 * What the panel remembers across being hidden, moved, closed or the window reloading: VS Code keeps
 * it for the view (`setState`/`getState`), so search results and the conversation come back as they were.
 */
import type { Citation, ModelInfo, ScanMode, SearchScope } from '../protocol/lsp';
import type { HitSource, PanelSearchResult, PanelTab, ResearchWhere, WebviewMessage } from '../protocol/webview';

/** One source's answer to a question: the text as it streams, the files it cites, its progress or failure. */
export interface AnswerPart {
  answer: string;
  citations: Citation[];
  status: string;
  error: string | null;
  done: boolean;
}

/**
 * A question and its answer. The turn's own fields are the local index's answer; `team` is the team server's,
 * when it was asked too (`local: false`: it alone was asked).
 */
export interface Turn extends AnswerPart {
  question: string;
  streamId: string;
  team?: AnswerPart & { source: HitSource };
  /** False when only the team server was asked (unset: the local index was asked). */
  local?: boolean;
}

export interface PanelState {
  version: 1;
  tab: PanelTab;
  search: { query: string; scope: SearchScope; mode: ScanMode; types: string[]; paths: string[]; result: PanelSearchResult | null; selected: number };
  /** `models`: the last list the server sent, shown at once when the view comes back (a window reload). */
  research: {
    turns: Turn[]; threadId: string | null; model: string; draft: string; models: ModelInfo[];
    /** The team server research can ask (`loupe.server.url`), where the user chose to ask, and its own thread. */
    team?: HitSource | null; where?: ResearchWhere; teamThreadId?: string | null;
  };
}

export function initialState(): PanelState {
  return {
    version: 1,
    tab: 'search',
    search: { query: '', scope: 'code', mode: 'semantic', types: [], paths: [], result: null, selected: -1 },
    research: { turns: [], threadId: null, model: '', draft: '', models: [], team: null, where: 'both', teamThreadId: null },
  };
}

/** A state read back from VS Code: unknown or older shapes start fresh; an answer cut off by a reload says so. */
export function restoreState(saved: unknown): PanelState {
  const state = saved as Partial<PanelState> | undefined;
  if (!state || state.version !== 1 || !state.search || !state.research) return initialState();
  state.research.models ??= [];
  // Results saved before hits said where they are from were all the local index's.
  const result = state.search.result as (Partial<PanelSearchResult> & { hits: PanelSearchResult['hits'] }) | null;
  if (result) {
    result.sources ??= [{ source: { kind: 'local', label: 'local' }, total: result.total ?? result.hits.length }];
    result.errors ??= [];
    for (const hit of result.hits) hit.source ??= { kind: 'local', label: 'local' };
  }
  const interrupted = 'interrupted (the panel was closed while it streamed)';
  for (const turn of state.research.turns) {
    if (!turn.done) Object.assign(turn, { done: true, status: '', error: turn.error ?? interrupted });
    if (turn.team && !turn.team.done) Object.assign(turn.team, { done: true, status: '', error: turn.team.error ?? interrupted });
  }
  return state as PanelState;
}

export interface VsCodeApi { postMessage(message: WebviewMessage): void; getState(): unknown; setState(state: unknown): void }
