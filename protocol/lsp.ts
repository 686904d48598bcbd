/**
 * Loupe's extensions to the Language Server Protocol, declared once for the client and the server.
 * Custom methods are namespaced `loupe/…` (as vscode-eslint does with `eslint/status`).
 * Methods are plain names with a type map (not vscode-jsonrpc `RequestType` objects): the client and
 * the server libraries each bundle their own vscode-jsonrpc, whose classes do not mix.
 */
import type { LoupeSettings } from './settings';
import type { SearchHit as ApiSearchHit, SearchRequest } from './api/search';

/** What the client hands the server at start (LSP `initializationOptions`). */
export interface LoupeInitOptions {
  /** Where the index lives: the extension's global storage folder. */
  dataDir: string;
  /**
   * The owner's API key, kept by the client in SecretStorage. Absent when the client has not read it yet
   * (a round trip to the window, seconds on a busy start): it follows as `loupe/ownerKey`, and nothing
   * the first lenses need waits for it.
   */
  ownerKey?: string;
  settings: LoupeSettings;
}

export type IndexPhase = 'queued' | 'scanning' | 'parsing' | 'linking' | 'derived' | 'ready' | 'failed' | 'paused';

export interface RepoStatus {
  repoId: string;
  name: string;
  rootPath: string;
  phase: IndexPhase;
  filesDone: number;
  filesTotal: number;
  error: string | null;
}

export interface LoupeStatus {
  repos: RepoStatus[];
  paused: boolean;
  /** The HTTP sidecar's base URL, or null when it is off or could not start. */
  sidecarUrl: string | null;
  sidecarError: string | null;
  /** True while this is the first time any workspace folder is being indexed. */
  firstIndex: boolean;
}

/** Cancels the first indexing run (the progress notification's Cancel): pauses the queue. */

/** A file that depends on another, directly (depth 1) or through others. */
export interface DependentEntry {
  path: string;
  /** file:// URI, for opening. */
  uri: string;
  depth: number;
  isEntryPoint: boolean;
  isTest: boolean;
}

export interface RadiusParams { uri: string }
export interface RadiusResult {
  uri: string;
  path: string;
  dependents: DependentEntry[];
  entryPoints: number;
  tests: number;
  /** Set when the file is not (yet) in the index. */
  note: string | null;
}

/** The radius of my change: what the working tree's changes (or the branch's, against its base) affect. */
export type ChangeBase = 'workingTree' | 'branch';
export interface ChangeRadiusParams { against: ChangeBase }
export interface ChangedFile { repoName: string; path: string; uri: string; status: 'added' | 'modified' | 'deleted' | 'renamed' | 'untracked'; dependents: number }
export interface ChangeRadiusResult {
  against: ChangeBase;
  /** What the changes are compared with: `HEAD`, or the merge base with the base branch (`main @ 1a2b3c4`). */
  base: string | null;
  changed: ChangedFile[];
  /** The union of the changed files' dependents (nearest depth), without the changed files themselves. */
  dependents: (DependentEntry & { repoName: string })[];
  /** Tests to run first: changed tests (depth 0), then dependent tests, nearest first. */
  tests: (DependentEntry & { repoName: string })[];
  entryPoints: number;
  /** Why a folder gave nothing (not a git repository, no base branch found). */
  notes: string[];
}

/** Files that use one exported symbol (the "used in N files" lens). */
export interface SymbolUsersParams { uri: string; symbol: string }
export interface SymbolUsersResult { symbol: string; files: { path: string; uri: string; line: number }[] }

// ---- panel: search (the same operation as POST /v2/search) ----

export type SearchScope = NonNullable<SearchRequest['scope']>;
export type ScanMode = NonNullable<SearchRequest['scan_mode']>;

/**
 * The panel's search is the HTTP API's search request (`POST /v2/search` without `chat`), checked
 * against the same schema. Without `repo_ids` the server searches the workspace folders; without
 * `limit`, 50 hits per kind.
 */
export type SearchParams = Omit<SearchRequest, 'chat' | 'model' | 'conversation_id'> & {
  /** Set by the host: the active editor's file (unused by the search itself). */
  activeUri?: string;
};

export interface SearchHighlight { line: number; start: number; end: number }

/** A hit exactly as the API returns it, plus where the editor opens it. */
export type SearchHit = ApiSearchHit & {
  /** file:// URI of the hit's file, null for a repository hit or a file outside the workspace folders. */
  uri: string | null;
  /** The line a click lands on: the first highlighted match, else where the hit starts. */
  line: number;
};

export interface SearchResult { hits: SearchHit[]; total: number; tookMs: number; warnings: string[] }

// ---- panel: research (streaming) ----

export interface ModelInfo {
  id: string;
  label: string;
  source: 'built-in' | 'configured' | 'vscode';
}

export interface ResearchParams {
  /** Chosen by the client; every chunk notification carries it. */
  streamId: string;
  question: string;
  modelId?: string;
  /** Continue this conversation (a follow-up). */
  conversationId?: string;
  scope: SearchScope;
  activeUri?: string;
}

export interface Citation { path: string; uri: string; startLine: number; endLine: number }

