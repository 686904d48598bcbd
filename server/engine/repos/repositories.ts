import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log';
import type { Caller } from '../accounts/accounts';
import { planOf } from '../accounts/plans';
import { LoupeError, notFound } from '../errors';
import type { ReposStore, RepoListQuery } from '../store/repos-store';
import type { FilesStore } from '../store/files-store';
import type { Async } from '../store/surface';
import type { RepoRecord } from '../types';
import { isUuid, newId } from '../util/ids';
import { walk, isInside, type WalkOptions } from '../indexer/walk';
import { detectLanguage } from '../indexer/languages';
import { git, headOf } from './git';
import type { IndexQueue } from './index-queue';
import { parseRepoLocation, type RepoLocation } from './repo-url';
import type { RepoAccess } from './access';
import type { GithubTokens } from '../accounts/github-tokens';
import { realPathOf, refuseDataDir, relationToDataDir } from './data-dir-guard';

export interface RepositoriesConfig {
  /** The data dir's real path: never indexed, nor anything inside or around it. */
  dataDir: string;
  /** Local folders callers may index (and everything below them). */
  allowedRoots: string[];
  /** Who may read and index what (the access rule). */
  access: RepoAccess;
  /** GitHub tokens: the caller's own (the owner's is GITHUB_TOKEN), and the API that says what a token may read. */
  github: GithubTokens;
  walkOptions: WalkOptions;
  /** Refuses one more repository over the caller's plan cap (403 naming the plan needed); plans are configuration. */
  repoCap?: (caller: Caller, count: number) => void;
}

export interface IndexRequest {
  url: string;
  branch?: string;
  update?: boolean;
}

export interface FileTreeEntry { path: string; size: number; language: string | null }

export interface IndexOutcome {
  repo: RepoRecord;
  created: boolean;
  queued: boolean;
  fileTree: FileTreeEntry[] | null;
  fileTreeTotal: number | null;
}

const FILE_TREE_LIMIT = 1000;

/** The index as the request path reads and registers it: SQLite's stores behind their async surface, or PostgreSQL's. */
export interface RepositoryReads {
  repos: Async<ReposStore>;
  files: Async<FilesStore>;
}

/** The local indexer's own synchronous SQLite stores (start-up, the CLI's and the editor's folders, clone jobs). */
export interface LocalIndexStores {
  repos: ReposStore;
  files: FilesStore;
}

/** What a registration needs of the indexing queue: the local IndexQueue here (a team server's worker queue elsewhere). */
export type RepositoryQueue = Pick<IndexQueue, 'enqueue' | 'unrecordedFailure'>;

/**
 * Registering, cloning, refreshing and reading repositories on behalf of a caller.
 *
 * Which store a method uses follows one rule: what an API caller's request runs (index, status,
 * resolve, list, listPublic, fileCount, topFiles, and the presence check and repository cap they
 * make) reads and writes only through `reads` (`Async<…Store>`), so it answers alike over SQLite and
 * over the team server's PostgreSQL, whose API nodes have no SQLite. What the local process runs
 * for itself — start-up (dropDataDirRepositories, resumeInterrupted), the folders the CLI and the
 * editor register (registerLocalFolder), and the clone/fetch steps the local IndexQueue runs before
 * its indexer — uses `local`, the synchronous SQLite stores the indexer writes: those run only where
 * the SQLite index lives.
 */
export class Repositories {
  private readonly repos: Async<ReposStore>;
  private readonly files: Async<FilesStore>;

  constructor(
    reads: RepositoryReads,
    private readonly local: LocalIndexStores,
    private readonly queue: RepositoryQueue,
    private readonly config: RepositoriesConfig,
    private readonly log: Logger,
  ) {
    this.repos = reads.repos;
    this.files = reads.files;
  }

