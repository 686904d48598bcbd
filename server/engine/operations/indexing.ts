import type { IndexQueueEvents } from '../repos/index-queue';
import type { ChangeOutcome } from '../repos/file-changes';
import type { RepoRecord } from '../types';
import type { EngineParts } from './parts';

/**
 * Indexing on behalf of the process that hosts the engine (the CLI, the language server): the
 * folders it serves, the background queue, and files that changed under it. The HTTP API indexes
 * through `repos.index` instead, with a caller's plan and allowed roots.
 *
 * These run where the local indexer runs, so they keep the synchronous SQLite stores (the rule in
 * repos/repositories.ts): no API request reaches them, and a team server's API node has none of them.
 */
export class IndexingOperations {
  constructor(private readonly e: EngineParts) {}

  /**
   * Registers a folder given on the command line or opened in the editor for the machine's owner,
   * and queues its index (a known folder only catches up by size, mtime and hash).
   */
  registerFolder(ownerId: string, folder: string): RepoRecord {
    return this.e.repos.registerLocalFolder(ownerId, folder);
  }

  /** True when this folder has been indexed to the end before (the editor's first-index notice). */
  isIndexed(folder: string): boolean {
    return this.e.reposStore.all().some((r) => r.rootPath === folder && r.state === 'ready');
  }

  /** Starts the index writer's thread now, ahead of the runs a start is about to queue (the CLI's catch-up). */
  warmWriter(): void {
    this.e.indexer.warm();
  }

  /** Re-queues repositories whose indexing was interrupted (a crash, a kill, a pause). */
  resumeInterrupted(): RepoRecord[] {
    return this.e.repos.resumeInterrupted();
  }

  repo(repoId: string): RepoRecord | undefined {
    return this.e.reposStore.get(repoId);
  }

  /**
   * Files of a repository changed (the CLI's watcher, the editor's saves, edits and file events):
   * re-index them now, or queue the repository while a full run is going or a folder came or went.
   * `contents` carries unsaved editor text by repository-relative path.
   */
  applyChanges(repoId: string, paths: string[], contents?: Map<string, string>): Promise<ChangeOutcome> {
    return this.e.fileChanges.apply(repoId, paths, contents);
  }

  /** Starts no index run until `until` settles (runs queued meanwhile wait); a running one goes on. */
  holdRuns(until: Promise<unknown>): void {
    this.e.queue.hold(until);
  }

  /** Queues a full incremental run of each repository and resumes the queue. */
  reindex(repoIds: string[]): void {
    for (const id of repoIds) this.e.queue.enqueue(id);
    this.e.queue.resume();
  }

  pause(): void {
    this.e.queue.pause();
  }

  resume(): void {
    this.e.queue.resume();
  }

  get paused(): boolean {
    return this.e.queue.isPaused;
  }

  /** Resolves when nothing is queued or running. */
  idle(): Promise<void> {
    return this.e.queue.idle();
  }

  /** Progress, completion and failure of background runs. */
  on<K extends keyof IndexQueueEvents>(event: K, listener: (...args: IndexQueueEvents[K]) => void): () => void {
    this.e.queue.on(event, listener as never);
    return () => this.e.queue.off(event, listener as never);
  }
}
