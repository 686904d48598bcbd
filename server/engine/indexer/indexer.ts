import type { Logger } from '../log';
import type { FilesStore, SkippedFile } from '../store/files-store';
import type { ReposStore } from '../store/repos-store';
import type { ParsedFile, RepoRecord } from '../types';
import type { DerivedIndex } from './derived-index';
import { FileParser, type ParseJob, type ParseOptions, type ParseResult } from './parse-file';
import { ParsePool } from './parse-pool';
import { resetTreeSitterResolution, resolveTreeSitterImport } from './parse-tree-sitter';
import { detectLanguage } from './languages';
import { isIndexable, walk, type WalkOptions } from './walk';
import { ChangedNames, NAME_LOOKUP_LANGUAGES, parsedText, providedNames } from './name-references';
import fs from 'node:fs';
import path from 'node:path';
import { LoupeError } from '../errors';

export interface IndexerOptions extends ParseOptions, WalkOptions {}

export const DEFAULT_INDEXER_OPTIONS: IndexerOptions = { maxFileBytes: 1024 * 1024 };

export interface IndexRunProgress {
  repoId: string;
  phase: 'scanning' | 'parsing' | 'linking' | 'derived' | 'done';
  done: number;
  total: number;
  /** Files per second over the run so far. */
  rate: number;
}

export interface IndexRunResult {
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  skipped: number;
  durationMs: number;
}

/** Files parsed before they are written (in slices of WRITE_SLICE_MS). */
const BATCH_FILES = 256;
/** How long one write transaction may hold the thread that answers requests. */
const WRITE_SLICE_MS = 8;
const JOBS_PER_MESSAGE = 16;

/**
 * Brings a repository's index in line with its folder. Only new, changed and removed files are
 * touched; every batch is committed on its own, so a killed run loses at most the batch in flight
 * and the next run picks up from what is persisted.
 */
export class Indexer {
  private readonly pool = new ParsePool();
  private readonly localParsers = new Map<string, FileParser>();
  private readonly derived: DerivedIndex[] = [];
  private derivedChain: Promise<void> = Promise.resolve();
  private readonly closing = new AbortController();
  /** Files per write transaction, adapted to WRITE_SLICE_MS. */
  private sliceFiles = 16;

  constructor(
    private readonly repos: ReposStore,
    private readonly files: FilesStore,
    private readonly log: Logger,
    private readonly options: IndexerOptions = DEFAULT_INDEXER_OPTIONS,
  ) {}

  addDerivedIndex(index: DerivedIndex): void {
    this.derived.push(index);
  }

