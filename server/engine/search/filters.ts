import path from 'node:path';
import { compileGlob } from './safe-glob';
import { detectLanguage } from '../indexer/languages';
import { invalid } from '../errors';
import type { SearchFileRow, SearchStore } from '../store/search-store';
import type { Async } from '../store/surface';
import type { SearchFilters } from './types';

/**
 * Turns `filters` into the set of files a search may return, or null when nothing restricts files.
 * SQL answers what it can (lines, functions, dependencies, visibility); types and path globs are
 * matched here.
 */
export async function allowedFiles(
  store: Async<SearchStore>, repoIds: string[], filters: SearchFilters | undefined,
): Promise<Map<number, SearchFileRow> | null> {
  if (!restricts(filters)) return null;
  if (filters.minLines !== undefined && filters.maxLines !== undefined && filters.minLines > filters.maxLines) {
    throw invalid('filters.min_lines', 'must not be greater than filters.max_lines');
  }
  const rows = await store.files(repoIds, {
    dependencies: filters.dependencies, functionNames: filters.functionNames, hasFunctions: filters.hasFunctions,
    minLines: filters.minLines, maxLines: filters.maxLines, visibility: filters.visibility,
  });
  const typeTest = fileTypeTest(filters.fileTypes);
  const pathTest = pathGlobTest(filters.filePaths);
  const out = new Map<number, SearchFileRow>();
  for (const r of rows) if (typeTest(r) && pathTest(r.path)) out.set(r.id, r);
  return out;
}

/** `ts`, `.ts`, `*.ts` match the extension; a language name (`typescript`) matches the detected language. */
function fileTypeTest(types: string[] | undefined): (r: SearchFileRow) => boolean {
  if (!types?.length) return () => true;
  const wanted = new Set(types.map((t) => t.trim().toLowerCase().replace(/^\*?\./, '')));
  return (r) => {
    const base = r.path.slice(r.path.lastIndexOf('/') + 1).toLowerCase();
    const dot = base.lastIndexOf('.');
    return (dot > 0 && wanted.has(base.slice(dot + 1))) || (!!r.language && wanted.has(r.language));
  };
}

/**
 * Globs (picomatch syntax, dotfiles included); a glob-free entry also matches everything under that
 * folder. Matched by safe-glob, not a RegExp: a caller's glob must not be able to hang the server.
 */
function pathGlobTest(globs: string[] | undefined): (path: string) => boolean {
  if (!globs?.length) return () => true;
  const tests = globs.map((g, i) => {
    const glob = g.trim().replace(/^\.\//, '');
    if (!glob) throw invalid(`filters.file_paths[${i}]`, 'must not be empty');
    let matcher: (p: string) => boolean;
    try {
      matcher = compileGlob(glob);
    } catch (error) {
      throw invalid(`filters.file_paths[${i}]`, `is not a valid glob (${(error as Error).message})`);
    }
    const folder = glob.replace(/\/+$/, '');
    const plain = !/[*?[\]{}()!]/.test(glob);
    return (p: string) => matcher(p) || (plain && (p === folder || p.startsWith(`${folder}/`)));
  });
  return (p) => tests.some((t) => t(p));
}

const restricts = (filters: SearchFilters | undefined): filters is SearchFilters =>
  !!filters && Object.values(filters).some((v) => v !== undefined && !(Array.isArray(v) && v.length === 0));

/**
 * The files grep_code reads from disk although the index left them out (SearchStore.unindexedFiles),
 * as search rows with negative ids. The index knows nothing of their lines,
 * symbols or imports, so a filter on those excludes them; types and path globs apply as usual.
 */
export async function unindexedFiles(store: Async<SearchStore>, repoIds: string[], filters: SearchFilters | undefined): Promise<SearchFileRow[]> {
  if (restricts({ ...filters, fileTypes: undefined, filePaths: undefined })) return [];
  const typeTest = fileTypeTest(filters?.fileTypes);
  const pathTest = pathGlobTest(filters?.filePaths);
  return (await store.unindexedFiles(repoIds))
    .map((f): SearchFileRow => ({ id: -f.id, repoId: f.repoId, path: f.path, language: detectLanguage(path.posix.basename(f.path)), lines: 0, description: null, generated: false }))
    .filter((f) => typeTest(f) && pathTest(f.path));
}
