import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log';
import type { Indexer, IndexRunResult } from '../indexer/indexer';
import { isIgnoreFile } from '../indexer/walk';
import type { FilesStore } from '../store/files-store';
import type { ReposStore } from '../store/repos-store';
import type { IndexQueue } from './index-queue';

/** What became of a batch of changed paths. */
export type ChangeOutcome =
  /** The repository is not (or no longer) registered. */
  | { kind: 'unknown' }
  /** A full run is going, a folder came or went, or ignore rules changed: the repository is queued for an incremental run instead. */
  | { kind: 'queued' }
  /** The files were re-indexed now; text, symbols and edges are written, derived indexes follow. */
  | { kind: 'updated'; result: IndexRunResult };

/**
 * The one policy for "these files changed", used by the CLI's folder watcher and by the editor's
 * saves, edits and file events: while a full run is going (or a folder came or went) the
 * repository is queued, since the incremental walk finds exactly what changed; otherwise the paths
 * are re-indexed at once. Updates run one at a time: the in-thread parser is not re-entrant.
 */
export class FileChanges {
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly repos: ReposStore,
    private readonly files: FilesStore,
    private readonly queue: IndexQueue,
    private readonly indexer: Indexer,
    private readonly log: Logger,
  ) {}

  /**
   * `paths` are repository-relative; `contents` carries unsaved editor text by path (the file is
   * indexed from it instead of the disk).
   */
  apply(repoId: string, paths: string[], contents: Map<string, string> = new Map()): Promise<ChangeOutcome> {
    const next = this.running.then(() => this.applyNow(repoId, paths, contents));
    this.running = next.catch(() => {});
    return next;
  }

  private async applyNow(repoId: string, paths: string[], contents: Map<string, string>): Promise<ChangeOutcome> {
    const repo = this.repos.get(repoId);
    if (!repo) return { kind: 'unknown' };
    if (this.queue.current === repoId || (repo.updating && repo.state !== 'ready')) {
      this.queue.enqueue(repoId); // a full run is under way; it will see these files on its next pass
      return { kind: 'queued' };
    }
    if (paths.some((rel) => this.isFolderEvent(repo.rootPath, repoId, rel))) {
      this.queue.enqueue(repoId); // a folder came or went: the incremental walk finds exactly what changed
      return { kind: 'queued' };
    }
    if (paths.some(isIgnoreFile)) {
      // Ignore rules changed: files below come into the index or leave it, though none of them changed.
      this.queue.enqueue(repoId);
      return { kind: 'queued' };
    }
    const result = await this.indexer.updatePaths(repo, paths, contents);
    const changed = result.added + result.changed + result.removed;
    if (changed) this.log.debug(`re-indexed ${changed} file(s) of ${repo.name} in ${result.durationMs} ms`);
    return { kind: 'updated', result };
  }

  /** A path that is a folder now, or was one (gone and never indexed as a file). */
  private isFolderEvent(root: string, repoId: string, relPath: string): boolean {
    try {
      return fs.statSync(path.join(root, relPath)).isDirectory();
    } catch {
      return !this.files.getByPath(repoId, relPath) && this.files.paths(repoId).some((p) => p.startsWith(`${relPath}/`));
    }
  }
}