  /** Queues indexing of a GitHub repository or a local folder (`POST /v2/repos/index/new`). */
  async index(caller: Caller, request: IndexRequest): Promise<IndexOutcome> {
    const location = parseRepoLocation(request.url);
    // A leading '-' would reach git as an option (git parses options after positionals too).
    if (request.branch !== undefined && !/^[A-Za-z0-9._/][A-Za-z0-9._/-]{0,199}$/.test(request.branch)) {
      throw new LoupeError('VALIDATION_FAILED', 'branch: must be a branch name (letters, digits, . _ / -, not starting with -)', { field: 'branch' });
    }
    // Whether the caller may read a local path is settled before anything about the path is told
    // (its existence included), and before the repository count, which would tell that it is registered.
    if (location.kind === 'local') this.checkLocalFolder(location, caller);
    let existing = await this.repos.getByUrl(location.url);
    // A private repository someone else added is theirs until this caller's own token proves
    // GitHub lets them read it; until then it is answered as a repository that does not exist.
    let probed: 'public' | 'private' | null = null;
    if (existing && existing.source === 'git' && existing.visibility === 'private' && !await this.repos.hasAccess(caller.userId, existing.id)) {
      probed = await this.probeRemote(location as Extract<RepoLocation, { kind: 'github' }>, caller);
      existing = await this.repos.getByUrl(location.url);
    }
    if (!existing || !await this.repos.hasAccess(caller.userId, existing.id)) await this.checkRepoLimit(caller);
    if (existing) {
      await this.repos.grantAccess(caller.userId, existing.id);
      const wantsUpdate = request.update === true || existing.state === 'failed' || existing.state === 'missing';
      if (wantsUpdate) {
        if (request.branch && request.branch !== existing.branch) await this.repos.setBranch(existing.id, request.branch);
        await this.repos.setState(existing.id, 'queued');
        const token = existing.visibility === 'private' ? await this.config.github.tokenForAsync(caller) : undefined;
        this.queue.enqueue(existing.id, existing.source === 'git' ? (r) => this.fetchClone(r, token) : undefined);
      }
      return { repo: (await this.repos.get(existing.id))!, created: false, queued: wantsUpdate, ...this.tree(existing) };
    }
    const id = newId();
    if (location.kind === 'github') {
      const visibility = probed ?? await this.probeRemote(location, caller);
      const token = visibility === 'private' ? await this.config.github.tokenForAsync(caller) : undefined;
      await this.repos.insert({
        id, url: location.url, name: location.name, rootPath: path.join(this.config.dataDir, 'repos', id),
        source: 'git', branch: request.branch ?? null, visibility,
      });
      await this.repos.grantAccess(caller.userId, id);
      this.queue.enqueue(id, (r) => this.clone(r, location, token));
    } else {
      const head = await headOf(location.path);
      await this.repos.insert({
        id, url: location.url, name: location.name, rootPath: location.path, source: 'local',
        branch: request.branch ?? head.branch, visibility: 'private',
      });
      await this.repos.grantAccess(caller.userId, id);
      this.queue.enqueue(id);
    }
    const repo = (await this.repos.get(id))!;
    return { repo, created: true, queued: true, ...this.tree(repo) };
  }

  /** Registers a folder given on the command line or opened in the editor, and queues its index. */
  registerLocalFolder(userId: string, folder: string): RepoRecord {
    const location = parseRepoLocation(path.resolve(folder), 'folder');
    if (location.kind !== 'local') throw new LoupeError('INTERNAL', `${folder} did not parse as a local folder`);
    this.checkLocalFolder(location, null);
    const local = this.local.repos;
    let repo = local.getByUrl(location.url);
    if (!repo) {
      local.insert({
        id: newId(), url: location.url, name: location.name, rootPath: location.path, source: 'local', branch: null, visibility: 'private',
      });
      repo = local.getByUrl(location.url)!;
    }
    local.grantAccess(userId, repo.id);
    this.queue.enqueue(repo.id);
    // Best effort: the engine may have closed (its database with it) before git answers. After the run's
    // first steps: spawning git holds this thread (61–307 ms in a restart's profile at load 16–24), and
    // the catch-up run's walk, which a restart waits for, is posted to the writer's thread first.
    setImmediate(() => void headOf(location.path).then((h) => h.branch && local.setBranch(repo.id, h.branch)).catch(() => {}));
    return repo;
  }

  /**
   * Forgets local repositories that are, lie inside or contain the data dir (registered before such
   * folders were refused, or a data dir moved into one): their files and search rows go with them.
   */
  dropDataDirRepositories(): RepoRecord[] {
    const { repos, files } = this.local;
    const dropped = repos.all().filter((r) => r.source === 'local' && relationToDataDir(realPathOf(r.rootPath), this.config.dataDir));
    for (const repo of dropped) {
      files.deletePaths(repo.id, files.paths(repo.id));
      repos.delete(repo.id);
    }
    return dropped;
  }

  /** Re-queues repositories whose indexing was interrupted (a crash, a kill, a pause). */
  resumeInterrupted(): RepoRecord[] {
    const interrupted = this.local.repos.all().filter((r) => r.updating);
    for (const repo of interrupted) {
      const needsClone = repo.source === 'git' && !fs.existsSync(path.join(repo.rootPath, '.git'));
      // The token is looked up when the clone runs (awaited: a linked one may live on PostgreSQL).
      this.queue.enqueue(repo.id, needsClone ? async (r) => {
        const token = r.visibility === 'private' ? await this.tokenOfAReader(r) : undefined;
        return this.clone(r, parseRepoLocation(r.url) as Extract<RepoLocation, { kind: 'github' }>, token);
      } : undefined);
    }
    return interrupted;
  }

