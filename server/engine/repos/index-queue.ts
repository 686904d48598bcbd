import { EventEmitter } from 'node:events';
import type { Logger } from '../log';
import type { Indexer, IndexRunProgress, IndexRunResult } from '../indexer/indexer';
import type { ReposStore } from '../store/repos-store';
import type { RepoRecord } from '../types';
import { storageError } from '../store/storage-errors';

export interface IndexQueueEvents {
  progress: [IndexRunProgress];
  finished: [{ repoId: string; result: IndexRunResult }];
  failed: [{ repoId: string; error: Error }];
}

/** A step that must run before indexing (a clone, a fetch); it may throw to fail the job. */
export type PrepareStep = (repo: RepoRecord) => Promise<void>;

/**
 * Runs indexing jobs one at a time in the background. A repository is queued at most once; asking
 * again while it waits is a no-op, and asking while it runs schedules one more pass.
 */
export class IndexQueue extends EventEmitter<IndexQueueEvents> {
  private readonly waiting = new Map<string, PrepareStep | undefined>();
  private running: string | null = null;
  private rerun = new Set<string>();
  private paused = false;
  /** Holds on starting runs (see `hold`): runs wait while any is pending. */
  private holds = 0;
  private controller: AbortController | null = null;
  private idleResolvers: (() => void)[] = [];
  /** Failures the database refused to record (disk full, read-only), by repository. */
  private readonly unrecorded = new Map<string, string>();

  constructor(private readonly indexer: Indexer, private readonly repos: ReposStore, private readonly log: Logger) {
    super();
  }

  enqueue(repoId: string, prepare?: PrepareStep): void {
    if (this.running === repoId && !prepare) {
      this.rerun.add(repoId);
      return;
    }
    if (!this.waiting.has(repoId) || prepare) this.waiting.set(repoId, prepare);
    queueMicrotask(() => void this.pump());
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** The failure of the last run when it could not be written to the database. */
  unrecordedFailure(repoId: string): string | undefined {
    return this.unrecorded.get(repoId);
  }

  get current(): string | null {
    return this.running;
  }

  pause(): void {
    this.paused = true;
    this.controller?.abort();
  }

  resume(): void {
    this.paused = false;
    void this.pump();
  }

  /**
   * Starts no run until `until` settles (queued repositories wait; a running one goes on). The editor
   * holds a warm start's catch-up runs until its first lenses are answered from the persisted index.
   */
  hold(until: Promise<unknown>): void {
    this.holds++;
    void until.catch(() => {}).finally(() => {
      this.holds--;
      void this.pump();
    });
  }

  /** Resolves when nothing is queued or running. */
  idle(): Promise<void> {
    if (!this.running && this.waiting.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleResolvers.push(resolve));
  }

  private async pump(): Promise<void> {
    if (this.running || this.paused || this.holds > 0) return;
    const next = this.waiting.keys().next();
    if (next.done) {
      const resolvers = this.idleResolvers.splice(0);
      resolvers.forEach((r) => r());
      return;
    }
    const repoId = next.value;
    const prepare = this.waiting.get(repoId);
    this.waiting.delete(repoId);
    this.running = repoId;
    this.unrecorded.delete(repoId);
    this.controller = new AbortController();
    try {
      const repo = this.repos.get(repoId);
      if (repo) {
        if (prepare) await prepare(repo);
        const result = await this.indexer.indexRepository(this.repos.get(repoId)!, (p) => this.emit('progress', p), this.controller.signal);
        this.emit('finished', { repoId, result });
      }
    } catch (error) {
      if ((error as Error).name === 'AbortError') {
        this.waiting.set(repoId, undefined); // paused: resume later from what is persisted
      } else {
        const failure = storageError(error) ?? (error as Error);
        this.log.error(`indexing ${repoId} failed: ${failure.message}`);
        try {
          this.repos.setState(repoId, 'failed', { error: failure.message });
        } catch (recordError) {
          // A full or read-only disk may refuse this write too; the repository then stays marked
          // as interrupted and resumes at the next start; until then its status reports the failure from memory.
          this.unrecorded.set(repoId, failure.message);
          this.log.error(`could not record the failure of ${repoId}: ${(recordError as Error).message}`);
        }
        this.emit('failed', { repoId, error: failure });
      }
    } finally {
      this.running = null;
      this.controller = null;
      if (this.rerun.delete(repoId)) this.waiting.set(repoId, undefined);
      void this.pump();
    }
  }
}
