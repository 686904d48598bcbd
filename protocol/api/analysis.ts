/**
 * Schemas of the analysis routes: blast radius, blueprint (and its deprecated readme alias), scope,
 * dependency map, code-review signals, test-coverage gaps, and per-file documentation.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { DOC_DEPTHS, Meta, Nullable, Offset, Pagination, StringEnum, Uuid } from './common';

const Str = Type.String();
const Int = Type.Integer();
const PathString = Type.String({ minLength: 1, maxLength: 1024 });

// ---------- radius ----------

export const RADIUS_INCLUDE = ['dependents', 'related_files', 'entry_points', 'call_edges', 'data_flows'] as const;

export const RadiusRequest = Type.Object({
  file: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'A target file path; `path#Symbol` narrows to one exported symbol.' })),
  files: Type.Optional(Type.Array(PathString, { maxItems: 200, description: 'Target file paths (or `path#Symbol`).' })),
  dependency: Type.Optional(Type.String({ minLength: 1, maxLength: 214, description: 'A package or import name.' })),
  dependencies: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 214 }), { maxItems: 100 })),
  pr: Type.Optional(Type.Integer({ minimum: 1, description: 'Pull request number; used only when no files or dependencies are given.' })),
  pull_request: Type.Optional(Type.Integer({ minimum: 1, description: 'Alias of pr.' })),
  pr_number: Type.Optional(Type.Integer({ minimum: 1, description: 'Alias of pr.' })),
  uncommitted: Type.Optional(Type.Boolean({ description: 'true: the targets are the files the working tree changes against HEAD (staged, unstaged, untracked); used only when no files, dependencies or pr are given.' })),
  include: Type.Optional(Type.Array(StringEnum(RADIUS_INCLUDE), { maxItems: 5, description: 'Parts to return; default all.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000, default: 100, description: 'Cap on dependents listed per target (totals stay exact).' })),
}, { additionalProperties: false });
export type RadiusRequest = Static<typeof RadiusRequest>;

const RadiusTarget = Type.Object({
  target: Str,
  kind: StringEnum(['file', 'symbol', 'dependency']),
  found: Type.Boolean(),
  reason: Type.Optional(Type.String({ description: 'Why a target was not found.' })),
  dependents_total: Int,
  direct_dependents: Int,
  type_only_dependents: Int,
  max_depth: Int,
  truncated: Type.Boolean({ description: 'True when dependents were cut at `limit`.' }),
  dependents: Type.Optional(Type.Array(Type.Object({
    file_path: Str,
    depth: Type.Integer({ minimum: 1, description: '1 = imports the target directly.' }),
    via: Type.Array(Str, { description: 'A shortest import chain from this file to the target, both included.' }),
    type_only: Type.Boolean({ description: 'True when only type-only imports reach the target.' }),
  }))),
  related_files: Type.Optional(Type.Array(Type.Object({ file_path: Str, co_changes: Int, ratio: Type.Number() }), { description: 'Files changed in the same commits (git history).' })),
  entry_points: Type.Optional(Type.Array(Type.Object({ file_path: Str, kind: Str, detail: Str, depth: Int }))),
  call_edges: Type.Optional(Type.Array(Type.Object({ from_file: Str, from_symbol: Nullable(Str), line: Int, to_symbol: Str, kind: Str }))),
  data_flows: Type.Optional(Type.Array(Type.Object({ symbol: Str, file_path: Str, line: Int, kind: Str, in: Nullable(Str) }))),
  call_graph_complete: Type.Optional(Type.Boolean({ description: 'False when call edges and data flows cover only the importers parsed within the time budget; the rest are parsed in the background and complete on a later call.' })),
});

export const RadiusResult = Type.Object({
  source: StringEnum(['files', 'dependencies', 'pull_request', 'working_tree']),
  pull_request: Type.Optional(Type.Object({ number: Int, source: Str, detail: Str, files: Type.Array(Str) })),
  working_tree: Type.Optional(Type.Object({ files: Type.Array(Str, { description: 'Changed against HEAD: staged, unstaged and untracked.' }) })),
  summary: Type.Object({
    targets: Int, found: Int, unknown: Type.Array(Str), total_dependents: Int, direct_dependents: Int,
    type_only_dependents: Int, max_depth: Int, entry_points: Int, tests: Int, files_in_repo: Int,
    risk: StringEnum(['none', 'low', 'medium', 'high']),
  }),
  targets: Type.Array(RadiusTarget),
  warnings: Type.Array(Str),
});

// ---------- blueprint ----------

export const BlueprintQuery = Type.Object({
  conventions_path_prefix: Type.Optional(Type.String({ maxLength: 1024, description: 'Measure conventions only under this path (PRO plan and above).' })),
}, { additionalProperties: false });

const DependencyItem = Type.Object({
  name: Str,
  version: Nullable(Str),
  type: Str,
  ecosystem: Str,
  manifest: Nullable(Str),
  files: Type.Integer({ description: 'Files that import it.' }),
});

export const Blueprint = Type.Object({
  documentation: Type.String({ description: 'Markdown overview.' }),
  data: Nullable(Type.String({ description: 'The README text.' })),
  dependencies: Type.Array(DependencyItem),
  symbols: Type.Array(Type.Object({ name: Str, kind: Str, file_path: Str, line: Int, used_by: Int, signature: Nullable(Str) })),
  conventions: Nullable(Type.Object({
    path_prefix: Nullable(Str),
    files: Int,
    naming: Type.Record(Type.String(), Type.Unknown()),
    formatting: Type.Record(Type.String(), Type.Unknown()),
    layout: Type.Record(Type.String(), Type.Unknown()),
  })),
  notes: Type.Array(Str, { description: 'Why a part is empty (plan, missing data).' }),
});

// ---------- scope ----------

export const DEPENDENCY_TYPES = ['package', 'builtin', 'dev', 'peer', 'local'] as const;

export const ScopeRequest = Type.Object({
  include: Type.Optional(Type.Array(StringEnum(['dependencies', 'functions', 'variables']), { maxItems: 3 })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'Filter by name (substring); with expand, the exact name to drill into.' })),
  type: Type.Optional(StringEnum(DEPENDENCY_TYPES, { description: 'Dependency type to keep.' })),
  expand: Type.Optional(StringEnum(['files', 'functions'], { description: 'Drill into `name`: the files, or the functions, that use it. Requires name.' })),
  compare_repos: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { maxItems: 25, description: 'Up to 25 repository ids: which dependencies each shares or lacks.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  offset: Type.Optional(Offset),
  order: Type.Optional(StringEnum(['usage', 'name'], { default: 'usage' })),
}, { additionalProperties: false });
export type ScopeRequest = Static<typeof ScopeRequest>;

const ScopeSymbol = Type.Object({ name: Str, kind: Str, files: Int, usage: Int, defined_in: Type.Array(Str) });
const KindPage = <T extends TSchema>(item: T) => Type.Object({ items: Type.Array(item), pagination: Pagination });

export const ScopeResult = Type.Object({
  repo: Type.Object({ repo_id: Uuid, name: Str }),
  summary: Type.Object({ dependencies: Int, functions: Int, variables: Int, files: Int }),
  scope: Type.Object({
    dependencies: Type.Optional(KindPage(Type.Object({ name: Str, type: Str, version: Nullable(Str), files: Int, usage: Int }))),
    functions: Type.Optional(KindPage(ScopeSymbol)),
    variables: Type.Optional(KindPage(ScopeSymbol)),
  }),
  expanded: Type.Optional(Type.Object({
    name: Str,
    expand: Str,
    files: Type.Optional(Type.Array(Type.Object({ file_path: Str, role: Str, lines: Type.Array(Int) }))),
    functions: Type.Optional(Type.Array(Type.Object({ file_path: Str, function: Nullable(Str), uses: Int, lines: Type.Array(Int) }))),
  })),
  comparison: Type.Optional(Type.Array(Type.Object({
    repo_id: Str, name: Nullable(Str), found: Type.Boolean(), reason: Type.Optional(Str),
    shared: Type.Array(Str), only_in_source: Type.Array(Str), only_in_other: Type.Array(Str),
  }))),
});

// ---------- map ----------

export const MAP_TYPES = ['package', 'import', 'export', 'env'] as const;

export const MapQuery = Type.Object({
  dependency: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'Only dependencies whose name contains this.' })),
  type: Type.Optional(StringEnum(MAP_TYPES, { description: 'Kind of dependency; all kinds when absent.' })),
  compare_repos: Type.Optional(Type.String({ maxLength: 2048, description: 'Comma-separated repository UUIDs, at most 10.' })),
  include_public_index: Type.Optional(Type.Boolean({ default: false, description: 'Also look in public repositories you have not indexed.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 25 })),
  files_per_repo: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
}, { additionalProperties: false });
export type MapQuery = Static<typeof MapQuery>;

export const MapResult = Type.Object({
  source_repo: Type.Object({ repo_id: Uuid, name: Str, url: Str }),
  scope: Type.Object({
    types: Type.Array(Str),
    repos_compared: Int,
    compare_repos: Type.Array(Type.Object({ repo_id: Str, name: Nullable(Str), found: Type.Boolean(), reason: Type.Optional(Str) })),
    include_public_index: Type.Boolean(),
  }),
  dependencies: Type.Array(Type.Object({
    name: Str,
    type: Str,
    source_files: Type.Array(Str),
    repos: Type.Array(Type.Object({ repo_id: Uuid, name: Str, file_count: Int, files: Type.Array(Str) })),
  })),
});

// ---------- review ----------

export const ReviewRequest = Type.Object({
  files: Type.Optional(Type.Array(PathString, { maxItems: 200, description: 'Changed files to review.' })),
  pr: Type.Optional(Type.Integer({ minimum: 1, description: 'Pull request number, when no files are given.' })),
  base: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._/^~][A-Za-z0-9._/^~-]*$', description: 'Revision to compare public APIs against (default HEAD); not starting with -.' })),
}, { additionalProperties: false });
export type ReviewRequest = Static<typeof ReviewRequest>;

export const ReviewResult = Type.Object({
  source: StringEnum(['files', 'pull_request']),
  pull_request: Type.Optional(Type.Object({ number: Int, source: Str, detail: Str })),
  summary: Type.Object({ files: Int, reviewed: Int, risk: StringEnum(['none', 'low', 'medium', 'high']), max_score: Int, untested: Int, api_changes: Int }),
  files: Type.Array(Type.Object({
    file_path: Str,
    found: Type.Boolean(),
    reason: Type.Optional(Str),
    risk: StringEnum(['none', 'low', 'medium', 'high']),
    score: Type.Integer({ minimum: 0, maximum: 100 }),
    signals: Type.Object({
      dependents: Int, direct_dependents: Int, entry_points: Int, churn: Nullable(Int), complexity: Int, lines: Int,
      tested: Type.Boolean(), tests: Type.Array(Str),
      public_api: Nullable(Type.Object({ added: Type.Array(Str), removed: Type.Array(Str), base: Str })),
    }),
    reasons: Type.Array(Str),
  })),
});

// ---------- coverage gaps ----------

export const CoverageGapsQuery = Type.Object({
  path_prefix: Type.Optional(Type.String({ maxLength: 1024, description: 'Only source files under this path.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  offset: Type.Optional(Offset),
}, { additionalProperties: false });

export const CoverageGapsResult = Type.Object({
  summary: Type.Object({
    source_files: Int, test_files: Int, untested_files: Int, exported_functions: Int, untested_functions: Int,
    file_coverage: Type.Number({ description: 'Share of source files some test reaches (0-1).' }),
  }),
  lcov: Nullable(Type.Object({ path: Str, files: Int, lines_found: Int, lines_hit: Int, line_rate: Type.Number() })),
  untested_files: Type.Array(Type.Object({ file_path: Str, lines: Int, exported_functions: Int, dependents: Int, line_rate: Nullable(Type.Number()) })),
  untested_functions: Type.Array(Type.Object({ file_path: Str, name: Str, line: Int, reason: Str })),
  pagination: Pagination,
});

// ---------- file documentation ----------

export const FileDocParams = Type.Object({
  repo_id: Type.String({ minLength: 1, maxLength: 2048, description: 'A repository UUID, or its percent-encoded URL or path.' }),
  file_id: Type.String({ minLength: 1, maxLength: 2048, description: 'A file UUID, or its percent-encoded path.' }),
});

export const FileDocQuery = Type.Object({
  // No schema default: an absent `fields` means the deepest depth the plan allows, an explicit one is checked against the plan.
  fields: Type.Optional(StringEnum(DOC_DEPTHS, { description: 'Depth: basic, summary or full. Absent: full, or the deepest depth your plan allows.' })),
}, { additionalProperties: false });

export const FileDoc = Type.Object({
  id: Uuid,
  file_path: Str,
  file_name: Str,
  language: Nullable(Str),
  total_lines: Int,
  documentation: Nullable(Type.String({ description: 'Markdown; null while processing.' })),
  generator: Nullable(Type.String({ description: '`static` or the model that wrote the narrative.' })),
  generated_at: Nullable(Str),
});

export const FileDocMeta = Type.Object({
  ...Meta.properties,
  processing: Type.Boolean({ description: 'True while the documentation is being generated (not charged).' }),
  fields_applied: StringEnum(DOC_DEPTHS, { description: 'The depth actually returned (the plan may lower it).' }),
}, { additionalProperties: true });

export const FileDocEnvelope = Type.Object({
  status: Type.Literal('success'),
  message: Type.Optional(Str),
  data: FileDoc,
  meta: FileDocMeta,
});
