/**
 * Parsed files on their way from a parse worker to the index writer as bytes: serialized once in the
 * parse worker, moved (not copied) from the indexer's thread to the writer's, and read only there. The
 * indexer's thread gets a summary of each file (ParseSummary), enough for its counts and name lookups.
 */
import v8 from 'node:v8';
import type { ParsedFile } from '../types';
import type { ParseResult } from './parse-file';
import { namesFromText, parsedText, providedNames } from './name-references';

/** What the indexer's thread needs of a parse result: a parsed file's path, language and provided names, not its contents. */
export type ParseSummary =
  | { kind: 'parsed'; path: string; language: string | null; provided: string[] }
  | Exclude<ParseResult, { kind: 'parsed' }>;

/** A batch's parsed files, `v8.serialize`d as one ArrayBuffer of its own (movable to another thread as is). */
export interface ParsedBatch { files: ArrayBuffer; count: number }

/** The names other files may find this one by (name-references.ts), read while the file is whole. */
export const providedNow = (file: ParsedFile): string[] =>
  providedNames(file.language, file.path, namesFromText(file.language, file.path) ? parsedText(file) : null);

/** A parse worker's results as summaries and one batch of bytes. */
export function summarize(results: ParseResult[]): { results: ParseSummary[]; batch: ParsedBatch } {
  const files: ParsedFile[] = [];
  const summaries = results.map((r): ParseSummary => {
    if (r.kind !== 'parsed') return r;
    files.push(r.file);
    return { kind: 'parsed', path: r.file.path, language: r.file.language, provided: providedNow(r.file) };
  });
  const bytes = v8.serialize(files);
  // An ArrayBuffer of its own (a Buffer may share its pool's), so that it can be moved on.
  const own = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return { results: summaries, batch: { files: own, count: files.length } };
}

/** The parsed files of batches, in order (the index writer's side). */
export function parsedFiles(batches: ParsedBatch[]): ParsedFile[] {
  const out: ParsedFile[] = [];
  for (const b of batches) for (const f of v8.deserialize(new Uint8Array(b.files)) as ParsedFile[]) out.push(f);
  return out;
}
