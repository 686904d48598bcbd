/** POST /v2/search: the request (both modes) and the JSON answer of search mode (`chat` false). */
import { Type, type Static } from 'typebox';
import { DOC_DEPTHS, Nullable, StringEnum, Uuid } from './common';


export const SearchFilters = Type.Object({
  file_types: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), {
    maxItems: 50, description: 'Extensions (`ts`, `.py`) or language names (`typescript`).',
  })),
  file_paths: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 500 }), {
    maxItems: 50, description: 'Globs over repository paths (`src/**/*.ts`); a plain folder name matches everything under it.',
  })),
  dependencies: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
    maxItems: 50, description: 'Only files importing one of these (package name, import specifier, or repository path).',
  })),
  function_names: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
    maxItems: 50, description: 'Only files defining a function or method with one of these names (case-insensitive); function hits are limited to them.',
  })),
  has_functions: Type.Optional(Type.Boolean({ description: 'Only files that define functions (true) or none (false).' })),
  min_lines: Type.Optional(Type.Integer({ minimum: 0, description: 'Only files with at least this many lines.' })),
  max_lines: Type.Optional(Type.Integer({ minimum: 0, description: 'Only files with at most this many lines.' })),
  visibility: Type.Optional(StringEnum(['public', 'private'] as const, {
    description: 'public: exported symbols (and files that export something); private: the rest.',
  })),
}, { additionalProperties: false, $id: 'SearchFilters' });

export const SearchRequest = Type.Object({
  query: Type.String({
    minLength: 2, maxLength: 1000,
    description: 'Natural language or identifiers (semantic); a literal, or `/pattern/flags` with flags i, m, s (grep modes, ripgrep syntax).',
  }),
  scope: Type.Optional(StringEnum(['all', 'repos', 'files', 'code', 'functions'] as const, { default: 'all', description: 'What kind of hits to return; `all` groups repositories, files, functions and code.' })),
  scan_mode: Type.Optional(StringEnum(['semantic', 'grep_docs', 'grep_code'] as const, { default: 'semantic' })),
  repo_ids: Type.Optional(Type.Array(Uuid, { maxItems: 25, description: 'Repositories to search (with repo_urls at most 25); default all of yours.' })),
  repo_urls: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { maxItems: 25, description: 'Repositories by URL (merged with repo_ids).' })),
  filters: Type.Optional(SearchFilters),
  similarity_threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Floor on cosine similarity for vector matches (semantic mode).' })),
  fields: Type.Optional(StringEnum(DOC_DEPTHS, { description: 'Adds each hit\'s file documentation at this depth.' })),
  limit: Type.Optional(Type.Integer({
    minimum: 1, maximum: 1000,
    description: 'Hits per kind on this page. semantic: default 20. grep_code and grep_docs: default 1000, i.e. every matching '
      + 'line up to 1,000 per page; `pagination.has_more` says when there are more (ask again with `offset`).',
  })),
  offset: Type.Optional(Type.Integer({
    minimum: 0, maximum: 10000, default: 0,
    description: 'Hits of each kind to skip: the next page starts at offset + limit. grep collects at most 10,000 matching lines in all.',
  })),
  chat: Type.Optional(Type.Boolean({ default: false, description: 'true: research — stream an answer as application/x-ndjson.' })),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Chat model id for research (GET /v2/models).' })),
  conversation_id: Type.Optional(Type.String({ format: 'uuid', description: 'Research: continue this conversation.' })),
}, { additionalProperties: false, $id: 'SearchRequest' });
export type SearchRequest = Static<typeof SearchRequest>;

export const Highlight = Type.Object({
  line: Type.Integer({ minimum: 1 }),
  start: Type.Integer({ minimum: 0, description: 'UTF-16 offset in the line where the match starts.' }),
  end: Type.Integer({ minimum: 0, description: 'Offset just past the match.' }),
});

export const Snippet = Type.Object({
  start_line: Type.Integer({ minimum: 1 }),
  text: Type.String({ description: 'The lines, joined by \\n.' }),
  highlights: Type.Array(Highlight),
});

export const SearchHit = Type.Object({
  type: StringEnum(['repo', 'file', 'code', 'function'] as const),
  repo_id: Uuid,
  repo_name: Type.String(),
  file_path: Nullable(Type.String()),
  score: Type.Number({ description: 'Relative to the best hit of the same kind (1).' }),
  start_line: Type.Optional(Type.Integer()),
  end_line: Type.Optional(Type.Integer()),
  language: Type.Optional(Nullable(Type.String())),
  snippet: Type.Optional(Snippet),
  name: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  signature: Type.Optional(Nullable(Type.String())),
  exported: Type.Optional(Type.Boolean()),
  matches: Type.Optional(Type.Integer({ description: 'Files and repositories: how many matching lines or chunks they gather.' })),
  doc: Type.Optional(Type.Object({
    depth: StringEnum(DOC_DEPTHS),
    markdown: Nullable(Type.String()),
    processing: Type.Boolean({ description: 'True while the documentation is still being generated.' }),
  })),
}, { $id: 'SearchHit' });
export type SearchHit = Static<typeof SearchHit>;

export const SearchData = Type.Object({
  results: Type.Array(SearchHit),
  total: Type.Integer({ minimum: 0, description: 'Hits found before paging, all kinds together (grep: every matching line, up to 10,000; a warning says when more matched).' }),
  totals: Type.Record(Type.String(), Type.Integer(), { description: 'Hits found per kind.' }),
  search: Type.Object({
    mode: Type.String(),
    scope: Type.String(),
    retriever: Type.Optional(Type.String({ description: 'semantic: hybrid (BM25 + vectors).' })),
    embedding: Type.Optional(Nullable(Type.Object({ model: Type.String(), dims: Type.Integer() }))),
    candidates: Type.Optional(Type.Object({ files: Type.Integer(), scanned: Type.Integer() }, { description: 'grep: files the index proposed and files scanned.' })),
    repo_ids: Type.Array(Uuid),
    timings: Type.Record(Type.String(), Type.Number(), { description: 'Milliseconds per phase, and totalMs.' }),
    warnings: Type.Array(Type.String()),
  }, { description: 'How the search ran.' }),
}, { $id: 'SearchData' });
export type SearchData = Static<typeof SearchData>;
