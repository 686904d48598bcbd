import { Type, type Static } from 'typebox';
import { Limit, Nullable, Offset, StringEnum, Uuid } from './common';

export const FileItem = Type.Object({
  id: Uuid,
  file_name: Type.String(),
  file_path: Type.String({ description: 'Path relative to the repository root.' }),
  description: Nullable(Type.String(), { description: 'The file\'s own leading comment, when it has one.' }),
  dependencies: Type.Array(Type.String(), { description: 'Files (repository paths) and packages this file imports.' }),
  total_lines: Type.Integer(),
  language: Nullable(Type.String()),
  size: Type.Integer({ description: 'Bytes.' }),
  function_count: Type.Integer(),
  class_count: Type.Integer(),
  variable_count: Type.Integer(),
  symbol_count: Type.Integer(),
  indexed_at: Type.String({ format: 'date-time' }),
}, { $id: 'FileItem' });
export type FileItem = Static<typeof FileItem>;

export const ListFilesQuery = Type.Object({
  limit: Limit(100, 20),
  offset: Offset,
  order_by: StringEnum(['file_path', 'file_name', 'total_lines', 'size', 'language', 'indexed_at'], { default: 'file_path' }),
  order: StringEnum(['asc', 'desc'], { default: 'asc' }),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Substring of file_name or file_path.' })),
}, { additionalProperties: false });
export type ListFilesQuery = Static<typeof ListFilesQuery>;

/** One file's text as the index holds it (its chunks are contiguous and cover the whole file). */
export const FileContent = Type.Object({
  id: Uuid,
  repo_id: Uuid,
  file_path: Type.String({ description: 'Path relative to the repository root.' }),
  language: Nullable(Type.String()),
  total_lines: Type.Integer(),
  content: Type.String({ description: 'The file\'s text as indexed.' }),
}, { $id: 'FileContent' });
export type FileContent = Static<typeof FileContent>;
