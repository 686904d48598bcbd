import type { ReposStore } from '../store/repos-store';
import type { RepoRecord } from '../types';

/**
 * Which repositories a caller may read: the ones they registered or were given (indexing the same
 * URL grants it), and every public one. Written once; resolving an id, a URL or a search scope
 * asks here, and a repository the caller may not read is "not found" to them.
 */
export function mayRead(repos: ReposStore, userId: string, repo: RepoRecord | undefined): repo is RepoRecord {
  return !!repo && (repo.visibility === 'public' || repos.hasAccess(userId, repo.id));
}