  /** `POST /v2/repos/status`: the repository registered under this URL or path, if the caller may see it. */
  async status(caller: Caller, url: string): Promise<RepoRecord> {
    const location = parseRepoLocation(url);
    const repo = await this.repos.getByUrl(location.url);
    if (!repo || !await this.repos.hasAccess(caller.userId, repo.id) || !await this.config.access.mayRead(caller.userId, repo)) throw notFound('repository');
    return this.refreshPresence(repo);
  }

  /** Finds a repository by UUID or (percent-decoded) URL among those the caller may read. */
  async resolve(caller: Caller, idOrUrl: string): Promise<RepoRecord> {
    let repo: RepoRecord | undefined;
    if (isUuid(idOrUrl)) repo = await this.repos.get(idOrUrl.toLowerCase());
    else {
      let url: string | undefined;
      try {
        url = parseRepoLocation(idOrUrl, 'repo_id').url;
      } catch {
        url = undefined;
      }
      repo = url === undefined ? undefined : await this.repos.getByUrl(url);
    }
    if (!repo || !await this.config.access.mayRead(caller.userId, repo)) throw notFound('repository');
    return repo;
  }

  async list(caller: Caller, q: Omit<RepoListQuery, 'userId'>): Promise<{ items: RepoRecord[]; total: number }> {
    const page = await this.repos.list({ ...q, userId: caller.userId });
    return { ...page, items: page.items.map((r) => this.withUnrecordedFailure(r)) };
  }

  listPublic(limit: number, offset: number, since?: string): Promise<{ items: RepoRecord[]; total: number }> {
    return this.repos.listPublic(limit, offset, since);
  }

  fileCount(repoId: string): Promise<number> {
    return this.files.count(repoId);
  }

  /** The repository's most imported files (the public catalog's `file_count`). */
  topFiles(repoId: string, limit: number): ReturnType<Async<FilesStore>['mostImported']> {
    return this.files.mostImported(repoId, limit);
  }

  /** A failure the full or read-only disk would not let the queue record is still reported. */
  private withUnrecordedFailure(repo: RepoRecord): RepoRecord {
    const failure = this.queue.unrecordedFailure(repo.id);
    return failure ? { ...repo, state: 'failed', updating: false, error: failure } : repo;
  }

  private async refreshPresence(repo: RepoRecord): Promise<RepoRecord> {
    if (this.queue.unrecordedFailure(repo.id)) return this.withUnrecordedFailure(repo);
    const present = fs.existsSync(repo.rootPath);
    if (!present && repo.source === 'local' && repo.state !== 'missing' && !repo.updating) {
      await this.repos.setState(repo.id, 'missing', { error: `the folder ${repo.rootPath} no longer exists or cannot be read` });
      return (await this.repos.get(repo.id))!;
    }
    return repo;
  }

  private async checkRepoLimit(caller: Caller): Promise<void> {
    const count = await this.repos.countForUser(caller.userId);
    if (this.config.repoCap) return this.config.repoCap(caller, count);
    const plan = planOf(caller.plan);
    if (count >= plan.maxRepos) {
      throw new LoupeError('REPO_LIMIT_REACHED', `the ${plan.name} plan allows ${plan.maxRepos} indexed repositories; remove one or move to a larger plan`);
    }
  }

  /**
   * In this order, so that a refusal tells nothing about the path: inside the allowed roots (as a
   * real path, resolved through its deepest existing folder) and, for a user other than the owner,
   * inside a folder the owner shares with them (one answer for both, whether or not the path exists
   * or is indexed); apart from the data dir; and only then an existing folder. `caller` null: the
   * command line or the editor, which may name any folder.
   */
  private checkLocalFolder(location: Extract<RepoLocation, { kind: 'local' }>, caller: Caller | null): void {
    const enforceRoots = caller !== null;
    const field = enforceRoots ? 'url' : 'folder';
    if (caller) {
      const real = realPathOf(location.path);
      const inRoots = this.config.allowedRoots.some((root) => isInside(root, real));
      if (!caller.isOwner && (!inRoots || !this.config.access.mayIndexLocal(caller.userId, real))) {
        throw new LoupeError('PATH_NOT_ALLOWED', `url: ${location.path} is not a folder you may index: local folders are the server owner's, who may share one with you (sharedFolders in accounts.json)`, { field: 'url' });
      }
      if (!inRoots) {
        throw new LoupeError('PATH_NOT_ALLOWED', `url: ${location.path} is outside the folders this server may read (start it with --allow DIR to add one)`, { field: 'url' });
      }
    }
    refuseDataDir(location.path, this.config.dataDir, { field, forOwner: !enforceRoots });
    let real: string;
    try {
      real = fs.realpathSync(location.path);
    } catch {
      throw new LoupeError('NOT_A_REPOSITORY', `${field}: the folder ${location.path} does not exist`, { field });
    }
    if (!fs.statSync(real).isDirectory()) {
      throw new LoupeError('NOT_A_REPOSITORY', `${field}: ${location.path} is not a folder`, { field });
    }
  }

