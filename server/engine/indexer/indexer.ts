import type { Logger } from '../log';
import type { Db } from '../store/db';
import { TrigramBacklog, type FilesStore, type SkippedFile } from '../store/files-store';
import type { ReposStore } from '../store/repos-store';
import type { RepoRecord } from '../types';
import type { DerivedIndex } from './derived-index';
import type { ParseJob, ParseOptions } from './parse-file';
import { parsedFiles, type ParsedBatch, type ParseSummary } from './parsed-batch';
import { ParsePool } from './parse-pool';
import { detectLanguage } from './languages';
import type { WalkOptions } from './walk';
import { ChangedNames, namesFromText, providedNames, providesNames } from './name-references';
import { IndexWrites, nameChanges, type IndexRunResult, type Progress } from './index-writes';
import { LocalIndexWriter, WorkerIndexWriter, type IndexWriter } from './index-writer';
import fs from 'node:fs';
import path from 'node:path';
import { LoupeError } from '../errors';
import { boundNativeHeap, collectHeap, releaseNativeHeap } from '../util/heap';
import { languagesResolvedBy } from './resolution-config';

export type { IndexRunResult } from './index-writes';

export interface IndexerOptions extends ParseOptions, WalkOptions {
  /** Writes in a worker thread on a connection of its own (the default when the index is a file); false writes on this thread. */
  writerThread?: boolean;
}

/** The repository state the indexer sets itself: SQLite's store, or an awaited one (PostgreSQL's). */
export type IndexerRepos = Pick<ReposStore, 'setState'> | { setState(...args: Parameters<ReposStore['setState']>): Promise<void> };
/** The indexed text the indexer reads itself (a C# file's namespaces before it changes); synchronous. */
export type IndexerFiles = Pick<FilesStore, 'content'>;

export const DEFAULT_INDEXER_OPTIONS: IndexerOptions = { maxFileBytes: 1024 * 1024 };

export interface IndexRunProgress {
  repoId: string;
  phase: 'scanning' | 'parsing' | 'linking' | 'derived' | 'done';
  done: number;
  total: number;
  /** Files per second over the run so far. */
  rate: number;
}

/** A run that parsed at least this many files gives its heap back when it ends (collectHeap). */
const RELEASE_AFTER_FILES = 500;
/** Files parsed before they are sent to the writer (which commits them in slices). */
const BATCH_FILES = 256;
const JOBS_PER_MESSAGE = 16;
/** A run with at least this many files to parse fills the words index after each batch of files (migration 016). */
const DEFER_INDEX_FILES = 256;

/**
 * Brings a repository's index in line with its folder. Only new, changed and removed files are
 * touched; every slice is committed on its own, so a killed run loses at most the slice in flight
 * and the next run picks up from what is persisted. Files are parsed in the parse workers and
 * written by the index writer (a worker thread with its own connection, when the index is a file):
 * this thread only passes results along and reports progress.
 */
export class Indexer {
  private readonly pool = new ParsePool();
  private readonly derived: DerivedIndex[] = [];
  private derivedChain: Promise<void> = Promise.resolve();
  private readonly closing = new AbortController();
  private readonly writer: IndexWriter;

  constructor(
    private readonly repos: IndexerRepos,
    private readonly files: IndexerFiles,
    private readonly log: Logger,
    private readonly options: IndexerOptions = DEFAULT_INDEXER_OPTIONS,
    /** The index's connection: writes then run in a worker thread on a connection of their own to its file. */
    db?: Db,
    /** Another backend's writer (PgIndexWriter); `repos` and `files` are then only asked for state and C# text. */
    writer?: IndexWriter,
  ) {
    const writeOptions = { maxFileBytes: options.maxFileBytes, ignoreGlobs: options.ignoreGlobs, excludeDirs: options.excludeDirs };
    this.writer = writer ?? (db && !db.memory && options.writerThread !== false
      ? new WorkerIndexWriter(db, writeOptions)
      : new LocalIndexWriter(new IndexWrites(repos as ReposStore, files as FilesStore, writeOptions, undefined, db ? new TrigramBacklog(db) : undefined)));
  }

  /** Starts the writer's thread ahead of a run (a restart's catch-up: its start is then off the critical path). */
  warm(): void {
    this.writer.warm?.();
  }

