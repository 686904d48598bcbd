import type { Static } from 'typebox';
import type { RepoRecord } from '../types';
import { RateLimiter, type RateRule } from '../accounts/rate-limit';
import type {
  IndexRequest, IndexResult, ListReposQuery, PublicRepo, PublicReposQuery, Repo, RepoStatus, StatusRequest,
} from '../../../protocol/api/repos';
import type { Answer, CallContext, Caller } from './call';
import { metered, page } from './metering';
import type { EngineParts } from './parts';

export const toRepo = (r: RepoRecord): Repo => ({
  repo_id: r.id, name: r.name, url: r.url, source: r.source, branch: r.branch, visibility: r.visibility, state: r.state,
  updating: r.updating, files_total: r.filesTotal, files_indexed: r.filesDone, error: r.error, head_commit: r.headCommit,
  created_at: r.createdAt, last_updated: r.lastUpdated,
});

export const toStatus = (r: RepoRecord): RepoStatus => ({
  repo_id: r.id, updating: r.updating, status: r.active && r.state !== 'failed' && r.state !== 'missing', name: r.name,
  last_updated: r.lastUpdated, state: r.state, files_total: r.filesTotal, files_indexed: r.filesDone, error: r.error,
});

/** Anonymous callers of the public catalog, per client address (callers with a key are not limited). */
export const ANONYMOUS_CATALOG_LIMIT: RateRule = { max: 60, windowMs: 60_000 };

/** Listing, indexing and polling repositories. */
export class RepoOperations {
  private readonly anonymous = new RateLimiter();

  constructor(private readonly e: EngineParts) {}

  /** Your indexed repositories (1 credit; a listing, so no history row: clients poll it). */
  list(caller: Caller, q: ListReposQuery): Promise<Answer<Repo[]>> {
    return metered(this.e.accounts, caller, { operation: 'repos.list', cost: 1 }, async (meter) => {
      const { items, total } = await this.e.repos.list(caller, {
        scope: q.scope, search: q.search, limit: q.limit, offset: q.offset, orderBy: q.order_by, order: q.order,
      });
      return meter.answer(items.map(toRepo), { pagination: page(total, q.limit, q.offset) });
    });
  }

  /** The public catalog: free; anonymous callers get 60 requests a minute per client address. */
  listPublic(caller: Caller | null, q: PublicReposQuery, context: CallContext = {}): Promise<Answer<Static<typeof PublicRepo>[]>> {
    if (!caller) this.anonymous.hit([[`catalog:${context.client ?? 'unknown'}`, ANONYMOUS_CATALOG_LIMIT]]);
    return metered(this.e.accounts, caller, { operation: 'repos.public', cost: 0 }, async (meter) => {
      const { items, total } = await this.e.repos.listPublic(q.limit, q.offset, q.since);
      const data = await Promise.all(items.map(async (r) => ({
        repo_id: r.id, name: r.name, url: r.url, branch: r.branch, files_total: r.filesTotal, last_updated: r.lastUpdated,
        ...(q.file_count ? { top_files: await this.e.repos.topFiles(r.id, q.file_count) } : {}),
      })));
      return meter.answer(data, { pagination: page(total, q.limit, q.offset) });
    });
  }

  /** Queues indexing of a GitHub repository or a local folder (free, history `repos`). */
  index(caller: Caller, request: IndexRequest): Promise<Answer<Static<typeof IndexResult>>> {
    return metered(this.e.accounts, caller, { operation: 'repos.index', cost: 0, history: 'repos' }, async (meter) => {
      const outcome = await this.e.repos.index(caller, request);
      const message = outcome.created ? 'indexing queued'
        : outcome.queued ? 'refresh queued' : 'already indexed; pass update: true to refresh';
      return meter.answer({
        repo: toRepo(outcome.repo), created: outcome.created, queued: outcome.queued,
        file_tree: outcome.fileTree, file_tree_total: outcome.fileTreeTotal,
      }, { message, history: { query: request.url, repoIds: [outcome.repo.id], summary: message } });
    });
  }

  /** Indexing state of a repository by the URL or path it was registered under (1 credit; polling, so no history row). */
  status(caller: Caller, request: Static<typeof StatusRequest>): Promise<Answer<RepoStatus>> {
    return metered(this.e.accounts, caller, { operation: 'repos.status', cost: 1 }, async (meter) => {
      const repo = await this.e.repos.status(caller, request.url);
      return meter.answer(toStatus(repo));
    });
  }
}
