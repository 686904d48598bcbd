/**
 * A team server API node's indexing queue: what `Repositories` hands a registration to
 * (`RepositoryQueue`), here a graphile-worker job (`enqueueIndexing`) that an index worker
 * (`npm run worker`, team/index-worker.ts) takes; the API node itself indexes nothing.
 *
 * A prepare step (the local queue's clone or fetch) is not run here: the worker clones a git
 * repository into its own work dir. A job that could not be enqueued (the database went away) is
 * recorded as the repository's failure when the database lets it, and kept in memory otherwise, so
 * `POST /v2/repos/status` on this node still tells it.
 */
import type { WorkerUtils } from 'graphile-worker';
import { openWorkerUtils } from './worker-utils';
import type { Logger } from '../log';
import type { RepositoryQueue } from '../repos/repositories';
import type { ReposStore } from '../store/repos-store';
import type { Async } from '../store/surface';
import { enqueueIndexing } from './index-worker';

/** What the queue writes of a repository: its state (queued; failed when the job could not be queued). */
type QueueRepos = Pick<Async<ReposStore>, 'setState'>;

export class WorkerQueue implements RepositoryQueue {
  private readonly unrecorded = new Map<string, string>();
  private readonly pending = new Set<Promise<void>>();

  private constructor(
    private readonly utils: WorkerUtils,
    private readonly closeUtils: () => Promise<void>,
    private readonly repos: QueueRepos,
    private readonly log: Logger,
  ) {}

  /** Connects to the queue's database (postgres://…) and installs graphile-worker's schema if missing. */
  static async open(url: string, repos: QueueRepos, log: Logger): Promise<WorkerQueue> {
    const { utils, close } = await openWorkerUtils(url);
    try {
      await utils.migrate();
    } catch (error) {
      await close();
      throw error;
    }
    return new WorkerQueue(utils, close, repos, log);
  }

  enqueue(repoId: string): void {
    this.unrecorded.delete(repoId);
    const job = enqueueIndexing(this.utils, this.repos, repoId).catch(async (error: Error) => {
      const message = `could not queue the indexing job: ${error.message}`;
      this.log.warn(`repository ${repoId}: ${message}`);
      try {
        await this.repos.setState(repoId, 'failed', { error: message });
      } catch {
        this.unrecorded.set(repoId, message);
      }
    });
    this.pending.add(job);
    void job.then(() => this.pending.delete(job));
  }

  unrecordedFailure(repoId: string): string | undefined {
    return this.unrecorded.get(repoId);
  }

  /** Waits for the jobs being enqueued, then releases the connection. */
  async close(): Promise<void> {
    await Promise.all(this.pending);
    await this.closeUtils();
  }
}
