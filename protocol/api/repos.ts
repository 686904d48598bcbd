import { Type, type Static } from 'typebox';
import { Limit, Nullable, Offset, StringEnum, Uuid } from './common';

export const Repo = Type.Object({
  repo_id: Uuid,
  name: Type.String({ description: 'owner/name for GitHub repositories, the folder name for local ones.' }),
  url: Type.String({ description: 'The GitHub URL, or the absolute path of a local folder.' }),
  source: StringEnum(['git', 'local']),
  branch: Nullable(Type.String()),
  visibility: StringEnum(['private', 'public']),
  state: StringEnum(['queued', 'indexing', 'ready', 'failed', 'missing'], {
    description: 'queued → indexing → ready; failed when indexing failed; missing when the folder is gone.',
  }),
  updating: Type.Boolean({ description: 'True while indexing is queued or running.' }),
  files_total: Type.Integer(),
  files_indexed: Type.Integer(),
  error: Nullable(Type.String()),
  head_commit: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  last_updated: Nullable(Type.String({ format: 'date-time' }), { description: 'When indexing last completed.' }),
}, { $id: 'Repo', description: 'An indexed repository.' });
export type Repo = Static<typeof Repo>;

export const ListReposQuery = Type.Object({
  scope: StringEnum(['private', 'public'], { default: 'private', description: 'private: your repositories; public: the public catalog.' }),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Substring of the name or URL.' })),
  limit: Limit(100, 20),
  offset: Offset,
  order_by: StringEnum(['created_at', 'name', 'last_updated', 'url'], { default: 'created_at' }),
  order: StringEnum(['asc', 'desc'], { default: 'desc' }),
}, { additionalProperties: false });
export type ListReposQuery = Static<typeof ListReposQuery>;

export const PublicReposQuery = Type.Object({
  limit: Limit(500, 50),
  offset: Offset,
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Only repositories updated at or after this time.' })),
  file_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Include up to this many top files (by dependents) per repository.' })),
}, { additionalProperties: false });
export type PublicReposQuery = Static<typeof PublicReposQuery>;

export const PublicRepo = Type.Object({
  repo_id: Uuid,
  name: Type.String(),
  url: Type.String(),
  branch: Nullable(Type.String()),
  files_total: Type.Integer(),
  last_updated: Nullable(Type.String({ format: 'date-time' })),
  top_files: Type.Optional(Type.Array(Type.Object({ file_path: Type.String(), dependents: Type.Integer() }))),
});

export const IndexRequest = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'https://github.com/OWNER/REPO, a file:// URL, or an absolute local path.' }),
  branch: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._/][A-Za-z0-9._/-]*$', description: 'A branch name: letters, digits, . _ / - (not starting with -).' })),
  update: Type.Optional(Type.Boolean({ default: false, description: 'Refresh an existing index.' })),
}, { additionalProperties: false });
export type IndexRequest = Static<typeof IndexRequest>;

export const FileTreeEntry = Type.Object({
  path: Type.String(),
  size: Type.Integer(),
  language: Nullable(Type.String()),
});

export const IndexResult = Type.Object({
  repo: Repo,
  created: Type.Boolean({ description: 'False when the repository was already indexed.' }),
  queued: Type.Boolean({ description: 'True when indexing was queued by this call.' }),
  file_tree: Nullable(Type.Array(FileTreeEntry), { description: 'The files to index (first 1000), or null until a clone exists.' }),
  file_tree_total: Nullable(Type.Integer()),
});

export const StatusRequest = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'The URL or path passed to index/new.' }),
}, { additionalProperties: false });

export const RepoStatus = Type.Object({
  repo_id: Uuid,
  updating: Type.Boolean({ description: 'True while indexing is in progress.' }),
  status: Type.Boolean({ description: 'Whether the source is active (false when failed or missing).' }),
  name: Type.String(),
  last_updated: Nullable(Type.String({ format: 'date-time' })),
  state: Repo.properties.state,
  files_total: Type.Integer(),
  files_indexed: Type.Integer(),
  error: Nullable(Type.String()),
});
export type RepoStatus = Static<typeof RepoStatus>;

export const RepoIdParams = Type.Object({
  repo_id: Type.String({ minLength: 1, maxLength: 2048, description: 'A repository UUID, or its percent-encoded URL or path.' }),
});
