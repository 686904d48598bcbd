import path from 'node:path';
import { LoupeError, notFound } from '../errors';
import type { FilesStore, FileListQuery } from '../store/files-store';
import type { Async } from '../store/surface';
import type { FileRecord, RepoRecord } from '../types';
import { isUuid } from '../util/ids';

/**
 * Reading indexed files: listings, and one file by UUID or repository-relative path. A request-path
 * service: it reads only through the async store (SQLite's behind `asyncStore`, or PostgreSQL's).
 */
export class Files {
  constructor(private readonly store: Async<FilesStore>) {}

  list(repo: RepoRecord, q: Omit<FileListQuery, 'repoId'>): ReturnType<Async<FilesStore>['list']> {
    return this.store.list({ ...q, repoId: repo.id });
  }

  /**
   * Resolves a file id (UUID or URL-decoded path) inside a repository. Only the index is consulted,
   * so nothing outside the repository can be read; paths that try to leave it are refused outright.
   */
  async resolve(repo: RepoRecord, fileId: string): Promise<FileRecord> {
    if (isUuid(fileId)) {
      const byUid = await this.store.getByUid(repo.id, fileId.toLowerCase());
      if (byUid) return byUid;
    }
    const rel = normaliseRelPath(fileId, 'file_id');
    const file = await this.store.getByPath(repo.id, rel);
    if (!file) throw notFound(`file ${rel}`);
    return file;
  }

  content(file: FileRecord): Promise<string> {
    return this.store.content(file.id);
  }
}

/** A repository-relative POSIX path, or a 400 when it is absolute or climbs out with `..`. */
export function normaliseRelPath(input: string, field: string): string {
  const slashed = input.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:\//.test(slashed) || slashed.includes('\0')) {
    throw new LoupeError('VALIDATION_FAILED', `${field}: must be a path relative to the repository root`, { field });
  }
  const normal = path.posix.normalize(slashed).replace(/^\.\//, '');
  if (normal === '..' || normal.startsWith('../') || normal === '.' || normal === '') {
    throw new LoupeError('VALIDATION_FAILED', `${field}: must be a path inside the repository`, { field });
  }
  return normal.replace(/\/$/, '');
}
