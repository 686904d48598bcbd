import type { ReposStore } from '../store/repos-store';
import type { Async } from '../store/surface';
import type { RepoRecord } from '../types';
import { isInside } from '../indexer/walk';
import { realPathOf } from './data-dir-guard';

/**
 * A local folder the owner shares (accounts.json `sharedFolders`): with the users of these addresses, or "*" for every
 * user. An address counts once its user entered a code mailed to it (a password sign-up proves nothing).
 */
export interface SharedFolder {
  path: string;
  users: string[];
}

/** Who a user is, as far as access goes. */
export interface AccessPeople {
  isOwner(userId: string): boolean;
  email(userId: string): string | null;
}

/**
 * The access rule, written once: who may read which repository. Resolving an id, a URL and a
 * search's scope all ask here, and a repository a caller may not read is "not found" to them.
 *
 * - A local folder belongs to the machine's owner. Another user reads it (and may index it) only
 *   while it lies inside a folder the owner shares with them (`sharedFolders` in accounts.json); a
 *   share removed from the file takes the folder away at the next start.
 * - A public GitHub repository: everyone.
 * - A private GitHub repository: the users who added it, each having proved with their own GitHub
 *   token (the owner: the server's GITHUB_TOKEN) that GitHub lets them read it.
 */
export class RepoAccess {
  private readonly shares: { root: string; users: Set<string> }[];

  constructor(private readonly repos: Pick<Async<ReposStore>, 'hasAccess'>, private readonly people: AccessPeople, shares: SharedFolder[] = []) {
    this.shares = shares.map((s) => ({ root: realPathOf(s.path), users: new Set(s.users.map((u) => u.trim().toLowerCase())) }));
  }

  async mayRead(userId: string, repo: RepoRecord | undefined): Promise<boolean> {
    if (!repo) return false;
    if (repo.source === 'local') {
      if (this.people.isOwner(userId)) return true;
      return this.sharedWith(userId, repo.rootPath) && await this.repos.hasAccess(userId, repo.id);
    }
    return repo.visibility === 'public' || await this.repos.hasAccess(userId, repo.id);
  }

  isOwner(userId: string): boolean {
    return this.people.isOwner(userId);
  }

  /** Whether the user may index this local folder (a real path): the owner any, others only inside a folder shared with them. */
  mayIndexLocal(userId: string, realPath: string): boolean {
    return this.people.isOwner(userId) || this.sharedWith(userId, realPath);
  }

  private sharedWith(userId: string, folder: string): boolean {
    if (!this.shares.length) return false;
    const email = this.people.email(userId)?.toLowerCase();
    const real = realPathOf(folder);
    return this.shares.some((s) => (s.users.has('*') || (!!email && s.users.has(email))) && isInside(s.root, real));
  }
}
