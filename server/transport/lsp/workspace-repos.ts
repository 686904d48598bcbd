import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Operations } from '../../engine/operations';
import type { RepoRecord } from '../../engine/types';

export interface RepoFile { repo: RepoRecord; relPath: string }

/** Converts between editor URIs and (repository, repository-relative path). Wire ↔ domain only. */
export class WorkspaceRepos {
  /** Repository ids of the open workspace folders, by folder path. */
  private readonly byFolder = new Map<string, string>();

  constructor(private readonly ops: Operations) {}

  add(folderPath: string, repoId: string): void {
    this.byFolder.set(path.resolve(folderPath), repoId);
  }

  remove(folderPath: string): string | undefined {
    const key = path.resolve(folderPath);
    const id = this.byFolder.get(key);
    this.byFolder.delete(key);
    return id;
  }

  ids(): string[] {
    return [...new Set(this.byFolder.values())];
  }

  repos(): RepoRecord[] {
    return this.ids().map((id) => this.ops.indexing.repo(id)).filter((r): r is RepoRecord => !!r);
  }

  /** The repository holding a file URI, the innermost one when folders nest. */
  locate(uri: string): RepoFile | null {
    const file = uriToPath(uri);
    if (!file) return null;
    let best: RepoFile | null = null;
    for (const repo of this.repos()) {
      const rel = path.relative(repo.rootPath, file);
      if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) continue;
      if (!best || repo.rootPath.length > best.repo.rootPath.length) best = { repo, relPath: rel.split(path.sep).join('/') };
    }
    return best;
  }

  uriOf(repo: RepoRecord, relPath: string): string {
    return pathToFileURL(path.join(repo.rootPath, relPath)).toString();
  }
}

export function uriToPath(uri: string): string | null {
  if (!uri.startsWith('file:')) return null;
  try {
    return fileURLToPath(uri);
  } catch {
    return null;
  }
}
