/** The search service's request and answer, in engine terms (operations/search.ts converts them from and to the API's). */
import type { FileFilterSql } from '../store/search-store';
import type { DocDepth } from '../docs/depth';

export type SearchScope = 'all' | 'repos' | 'files' | 'code' | 'functions';
export type ScanMode = 'semantic' | 'grep_docs' | 'grep_code';
/** Which retrievers a semantic search uses (hybrid by default; the others exist for evaluation). */
export type Retriever = 'hybrid' | 'lexical' | 'vector';

/** Every filter of the request: the ones SQL answers, plus file types and path globs. */
export interface SearchFilters extends FileFilterSql {
  fileTypes?: string[];
  filePaths?: string[];
}

export interface SearchRequest {
  query: string;
  scope?: SearchScope;
  scanMode?: ScanMode;
  repoIds?: string[];
  repoUrls?: string[];
  filters?: SearchFilters;
  similarityThreshold?: number;
  fields?: DocDepth;
  /** Hits per kind and page: semantic 20 by default, grep modes GREP_PAGE_LIMIT. */
  limit?: number;
  /** Hits of each kind to skip (paging). */
  offset?: number;
  retriever?: Retriever;
  /**
   * semantic: identifiers a retrieval model named for the query (research/retrieval-assist.ts). They join the
   * full-text side and the name boosts; the query as typed still decides the exact-name match and the embedding.
   */
  expansions?: string[];
  /** grep: cap on matched lines collected (the answer's `total` counts up to it). */
  maxMatches?: number;
}

export interface Highlight { line: number; start: number; end: number }

export interface Snippet {
  startLine: number;
  text: string;
  highlights: Highlight[];
}

export interface SearchHit {
  type: 'repo' | 'file' | 'code' | 'function';
  repoId: string;
  repoName: string;
  filePath: string | null;
  score: number;
  startLine?: number;
  endLine?: number;
  language?: string | null;
  snippet?: Snippet;
  /** function hits */
  name?: string;
  kind?: string;
  signature?: string | null;
  exported?: boolean;
  /** file and repo hits: how many matched lines or chunks they gather */
  matches?: number;
  /** per `fields`: the file's documentation at that depth, or a note that it is being generated */
  doc?: { depth: DocDepth; markdown: string | null; processing: boolean };
}

export interface SearchTimings {
  totalMs: number;
  [phase: string]: number;
}

export interface SearchOutcome {
  results: SearchHit[];
  total: number;
  /** Per hit type, how many there were before the limit. */
  totals: Partial<Record<SearchHit['type'], number>>;
  mode: ScanMode;
  scope: SearchScope;
  retriever?: Retriever;
  /** The embedding model that served the vector side, when it ran. */
  embedding?: { model: string; dims: number } | null;
  candidates?: { files: number; scanned: number };
  /** This page: the limit and offset applied to each kind, and the most hits any kind has (what paging runs over). */
  page: { limit: number; offset: number; total: number };
  repoIds: string[];
  timings: SearchTimings;
  warnings: string[];
}

/** What search needs from the file documentation service (injected: docs sit above search). */
export interface DocSource {
  /**
   * The file's generated documentation at a depth, null when none is ready yet, undefined for a file the index
   * left out. Async: the file and its documentation may be read from a remote store.
   */
  markdown(repoId: string, filePath: string, depth: DocDepth): Promise<string | null | undefined>;
}
