import type { Fingerprint, FilesStore, SkippedFile } from '../store/files-store';
import type { ReposStore } from '../store/repos-store';
import type { ParsedFile } from '../types';
import { FileParser } from './parse-file';
import { resetTreeSitterResolution, resolveTreeSitterImport } from './parse-tree-sitter';
import { detectLanguage } from './languages';
import { isIndexable, walk, type WalkEntry, type WalkOptions } from './walk';
import { ChangedNames, NAME_LOOKUP_LANGUAGES, providedNames } from './name-references';
import { providedNow } from './parsed-batch';
import fs from 'node:fs';
import path from 'node:path';

export interface WriteOptions extends WalkOptions { maxFileBytes: number }

export interface IndexRunResult {
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  skipped: number;
  durationMs: number;
}

/** What a run starts from: the folder's files and what the index holds of them. */
export interface Scan {
  entries: WalkEntry[];
  known: [string, Fingerprint][];
  skipped: [string, SkippedFile][];
}

/** Where a run's progress stands when a write begins (files_done is moved with each commit). */
export interface Progress { done: number; total: number }

/** Names whose lookup may answer differently now (ChangedNames), as plain data a worker can be sent. */
export type NameChanges = [language: string, words: string[]][];

export interface EditOutcome { result: IndexRunResult; changed: boolean }

/**
 * Everything the indexer writes, and the reads and parses those writes need, on one connection. It
 * runs in the writer thread (write-worker.ts, its own connection) so that SQLite's work, FTS5 merges
 * and commits included, never holds the thread that answers HTTP and LSP; the indexer reaches it
 * through an IndexWriter.
 */
export class IndexWrites {
  private readonly parsers = new Map<string, FileParser>();

  constructor(
    private readonly repos: ReposStore,
    private readonly files: FilesStore,
    private readonly options: WriteOptions,
    /** Runs a function in one transaction (the file rows of a slice and the progress commit together). */
    private readonly transaction: (work: () => void) => void = (work) => work(),
  ) {}

  /** Lists the folder and reads the index's fingerprints of it. */
  scan(repoId: string, root: string): Scan {
    return {
      entries: walk(root, this.options),
      known: [...this.files.fingerprints(repoId)],
      skipped: [...this.files.skipped(repoId)],
    };
  }

  /**
   * Writes parsed files in transactions of about `sliceMs` each (the slice size follows the measured
   * time per file: a file of many chunks costs more), each with the run's progress, so a killed run
   * resumes after the last one. `between` runs after each commit (yields, reports).
   */
  async writeFiles(repoId: string, files: ParsedFile[], progress: Progress, sliceMs: number, between: (n: number) => Promise<void> | void): Promise<void> {
    let done = progress.done;
    for (let i = 0; i < files.length;) {
      const slice = files.slice(i, i + this.sliceFiles);
      const t0 = performance.now();
      done += slice.length;
      this.transaction(() => {
        this.files.writeBatch(repoId, slice);
        this.repos.setProgress(repoId, done, progress.total);
      });
      const msPerFile = Math.max(0.01, (performance.now() - t0) / slice.length);
      this.sliceFiles = Math.max(1, Math.min(256, Math.floor(sliceMs / msPerFile)));
      i += slice.length;
      await between(slice.length);
    }
  }

  /** Files per write transaction, adapted to the slice time. */
  private sliceFiles = 16;

  /** Re-stamps unchanged files and records skipped ones, with the run's progress moved past them. */
  stamp(repoId: string, touch: { path: string; mtimeMs: number; size: number }[], skip: SkippedFile[], progress: Progress): void {
    this.transaction(() => {
      if (touch.length) this.files.touch(repoId, touch);
      if (skip.length) this.recordSkipped(repoId, skip);
      this.repos.setProgress(repoId, progress.done + touch.length + skip.length, progress.total);
    });
  }

  deletePaths(repoId: string, paths: string[]): void {
    this.files.deletePaths(repoId, paths);
  }

