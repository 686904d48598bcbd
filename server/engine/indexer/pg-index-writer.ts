import path from 'node:path';
import type { SkippedFile } from '../store/files-store';
import type { PgFilesStore } from '../store/pg/files-store';
import type { PgReposStore } from '../store/pg/repos-store';
import type { PgConnection } from '../store/pg/sql';
import type { ParsedFile } from '../types';
import type { IndexWriter } from './index-writer';
import {
  editPaths, nextSliceFiles, refreshNameEdges, relinkImports, splitSkipped,
  type EditOutcome, type NameChanges, type Progress, type Scan, type WriteOptions,
} from './index-writes';
import { FileParser } from './parse-file';
import { namesFromText } from './name-references';
import { detectLanguage } from './languages';
import { walk } from './walk';

/**
 * A write transaction's target length on PostgreSQL. Every statement is a round trip and a commit
 * waits for the server's WAL flush, so slices are longer than SQLite's 8–20 ms; each still commits
 * the run's progress (`files_done`) with its files, so a killed worker's job resumes after the last one.
 */
const PG_SLICE_MS = 150;

/**
 * The index writer of the team server (IndexWriter over the PostgreSQL stores, store/pg/): what
 * IndexWrites does on SQLite, with the same backend-independent logic (index-writes.ts's shared
 * functions), awaited. It runs in the index worker process (server/team/worker.ts), whose event
 * loop answers nothing else, so it writes on the calling thread.
 */
export class PgIndexWriter implements IndexWriter {
  private readonly parsers = new Map<string, FileParser>();
  /** C# files' indexed text read at scan time: the Indexer reads it synchronously (IndexerFiles). */
  private readonly csharpText = new Map<number, string>();

  constructor(
    private readonly stores: { repos: PgReposStore; files: PgFilesStore },
    private readonly db: PgConnection,
    private readonly options: WriteOptions,
    /** A stopping worker's signal: no further slice is written once it fired (the job is retried and resumes). */
    private readonly signal?: AbortSignal,
    private readonly sliceMs = PG_SLICE_MS,
  ) {}

  /** What the Indexer reads of the index on its own thread (IndexerFiles): answered from the scan. */
  readonly indexerFiles = {
    content: (fileId: number): string => this.csharpText.get(fileId) ?? '',
  };

  async scan(repoId: string, root: string): Promise<Scan> {
    const entries = walk(root, this.options);
    const known = await this.stores.files.fingerprints(repoId);
    const skipped = await this.stores.files.skipped(repoId);
    this.csharpText.clear();
    for (const [p, fp] of known) {
      if (namesFromText(detectLanguage(path.basename(p)), p)) this.csharpText.set(fp.id, await this.stores.files.content(fp.id));
    }
    return { entries, known: [...known], skipped: [...skipped] };
  }

  async writeFiles(repoId: string, files: ParsedFile[], progress: Progress, onCommitted: (n: number) => void): Promise<void> {
    let done = progress.done;
    for (let i = 0; i < files.length;) {
      if (this.signal?.aborted) throw new DOMException('indexing was cancelled', 'AbortError');
      const slice = files.slice(i, i + this.sliceFiles);
      const t0 = performance.now();
      done += slice.length;
      const at = done;
      await this.db.transaction(async () => {
        await this.stores.files.writeBatch(repoId, slice);
        await this.stores.repos.setProgress(repoId, at, progress.total);
      });
      this.sliceFiles = nextSliceFiles(performance.now() - t0, slice.length, this.sliceMs);
      i += slice.length;
      onCommitted(slice.length);
    }
  }

  private sliceFiles = 16;

  async stamp(repoId: string, touch: { path: string; mtimeMs: number; size: number }[], skip: SkippedFile[], progress: Progress): Promise<void> {
    await this.db.transaction(async () => {
      if (touch.length) await this.stores.files.touch(repoId, touch);
      if (skip.length) await this.recordSkipped(repoId, skip);
      await this.stores.repos.setProgress(repoId, progress.done + touch.length + skip.length, progress.total);
    });
  }

  async deletePaths(repoId: string, paths: string[]): Promise<void> {
    await this.stores.files.deletePaths(repoId, paths);
  }

  async setProgress(repoId: string, progress: Progress): Promise<void> {
    await this.stores.repos.setProgress(repoId, progress.done, progress.total);
  }

  private async recordSkipped(repoId: string, files: SkippedFile[]): Promise<void> {
    const { forget, keep } = splitSkipped(files);
    if (forget.length) await this.stores.files.deletePaths(repoId, forget);
    if (keep.length) await this.stores.files.recordSkipped(repoId, keep);
  }

  async relink(repoId: string, root: string, languages: readonly string[] = [], parsed: readonly string[] = []): Promise<void> {
    await relinkImports(this.stores.files, this.parser(root), repoId, root, languages, parsed);
  }

  async refreshNames(repoId: string, root: string, names: NameChanges, skip: string[]): Promise<void> {
    await refreshNameEdges(this.stores.files, this.parser(root), repoId, names, skip);
  }

  edit(repo: { id: string; rootPath: string }, relPaths: string[], contents: Map<string, string>): Promise<EditOutcome> {
    return editPaths({
      files: this.stores.files, repos: this.stores.repos, options: this.options, parser: (root) => this.parser(root),
      recordSkipped: (id, skip) => this.recordSkipped(id, skip), relink: (id, root, languages) => this.relink(id, root, languages),
    }, repo, relPaths, contents);
  }

  /** Lets the parsers go (a TypeScript compiler each, once they resolved a module). */
  async release(): Promise<void> {
    this.parsers.clear();
  }

  private parser(root: string): FileParser {
    let parser = this.parsers.get(root);
    if (!parser) this.parsers.set(root, (parser = new FileParser(root, { maxFileBytes: this.options.maxFileBytes })));
    return parser;
  }
}