  async indexRepository(repo: RepoRecord, onProgress: (p: IndexRunProgress) => void = () => {}, signal?: AbortSignal): Promise<IndexRunResult> {
    const started = Date.now();
    const root = repo.rootPath;
    assertReadableFolder(root);
    this.repos.setState(repo.id, 'indexing');
    onProgress({ repoId: repo.id, phase: 'scanning', done: 0, total: 0, rate: 0 });
    const entries = walk(root, this.options);
    const known = this.files.fingerprints(repo.id);
    const seen = new Set(entries.map((e) => e.relPath));
    const skipped = this.files.skipped(repo.id);
    const removed = [...known.keys()].filter((p) => !seen.has(p));
    const forgotten = [...removed, ...[...skipped.keys()].filter((p) => !seen.has(p))];
    const names = new ChangedNames();
    for (const p of removed) names.note(detectLanguage(path.basename(p)), this.providedBefore(p, known.get(p)?.id), []);
    if (forgotten.length) this.files.deletePaths(repo.id, forgotten);

    const jobs: ParseJob[] = [];
    let stillSkipped = 0;
    for (const e of entries) {
      const fp = known.get(e.relPath) ?? skipped.get(e.relPath);
      if (fp && fp.size === e.size && fp.mtimeMs === e.mtimeMs) {
        if (!known.has(e.relPath)) stillSkipped++;
        continue;
      }
      jobs.push({ relPath: e.relPath, size: e.size, mtimeMs: e.mtimeMs, knownHash: known.get(e.relPath)?.hash });
    }
    const total = entries.length;
    let done = total - jobs.length;
    // Files whose size and mtime match the index are unchanged without being read; the hash check
    // adds the ones that were touched but not edited.
    const result: IndexRunResult = {
      added: 0, changed: 0, removed: removed.length, unchanged: total - jobs.length - stillSkipped, skipped: stillSkipped, durationMs: 0,
    };
    this.repos.setProgress(repo.id, done, total);
    const rate = () => (done - (total - jobs.length)) / Math.max(0.001, (Date.now() - started) / 1000);
    onProgress({ repoId: repo.id, phase: 'parsing', done, total, rate: 0 });

    if (jobs.length) this.pool.reset(root);
    const parseOptions: ParseOptions = { maxFileBytes: this.options.maxFileBytes };
    let pendingWrite: ParsedFile[] = [];
    let pendingTouch: { path: string; mtimeMs: number; size: number }[] = [];
    let pendingSkip: SkippedFile[] = [];
    const committed = (n: number) => {
      done += n;
      this.repos.setProgress(repo.id, done, total);
      onProgress({ repoId: repo.id, phase: 'parsing', done, total, rate: rate() });
    };
    // Writes go one after another (lanes wait for theirs: a slow disk holds parsing back), each
    // batch in slices of a few milliseconds with the event loop turning between them.
    let writing: Promise<void> = Promise.resolve();
    const flush = (): Promise<void> => {
      const [write, touch, skip] = [pendingWrite, pendingTouch, pendingSkip];
      pendingWrite = []; pendingTouch = []; pendingSkip = [];
      writing = writing.then(async () => {
        if (touch.length) this.files.touch(repo.id, touch);
        if (skip.length) this.recordSkipped(repo.id, skip);
        if (touch.length || skip.length) committed(touch.length + skip.length);
        await this.writeInSlices(repo.id, write, committed);
      });
      return writing;
    };
    const parsed = new Set<string>();
    const accept = (results: ParseResult[]) => {
      for (const r of results) {
        if (r.kind === 'parsed') {
          if (known.has(r.file.path)) result.changed++; else result.added++;
          parsed.add(r.file.path);
          names.note(r.file.language, this.providedBefore(r.file.path, known.get(r.file.path)?.id), this.providedNow(r.file));
          pendingWrite.push(r.file);
        } else if (r.kind === 'unchanged') {
          result.unchanged++;
          pendingTouch.push({ path: r.relPath, mtimeMs: r.mtimeMs, size: r.size });
        } else {
          result.skipped++;
          names.note(detectLanguage(path.basename(r.relPath)), this.providedBefore(r.relPath, known.get(r.relPath)?.id), []);
          pendingSkip.push({ path: r.relPath, size: r.size, mtimeMs: r.mtimeMs, reason: r.reason });
        }
      }
      return pendingWrite.length + pendingTouch.length + pendingSkip.length >= BATCH_FILES ? flush() : undefined;
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
        const results = await this.pool.parse(root, parseOptions, batch);
        if (failed) return;
        try {
          await accept(results);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    });
    try {
      await Promise.all(lanes);
    } finally {
      // Each parse worker holds a TypeScript compiler (~100 MB). Edits are parsed in this thread, so
      // the workers are let go once the run has parsed everything, before vectors are trained.
      if (jobs.length) await this.pool.close();
    }
    await flush();
    if (signal?.aborted) {
      this.repos.setState(repo.id, 'queued');
      throw new DOMException('indexing was cancelled', 'AbortError');
    }

    if (result.added || result.removed) {
      onProgress({ repoId: repo.id, phase: 'linking', done, total, rate: rate() });
      this.relinkImports(repo);
    }
    // Files parsed in this run saw every file on disk; the others may name what was added or removed.
    if (!names.empty) await this.refreshNameReferences(repo, names, parsed);
    await this.runDerived(repo.id, onProgress, signal);
    this.repos.setState(repo.id, 'ready');
    result.durationMs = Date.now() - started;
    onProgress({ repoId: repo.id, phase: 'done', done: total, total, rate: rate() });
    return result;
  }