  setProgress(repoId: string, progress: Progress): void {
    this.repos.setProgress(repoId, progress.done, progress.total);
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

  /** Imports that did not resolve may resolve now that files were added (or stop resolving when removed). */
  relink(repoId: string, root: string): void {
    const resolver = this.parser(root).moduleResolver;
    resolver.reset();
    resetTreeSitterResolution(root);
    const updates = this.files.staleImports(repoId).map((i) => ({
      id: i.id,
      ...(resolveTreeSitterImport(root, detectLanguage(path.basename(i.filePath)), i.filePath, i.specifier, i.kind)
        ?? resolver.resolve(i.filePath, i.specifier)),
    }));
    if (updates.length) this.files.setImportTarget(updates);
  }

  /**
   * Edges found by name lookup (a Java type of the same package, a C# type of a used namespace, a Ruby
   * constant, a PHP class of the file's namespace) exist only while the named file does: when files that
   * provide names were added, removed or re-declared, the files whose code uses one of those names are
   * parsed again from their indexed text (not `skip`), and their edges replaced where they differ.
   */
  async refreshNames(repoId: string, root: string, names: NameChanges, skip: string[]): Promise<void> {
    const parser = this.parser(root);
    parser.resetResolution();
    const excluded = new Set(skip);
    const updates: { path: string; imports: ParsedFile['imports'] }[] = [];
    for (const [language, words] of names) {
      for (const { id, path: relPath } of this.files.filesMentioning(repoId, language, new Set(words), excluded)) {
        const record = this.files.getByPath(repoId, relPath);
        if (!record) continue;
        const r = await parser.parse({ relPath, size: record.size, mtimeMs: record.mtimeMs, content: this.files.content(id) });
        if (r.kind === 'parsed') updates.push({ path: relPath, imports: r.file.imports });
      }
    }
    if (updates.length) this.files.replaceImports(repoId, updates);
  }

  /** Cached resolution answers are stale (files were added or removed under root). */
  resetResolution(root: string): void {
    this.parsers.get(root)?.resetResolution();
  }

  /**
   * Re-indexes the given files (a save, an edit, a watcher event): parse, write, forget, relink and
   * name lookups. `contents` carries unsaved editor text by path.
   */
  async edit(repo: { id: string; rootPath: string }, relPaths: string[], contents: Map<string, string>): Promise<EditOutcome> {
    const started = Date.now();
    const parser = this.parser(repo.rootPath);
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
        names.note(language, before, providedNow(r.file));
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
      this.relink(repo.id, repo.rootPath);
    }
    // The files just parsed are looked at again too: they were resolved before the caches were reset.
    if (!names.empty) await this.refreshNames(repo.id, repo.rootPath, nameChanges(names), []);
    // Skipped files are not in the index: only files written or taken out of it change what it holds.
    const changed = write.length > 0 || result.removed > 0;
    if (changed) {
      const n = this.files.count(repo.id);
      this.repos.setProgress(repo.id, n, n);
      this.repos.setState(repo.id, 'ready');
    }
    result.durationMs = Date.now() - started;
    return { result, changed };
  }

  /** Names an indexed file provides to name lookups (Java, C#, Ruby, PHP), read from the index before it changes. */
  providedBefore(relPath: string, fileId: number | undefined): string[] {
    if (fileId === undefined) return [];
    const language = detectLanguage(path.basename(relPath));
    if (!language || !NAME_LOOKUP_LANGUAGES.has(language)) return [];
    return providedNames(language, relPath, language === 'csharp' ? this.files.content(fileId) : null);
  }

  private parser(root: string): FileParser {
    let parser = this.parsers.get(root);
    if (!parser) this.parsers.set(root, (parser = new FileParser(root, { maxFileBytes: this.options.maxFileBytes })));
    return parser;
  }
}

export { providedNow } from './parsed-batch';

export const nameChanges = (names: ChangedNames): NameChanges => [...names.byLanguage].map(([l, w]) => [l, [...w]]);

function safeStat(p: string): fs.Stats | null {
  try { return fs.statSync(p); } catch { return null; }
}