  /**
   * Checks the remote answers before anything is recorded: public when git reaches it without a
   * token; else private when GitHub lets the caller's own token read it (the owner's: GITHUB_TOKEN).
   * A repository that does not exist and one the caller may not read get the same answer.
   */
  private async probeRemote(location: Extract<RepoLocation, { kind: 'github' }>, caller: Caller): Promise<'public' | 'private'> {
    try {
      await git(['ls-remote', '--heads', '--end-of-options', location.cloneUrl], { timeoutMs: 30_000 });
      return 'public';
    } catch (error) {
      this.log.debug(`ls-remote ${location.url} without a token: ${firstLine(error)}`);
    }
    const token = await this.config.github.tokenForAsync(caller);
    if (token) {
      const [owner, name] = location.name.split('/');
      const seen = await this.config.github.probe(owner, name, token);
      if (seen.readable) return seen.private ? 'private' : 'public';
    }
    throw new LoupeError('NOT_A_REPOSITORY', `url: ${location.url} is not a reachable git repository, or it is private and your GitHub token cannot read it (link yours with PUT /v2/keys/github-token)`, { field: 'url' });
  }

  /** For a clone with nobody asking (a restart): the token of a user who added the repository. */
  private async tokenOfAReader(repo: RepoRecord): Promise<string | undefined> {
    for (const userId of this.local.repos.readersOf(repo.id)) {
      const token = await this.config.github.tokenForAsync({ userId, isOwner: this.config.access.isOwner(userId) });
      if (token) return token;
    }
    return undefined;
  }

  private async clone(repo: RepoRecord, location: Extract<RepoLocation, { kind: 'github' }>, token: string | undefined): Promise<void> {
    const target = repo.rootPath;
    const partial = `${target}.partial`;
    fs.rmSync(partial, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const args = ['clone', '--quiet', '--depth', '500', '--no-tags'];
    if (repo.branch) args.push(`--branch=${repo.branch}`, '--single-branch');
    args.push('--end-of-options', location.cloneUrl, partial);
    this.log.info(`cloning ${location.url}`);
    await git(args, { token: repo.visibility === 'private' ? token : undefined, timeoutMs: 30 * 60_000 });
    fs.rmSync(target, { recursive: true, force: true });
    fs.renameSync(partial, target); // a clone appears whole or not at all
    const head = await headOf(target);
    this.local.repos.setBranch(repo.id, head.branch);
    this.local.repos.setState(repo.id, 'indexing', { headCommit: head.commit });
  }

  private async fetchClone(repo: RepoRecord, callerToken: string | undefined): Promise<void> {
    if (!fs.existsSync(path.join(repo.rootPath, '.git'))) {
      return this.clone(repo, parseRepoLocation(repo.url) as Extract<RepoLocation, { kind: 'github' }>, callerToken);
    }
    const token = repo.visibility === 'private' ? callerToken : undefined;
    const ref = repo.branch ?? 'HEAD';
    await git(['fetch', '--quiet', '--depth', '500', '--end-of-options', 'origin', ref], { cwd: repo.rootPath, token, timeoutMs: 30 * 60_000 });
    await git(['reset', '--quiet', '--hard', 'FETCH_HEAD'], { cwd: repo.rootPath });
    const head = await headOf(repo.rootPath);
    this.local.repos.setState(repo.id, 'indexing', { headCommit: head.commit });
  }

  private tree(repo: RepoRecord): { fileTree: FileTreeEntry[] | null; fileTreeTotal: number | null } {
    if (!fs.existsSync(repo.rootPath)) return { fileTree: null, fileTreeTotal: null };
    const entries = walk(repo.rootPath, { ...this.config.walkOptions, excludeDirs: [this.config.dataDir] });
    entries.sort((a, b) => a.relPath.localeCompare(b.relPath));
    return {
      fileTreeTotal: entries.length,
      fileTree: entries.slice(0, FILE_TREE_LIMIT).map((e) => ({ path: e.relPath, size: e.size, language: detectLanguage(path.basename(e.relPath)) })),
    };
  }
}

const firstLine = (error: unknown) => String((error as Error).message ?? error).split('\n')[0].slice(0, 200);