  /**
   * Writes parsed files in transactions of about WRITE_SLICE_MS each, yielding to the event loop
   * between them: the thread that writes also answers HTTP and LSP. The slice size follows the
   * measured time per file (a file of many chunks costs more). Each slice is committed on its own,
   * so a killed run resumes after the last one.
   */
  private async writeInSlices(repoId: string, files: ParsedFile[], committed: (n: number) => void): Promise<void> {
    for (let i = 0; i < files.length;) {
      const slice = files.slice(i, i + this.sliceFiles);
      const t0 = performance.now();
      this.files.writeBatch(repoId, slice);
      const msPerFile = Math.max(0.01, (performance.now() - t0) / slice.length);
      this.sliceFiles = Math.max(1, Math.min(BATCH_FILES, Math.floor(WRITE_SLICE_MS / msPerFile)));
      i += slice.length;
      committed(slice.length);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Re-indexes the given files right away, in this thread (a save, an edit, a watcher event).
   * `contents` carries unsaved editor text by path.
   */
  async updatePaths(repo: RepoRecord, relPaths: string[], contents: Map<string, string> = new Map()): Promise<IndexRunResult> {
    const started = Date.now();
    // An unreadable folder makes every file look deleted: refuse rather than empty the index.
    assertReadableFolder(repo.rootPath);
    const parser = this.localParser(repo.rootPath);
    const result: IndexRunResult = { added: 0, changed: 0, removed: 0, unchanged: 0, skipped: 0, durationMs: 0 };
    const write: ParsedFile[] = [];
    const remove: string[] = [];
    const skip: SkippedFile[] = [];
    const names = new ChangedNames();
    for (const relPath of new Set(relPaths)) {
      const abs = path.join(repo.rootPath, relPath);
      const stat = safeStat(abs);
      const existing = this.files.getByPath(repo.id, relPath);
      const language = detectLanguage(path.basename(relPath));
      const before = this.providedBefore(relPath, existing?.id);
      if (!stat || !stat.isFile() || !isIndexable(repo.rootPath, relPath, this.options)) {
        // Forgotten whether it was indexed or skipped (deletePaths handles both).
        remove.push(relPath);
        if (existing) result.removed++;
        names.note(language, before, []);
        continue;
      }
      const content = contents.get(relPath);
      const r = await parser.parse({
        relPath, size: content !== undefined ? Buffer.byteLength(content) : stat.size, mtimeMs: Math.trunc(stat.mtimeMs),
        knownHash: existing?.hash, content,
      });
      if (r.kind === 'parsed') {
        write.push(r.file);
        if (existing) result.changed++; else result.added++;
        names.note(language, before, this.providedNow(r.file));
      } else if (r.kind === 'unchanged') result.unchanged++;
      else {
        result.skipped++;
        skip.push({ path: relPath, size: r.size, mtimeMs: r.mtimeMs, reason: r.reason });
        if (existing) result.removed++;
        names.note(language, before, []);
      }
    }
    if (write.length) this.files.writeBatch(repo.id, write);
    if (remove.length) this.files.deletePaths(repo.id, remove);
    if (skip.length) this.recordSkipped(repo.id, skip);
    if (result.added || result.removed) {
      parser.resetResolution();
      this.relinkImports(repo);
    }
    // The files just parsed are looked at again too: they were resolved before the caches were reset.
    if (!names.empty) await this.refreshNameReferences(repo, names, new Set());
    // Skipped files are not in the index: only files written or taken out of it change what it holds.
    const changed = write.length > 0 || result.removed > 0;
    if (changed) {
      this.repos.setProgress(repo.id, this.files.count(repo.id), this.files.count(repo.id));
      this.repos.setState(repo.id, 'ready');
    }
    result.durationMs = Date.now() - started;
    // The edit is in the index now (text, symbols, edges); vectors and docs catch up behind it, so
    // an edit is reflected in milliseconds whatever the size of the repository.
    if (changed) this.scheduleDerived(repo.id);
    return result;
  }

  /**
   * Skipped files leave the index and are remembered with their stat, so the next run does not read
   * them again; unreadable ones are only forgotten, to be tried again.
   */
  private recordSkipped(repoId: string, files: SkippedFile[]): void {
    const unreadable = files.filter((f) => f.reason === 'unreadable');
    if (unreadable.length) this.files.deletePaths(repoId, unreadable.map((f) => f.path));
    const kept = files.filter((f) => f.reason !== 'unreadable');
    if (kept.length) this.files.recordSkipped(repoId, kept);
  }

  /** Resolves once the derived indexes have caught up with every edit so far. */
  derivedIdle(): Promise<void> {
    return this.derivedChain;
  }

  private scheduleDerived(repoId: string): void {
    this.derivedChain = this.derivedChain.then(() => this.runDerived(repoId, () => {}, this.closing.signal));
  }

  /** Imports that did not resolve may resolve now that files were added (or stop resolving when removed). */
  private relinkImports(repo: RepoRecord): void {
    const root = repo.rootPath;
    const resolver = this.localParser(root).moduleResolver;
    resolver.reset();
    resetTreeSitterResolution(root);
    const updates = this.files.staleImports(repo.id).map((i) => ({
      id: i.id,
      ...(resolveTreeSitterImport(root, detectLanguage(path.basename(i.filePath)), i.filePath, i.specifier, i.kind)
        ?? resolver.resolve(i.filePath, i.specifier)),
    }));
    if (updates.length) this.files.setImportTarget(updates);
  }

  /** Names an indexed file provides to name lookups (Java, C#, Ruby, PHP), read from the index before it changes. */
  private providedBefore(relPath: string, fileId: number | undefined): string[] {
    if (fileId === undefined) return [];
    const language = detectLanguage(path.basename(relPath));
    if (!language || !NAME_LOOKUP_LANGUAGES.has(language)) return [];
    return providedNames(language, relPath, language === 'csharp' ? this.files.content(fileId) : null);
  }

  private providedNow(file: ParsedFile): string[] {
    return providedNames(file.language, file.path, file.language === 'csharp' ? parsedText(file) : null);
  }

  /**
   * Edges found by name lookup (a Java type of the same package, a C# type of a used namespace, a Ruby
   * constant, a PHP class of the file's namespace) exist only while the named file does: when files that
   * provide names were added, removed or re-declared, the files whose code uses one of those names are
   * parsed again from their indexed text (not `skip`), and their edges replaced where they differ.
   */
  private async refreshNameReferences(repo: RepoRecord, names: ChangedNames, skip: ReadonlySet<string>): Promise<void> {
    const parser = this.localParser(repo.rootPath);
    parser.resetResolution();
    const updates: { path: string; imports: ParsedFile['imports'] }[] = [];
    for (const [language, words] of names.byLanguage) {
      for (const { id, path: relPath } of this.files.filesMentioning(repo.id, language, words, skip)) {
        const record = this.files.getByPath(repo.id, relPath);
        if (!record) continue;
        const r = await parser.parse({ relPath, size: record.size, mtimeMs: record.mtimeMs, content: this.files.content(id) });
        if (r.kind === 'parsed') updates.push({ path: relPath, imports: r.file.imports });
      }
    }
    if (updates.length) this.files.replaceImports(repo.id, updates);
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

  private localParser(root: string): FileParser {
    let parser = this.localParsers.get(root);
    if (!parser) this.localParsers.set(root, (parser = new FileParser(root, { maxFileBytes: this.options.maxFileBytes })));
    return parser;
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.derivedChain;
    await this.pool.close();
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

function safeStat(p: string): fs.Stats | null {
  try { return fs.statSync(p); } catch { return null; }
}