  addDerivedIndex(index: DerivedIndex): void {
    this.derived.push(index);
    index.useWriter?.(this.writer);
  }

  async indexRepository(repo: RepoRecord, onProgress: (p: IndexRunProgress) => void = () => {}, signal?: AbortSignal): Promise<IndexRunResult> {
    const started = Date.now();
    const root = repo.rootPath;
    assertReadableFolder(root);
    await this.repos.setState(repo.id, 'indexing');
    onProgress({ repoId: repo.id, phase: 'scanning', done: 0, total: 0, rate: 0 });
    let parsed = 0;
    try {
      return await this.run(repo, onProgress, started, signal, (n) => { parsed += n; });
    } finally {
      // The writer holds a connection, parsers and (after a relink) a TypeScript compiler: let go
      // once the run is written; an edit starts it again.
      await this.writer.release();
      // What a large run built (parse results in flight, the walk, the vectors' batches) is garbage
      // now: collect it (incrementally: a request waits for no full collection) and give the C
      // allocator's arenas back (SQLite's cache, buffers passed between threads).
      if (parsed >= RELEASE_AFTER_FILES) {
        await collectHeap();
        await releaseNativeHeap();
      }
    }
  }

  private async run(repo: RepoRecord, onProgress: (p: IndexRunProgress) => void, started: number, signal: AbortSignal | undefined, onParsed: (n: number) => void): Promise<IndexRunResult> {
    const root = repo.rootPath;
    // The walk and the index's fingerprints are read in the writer's thread (seconds on a large tree).
    const scan = await this.writer.scan(repo.id, root);
    if (scan.folders) this.log.debug(`scanned ${root}: ${scan.folders.listed} folder(s) listed, ${scan.folders.trusted} unchanged since the last walk`);
    const entries = scan.entries;
    const known = new Map(scan.known);
    const skipped = new Map(scan.skipped);
    const seen = new Set(entries.map((e) => e.relPath));
    const removed = [...known.keys()].filter((p) => !seen.has(p));
    const forgotten = [...removed, ...[...skipped.keys()].filter((p) => !seen.has(p))];
    const names = new ChangedNames();
    for (const p of removed) names.note(detectLanguage(path.basename(p)), this.providedBefore(p, known.get(p)?.id), [], p);
    if (forgotten.length) await this.writer.deletePaths(repo.id, forgotten);

    const jobs: ParseJob[] = [];
    // Files the writer found unchanged are counted in the scan, not listed (see Scan).
    let stillSkipped = scan.stillSkipped ?? 0;
    for (const e of entries) {
      const fp = known.get(e.relPath) ?? skipped.get(e.relPath);
      if (fp && fp.size === e.size && fp.mtimeMs === e.mtimeMs) {
        if (!known.has(e.relPath)) stillSkipped++;
        continue;
      }
      jobs.push({ relPath: e.relPath, size: e.size, mtimeMs: e.mtimeMs, knownHash: known.get(e.relPath)?.hash });
    }
    const total = entries.length + (scan.unchanged ?? 0) + (scan.stillSkipped ?? 0);
    onParsed(jobs.length);
    let done = total - jobs.length;
    // Files whose size and mtime match the index are unchanged without being read; the hash check
    // adds the ones that were touched but not edited.
    const result: IndexRunResult = {
      added: 0, changed: 0, removed: removed.length, unchanged: total - jobs.length - stillSkipped, skipped: stillSkipped, durationMs: 0,
    };
    await this.writer.setProgress(repo.id, { done, total });
    const rate = () => (done - (total - jobs.length)) / Math.max(0.001, (Date.now() - started) / 1000);
    onProgress({ repoId: repo.id, phase: 'parsing', done, total, rate: 0 });

    if (jobs.length) {
      this.pool.reset(root);
      // A run that parses gives back what it frees (boundNativeHeap, then releaseNativeHeap at its end);
      // set here, not at start, so that a no-change restart does not load koffi for it.
      boundNativeHeap();
    }
    // A large run's words index rows are added in bulk after each batch of files (a fraction of one insert per chunk).
    if (jobs.length >= DEFER_INDEX_FILES) await this.writer.deferWordsIndex?.();
    const parseOptions: ParseOptions = { maxFileBytes: this.options.maxFileBytes };
    // Parsed files stay the parse workers' bytes here: moved on to the writer, read there.
    let pendingWrite: ParsedBatch[] = [];
    let pendingFiles = 0;
    let pendingTouch: { path: string; mtimeMs: number; size: number }[] = [];
    let pendingSkip: SkippedFile[] = [];
    // The writer moved files_done with the commit; this thread only reports it.
    const committed = (n: number) => {
      done += n;
      onProgress({ repoId: repo.id, phase: 'parsing', done, total, rate: rate() });
    };
    // Writes go one after another (lanes wait for theirs: a slow disk holds parsing back).
    let writing: Promise<void> = Promise.resolve();
    const flush = (): Promise<void> => {
      const [write, touch, skip] = [pendingWrite, pendingTouch, pendingSkip];
      pendingWrite = []; pendingFiles = 0; pendingTouch = []; pendingSkip = [];
      writing = writing.then(async () => {
        if (touch.length || skip.length) {
          await this.writer.stamp(repo.id, touch, skip, { done, total });
          committed(touch.length + skip.length);
        }
        if (write.length) await this.writeParsed(repo.id, write, { done, total }, committed);
      });
      return writing;
    };
    const parsed = new Set<string>();
    const accept = (results: ParseSummary[], batch: ParsedBatch) => {
      if (batch.count) { pendingWrite.push(batch); pendingFiles += batch.count; }
      for (const r of results) {
        if (r.kind === 'parsed') {
          if (known.has(r.path)) result.changed++; else result.added++;
          parsed.add(r.path);
          names.note(r.language, this.providedBefore(r.path, known.get(r.path)?.id), r.provided, r.path);
        } else if (r.kind === 'unchanged') {
          result.unchanged++;
          pendingTouch.push({ path: r.relPath, mtimeMs: r.mtimeMs, size: r.size });
        } else {
          result.skipped++;
          names.note(detectLanguage(path.basename(r.relPath)), this.providedBefore(r.relPath, known.get(r.relPath)?.id), [], r.relPath);
          pendingSkip.push({ path: r.relPath, size: r.size, mtimeMs: r.mtimeMs, reason: r.reason });
        }
      }
      return pendingFiles + pendingTouch.length + pendingSkip.length >= BATCH_FILES ? flush() : undefined;
    };

    const batches: ParseJob[][] = [];
    for (let i = 0; i < jobs.length; i += JOBS_PER_MESSAGE) batches.push(jobs.slice(i, i + JOBS_PER_MESSAGE));
    let next = 0;
    let failed = false;
    const lanes = Array.from({ length: this.pool.slots }, async () => {
      while (next < batches.length) {
        // Once a write failed (disk full, read-only), the other lanes stop too instead of
        // parsing the rest of the repository for nothing.
        if (signal?.aborted || failed) return;
        const batch = batches[next++];
        const { results, batch: files } = await this.pool.parseSerialized(root, parseOptions, batch);
        if (failed) return;
        try {
          await accept(results, files);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    });
    try {
      await Promise.all(lanes);
    } finally {
      // Each parse worker holds a TypeScript compiler (~100 MB). Edits are parsed by the writer, so
      // the workers are let go once the run has parsed everything, before vectors are trained.
      if (jobs.length) await this.pool.close();
    }
    await flush();
    if (signal?.aborted) {
      await this.repos.setState(repo.id, 'queued');
      throw new DOMException('indexing was cancelled', 'AbortError');
    }
    // The derived indexes may begin what needs only the chunks (training the corpus model) beside what follows.
    if (jobs.length) {
      for (const index of this.derived) {
        await index.prepare?.(repo.id, signal ?? this.closing.signal).catch((error: Error) => this.log.warn(`index ${index.name} could not begin early:`, error));
      }
    }
    // Before name lookups, which read the trigram index; also a backlog a killed run left.
    await this.writer.fillTrigram?.();

    // A changed tsconfig, package.json, go.mod… may move imports of the files this run did not parse (a cold
    // run parsed every file with the configs as they are now: its skipped files have no imports).
    const resolvedBy = result.unchanged > 0 ? languagesResolvedBy([...parsed, ...removed]) : [];
    if (result.added || result.removed || resolvedBy.length) {
      onProgress({ repoId: repo.id, phase: 'linking', done, total, rate: rate() });
      await this.writer.relink(repo.id, root, resolvedBy, [...parsed]);
    }
    // Files parsed in this run saw every file on disk; the others may name what was added or removed.
    if (!names.empty) await this.writer.refreshNames(repo.id, root, nameChanges(names), [...parsed]);
    // A run that wrote lets the writer go before the derived phase (relinking and name lookups load a
    // TypeScript compiler there). One that changed nothing keeps it for the derived indexes' counts: a
    // second thread's start and connection would be most of a no-change restart's own work.
    if (jobs.length || forgotten.length) await this.writer.release();
    await this.runDerived(repo.id, onProgress, signal);
    await this.repos.setState(repo.id, 'ready');
    result.durationMs = Date.now() - started;
    onProgress({ repoId: repo.id, phase: 'done', done: total, total, rate: rate() });
    return result;
  }

  /** Parsed files to the writer as the parse workers' bytes (read in its thread), or read here for a writer that takes objects only. */
  private writeParsed(repoId: string, batches: ParsedBatch[], progress: Progress, committed: (n: number) => void): Promise<void> {
    if (this.writer.writeSerialized) return this.writer.writeSerialized(repoId, batches, progress, committed);
    return this.writer.writeFiles(repoId, parsedFiles(batches), progress, committed);
  }

  /**
   * Re-indexes the given files right away (a save, an edit, a watcher event), in the writer's thread.
   * `contents` carries unsaved editor text by path.
   */
  async updatePaths(repo: RepoRecord, relPaths: string[], contents: Map<string, string> = new Map()): Promise<IndexRunResult> {
    // An unreadable folder makes every file look deleted: refuse rather than empty the index.
    assertReadableFolder(repo.rootPath);
    const { result, changed } = await this.writer.edit(repo, relPaths, contents);
    // The edit is in the index now (text, symbols, edges); vectors and docs catch up behind it, so
    // an edit is reflected in milliseconds whatever the size of the repository.
    if (changed) this.scheduleDerived(repo.id);
    return result;
  }

  /** Resolves once the derived indexes have caught up with every edit so far. */
  derivedIdle(): Promise<void> {
    return this.derivedChain;
  }

  private scheduleDerived(repoId: string): void {
    this.derivedChain = this.derivedChain.then(() => this.runDerived(repoId, () => {}, this.closing.signal));
  }

  /** Names an indexed file provides to name lookups (Java, C#, Ruby, PHP), read from the index before it changes. */
  private providedBefore(relPath: string, fileId: number | undefined): string[] {
    if (fileId === undefined) return [];
    const language = detectLanguage(path.basename(relPath));
    if (!providesNames(language, relPath)) return [];
    return providedNames(language, relPath, namesFromText(language, relPath) ? this.files.content(fileId) : null);
  }

  private async runDerived(repoId: string, onProgress: (p: IndexRunProgress) => void, signal?: AbortSignal): Promise<void> {
    const controller = signal ?? new AbortController().signal;
    for (const index of this.derived) {
      try {
        for await (const p of index.update(repoId, controller)) {
          onProgress({ repoId, phase: 'derived', done: p.done, total: p.total, rate: 0 });
        }
      } catch (error) {
        this.log.warn(`index ${index.name} failed for ${repoId}:`, error as Error);
      }
    }
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.derivedChain;
    await this.pool.close();
    await this.writer.release();
  }
}

/**
 * The repository folder must exist and be listable. A folder that became unreadable would walk as
 * empty and every indexed file would look deleted, so it fails the run instead and keeps the index.
 */
function assertReadableFolder(root: string): void {
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) {
    throw new LoupeError('NOT_A_REPOSITORY', `the folder ${root} does not exist or is not a folder`);
  }
  try {
    fs.accessSync(root, fs.constants.R_OK | fs.constants.X_OK);
    fs.readdirSync(root);
  } catch (error) {
    throw new LoupeError('NOT_A_REPOSITORY', `the folder ${root} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); the index is kept as it was`);
  }
}