export type ResearchChunk =
  | { streamId: string; type: 'text'; text: string }
  | { streamId: string; type: 'citation'; citation: Citation }
  | { streamId: string; type: 'status'; message: string }
  | { streamId: string; type: 'done'; conversationId: string | null }
  | { streamId: string; type: 'error'; message: string };


// ---- panel: history ----

export interface HistoryEntry { id: string; query: string; kind: 'search' | 'research'; at: string; conversationId: string | null }

/** A past research conversation as it was answered, to reopen from History. */
export interface ConversationTurn { question: string; answer: string; citations: Citation[]; error: string | null; at: string }
export interface ConversationResult { threadId: string; turns: ConversationTurn[] }

// ---- the owner key and sidecar ----

export interface SidecarInfo { url: string | null; docsUrl: string | null; error: string | null }

// ---- the method table ----

/** Requests: method → [params, result]. */
export interface LoupeRequests {
  'loupe/status': [void, LoupeStatus];
  'loupe/pause': [void, LoupeStatus];
  'loupe/resume': [void, LoupeStatus];
  'loupe/reindex': [void, LoupeStatus];
  'loupe/cancelIndex': [void, LoupeStatus];
  'loupe/models': [void, ModelInfo[]];
  'loupe/sidecar': [void, SidecarInfo];
  'loupe/radius': [RadiusParams, RadiusResult];
  'loupe/symbolUsers': [SymbolUsersParams, SymbolUsersResult];
  'loupe/search': [SearchParams, SearchResult];
  'loupe/research': [ResearchParams, { conversationId: string | null }];
  'loupe/cancelResearch': [{ streamId: string }, void];
  'loupe/history': [{ limit?: number }, HistoryEntry[]];
  'loupe/conversation': [{ threadId: string }, ConversationResult];
  'loupe/changeRadius': [ChangeRadiusParams, ChangeRadiusResult];
  /** A file's documentation (the engine's file docs, as GET /v2/files/{id}/docs gives them). */
  'loupe/fileDoc': [{ uri: string; depth?: 'basic' | 'summary' | 'full' }, { path: string; markdown: string; processing: boolean }];
  /** Each workspace folder's blueprint (README, structure, dependencies, top symbols), as POST /v2/blueprint. */
  'loupe/blueprint': [void, { repoName: string; markdown: string }[]];
  /** New settings: applied at once where they can be; `restart` when the engine must be built again. */
  'loupe/applySettings': [LoupeSettings, { applied: string[]; restart: string[] }];
}

/** Notifications: method → params. */
export interface LoupeNotifications {
  'loupe/statusChanged': LoupeStatus;
  'loupe/researchChunk': ResearchChunk;
  /** A sign-up or sign-in code was mailed (shown as a notification when it went to the local outbox). */
  'loupe/mail': MailNotice;
  /** Client → server: the owner's key, when initialize went without it (see LoupeInitOptions.ownerKey). */
  'loupe/ownerKey': { key: string };
}

export interface MailNotice {
  to: string;
  subject: string;
  /** `outbox`: no SMTP is configured and the message was saved at `path` on this machine. */
  via: 'smtp' | 'outbox';
  path?: string;
}

export const Method = {
  status: 'loupe/status',
  ownerKey: 'loupe/ownerKey',
  pause: 'loupe/pause',
  resume: 'loupe/resume',
  reindex: 'loupe/reindex',
  cancelIndex: 'loupe/cancelIndex',
  models: 'loupe/models',
  sidecar: 'loupe/sidecar',
  radius: 'loupe/radius',
  symbolUsers: 'loupe/symbolUsers',
  search: 'loupe/search',
  research: 'loupe/research',
  cancelResearch: 'loupe/cancelResearch',
  history: 'loupe/history',
  conversation: 'loupe/conversation',
  changeRadius: 'loupe/changeRadius',
  applySettings: 'loupe/applySettings',
  fileDoc: 'loupe/fileDoc',
  blueprint: 'loupe/blueprint',
  statusChanged: 'loupe/statusChanged',
  researchChunk: 'loupe/researchChunk',
} as const satisfies Record<string, keyof LoupeRequests | keyof LoupeNotifications>;

// ---- the vscode.lm bridge: the server borrows the editor's chat models (server → client) ----

export interface LmModel { id: string; name: string; vendor: string; family?: string; maxInputTokens: number; maxOutputTokens?: number }
export interface LmChatParams {
  requestId: string;
  modelId: string;
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  maxOutputTokens?: number;
}

/** Requests the server sends to the client: method → [params, result]. */
export interface LoupeClientRequests {
  /** The models `vscode.lm.selectChatModels()` offers. */
  'loupe/lm/models': [void, LmModel[]];
  /** Runs one chat; text arrives as `loupe/lm/chunk` notifications before the answer. */
  'loupe/lm/chat': [LmChatParams, { inputTokens?: number; outputTokens?: number }];
}

/** Notifications for the bridge, by direction. */
export interface LoupeLmNotifications {
  /** client → server: a piece of a running chat's text. */
  'loupe/lm/chunk': { requestId: string; text: string };
  /** client → server: `vscode.lm.onDidChangeChatModels`. */
  'loupe/lm/changed': Record<string, never>;
  /** server → client: stop a running chat. */
  'loupe/lm/cancel': { requestId: string };
}
