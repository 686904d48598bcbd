import type { Fingerprint, FilesStore, SkippedFile, StaleImportRow, TrigramBacklog } from '../store/files-store';
import type { ReposStore } from '../store/repos-store';
import type { Async } from '../store/surface';
import type { ParsedFile } from '../types';
import { FileParser } from './parse-file';
import { DECLARATION_FILE } from './resolver';
import { resetTreeSitterResolution, resolveTreeSitterImport } from './parse-tree-sitter';
import { detectLanguage, resolvedAsScripts } from './languages';
import { catalogBytes, catalogFrom, isIndexable, walk, walkWithCatalog, type WalkEntry, type WalkOptions } from './walk';
import type { WalkCatalogStore } from '../store/walk-catalog-store';
import { ChangedNames, namesFromText, NUXT_NAMES, providedNames, providesNames } from './name-references';
import { NUXT_USER_LANGUAGES } from './nuxt-auto-imports';
import { providedNow } from './parsed-batch';
import { languagesResolvedBy } from './resolution-config';
import fs from 'node:fs';
import path from 'node:path';

export interface WriteOptions extends WalkOptions { maxFileBytes: number }

/** Chunks whose trigram rows one fill transaction adds, as one segment (store/trigram-index.ts: ~0.2 s on payload's chunks). */
const TRIGRAM_FILL_CHUNKS = 4000;
/**
 * Edited chunks left in the trigram backlog before an edit fills it: until then a grep or a name lookup
 * takes them as candidates (their files are scanned), which costs little for a few thousand chunks.
 */
const EDIT_TRIGRAM_BACKLOG = 2000;
/** Chunks whose words index (chunks_fts) rows one fill transaction adds (migration 016). */
const FTS_FILL_CHUNKS = 1000;

export interface IndexRunResult {
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  skipped: number;
  durationMs: number;
}

/**
 * What a run starts from: the folder's files and what the index holds of them. A writer may leave out
 * the files whose size and mtime match the index (or its skipped list), from `entries` and from both
 * lists, and count them in `unchanged` / `stillSkipped` instead: the run's outcome is the same.
 */
export interface Scan {
  entries: WalkEntry[];
  known: [string, Fingerprint][];
  skipped: [string, SkippedFile][];
  unchanged?: number;
  stillSkipped?: number;
  /** Folders the walk listed, and folders whose entries it took from the last walk's catalog. */
  folders?: { listed: number; trusted: number };
}

/** Where a run's progress stands when a write begins (files_done is moved with each commit). */
export interface Progress { done: number; total: number }

/** Names whose lookup may answer differently now (ChangedNames), as plain data a worker can be sent. */
/** Per language: the changed names, and for a folder-scoped language (Go) the folders they changed in. */
export type NameChanges = [language: string, words: string[], folders: string[] | null][];

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
    /** The trigram index filled in bulk after a large run's files (SQLite; absent: the trigger keeps it). */
    private readonly trigram?: TrigramBacklog,
    /** The last walk of each folder (migration 020): a walk then lists only folders that changed. */
    private readonly catalog?: WalkCatalogStore,
  ) {}

  /** Chunks written from now on get their words index rows in bulk (migration 016). */
  deferWordsIndex(): void {
    this.trigram?.deferWordsIndex();
  }

  /**
   * Adds the backlog's trigram rows, TRIGRAM_FILL_CHUNKS chunks per transaction (a fraction of a second
   * each); `between` runs after each commit. Nothing to do without a backlog (two reads).
   */
  async fillTrigram(between: () => Promise<void> | void = () => {}): Promise<void> {
    if (!this.trigram) return;
    // The words index's backlog first (search's), emptied: writes keep it row by row again.
    if (this.trigram.ftsPending()) while (!this.trigram.fillFts(FTS_FILL_CHUNKS, true)) await between();
    while (!this.trigram.fillTrigram(TRIGRAM_FILL_CHUNKS)) await between();
  }

  /**
   * Lists the folder and reads the index's fingerprints of it. The files whose size and mtime match are
   * counted here and left out (see Scan): a no-change run then hands the calling thread a few numbers
   * instead of every path twice (a structured clone of ~17,700 objects on payload, on both threads).
   */
  scan(repoId: string, root: string): Scan {
    const entries: WalkEntry[] = [];
    const known = this.files.fingerprints(repoId);
    const skipped = this.files.skipped(repoId);
    let unchanged = 0;
    let stillSkipped = 0;
    const { walked, folders } = this.walk(repoId, root);
    for (const e of walked) {
      // As the Indexer decides: the index's fingerprint, else the skipped list's.
      const fp = known.get(e.relPath) ?? skipped.get(e.relPath);
      if (fp && fp.size === e.size && fp.mtimeMs === e.mtimeMs) {
        if (known.delete(e.relPath)) unchanged++;
        else stillSkipped++;
        skipped.delete(e.relPath); // seen: neither removed nor forgotten
        continue;
      }
      entries.push(e);
    }
    return { entries, known: [...known], skipped: [...skipped], unchanged, stillSkipped, folders };
  }

  /** The folder's files: with a catalog, only folders whose entries may have changed are listed (walk.ts). */
  private walk(repoId: string, root: string): { walked: WalkEntry[]; folders?: Scan['folders'] } {
    if (!this.catalog) return { walked: walk(root, this.options) };
    const w = walkWithCatalog(root, this.options, catalogFrom(this.catalog.load(repoId)));
    if (w.changed) this.transaction(() => this.catalog!.save(repoId, catalogBytes(w.catalog)));
    return { walked: w.entries, folders: { listed: w.listed, trusted: w.trusted } };
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
      this.sliceFiles = nextSliceFiles(performance.now() - t0, slice.length, sliceMs);
      i += slice.length;
      await between(slice.length);
    }
    // A deferred run (migration 016): the words index's rows of what was just written, in bulk, so that
    // search follows the run a batch behind; the backlog stays for the run's next files.
    if (this.trigram?.ftsPending()) while (!this.trigram.fillFts(FTS_FILL_CHUNKS, false)) await between(0);
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
    const { forget, keep } = splitSkipped(files);
    if (forget.length) this.files.deletePaths(repoId, forget);
    if (keep.length) this.files.recordSkipped(repoId, keep);
  }

  /**
   * Imports that did not resolve may resolve now that files were added (or stop resolving when removed); the
   * imports of `languages` are all resolved again (a file that decides their resolution changed). `parsed`:
   * files this run parsed, whose imports were resolved against the disk as it is (their stale ones are left).
   */
  async relink(repoId: string, root: string, languages: readonly string[] = [], parsed: readonly string[] = []): Promise<void> {
    await relinkImports(this.files, this.parser(root), repoId, root, languages, parsed);
  }
  /**
   * Edges found by name lookup (a Java type of the same package, a C# type of a used namespace, a Ruby
   * constant, a PHP class of the file's namespace) exist only while the named file does: when files that
   * provide names were added, removed or re-declared, the files whose code uses one of those names are
   * parsed again from their indexed text (not `skip`), and their edges replaced where they differ.
   */
  async refreshNames(repoId: string, root: string, names: NameChanges, skip: string[]): Promise<void> {
    await refreshNameEdges(this.files, this.parser(root), repoId, names, skip);
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
    const outcome = await editPaths({
      files: this.files, repos: this.repos, options: this.options, parser: (root) => this.parser(root),
      recordSkipped: (id, skip) => this.recordSkipped(id, skip), relink: (id, root, languages) => this.relink(id, root, languages),
    }, repo, relPaths, contents);
    // Written while a words index backlog is open (a run's, or one a killed run left): searchable now all the same.
    if (this.trigram?.ftsPending()) while (!this.trigram.fillFts(FTS_FILL_CHUNKS, false)) { /* next ~1,000 chunks */ }
    if (this.trigram && this.trigram.chunksWaiting() >= EDIT_TRIGRAM_BACKLOG) while (!this.trigram.fillTrigram(TRIGRAM_FILL_CHUNKS)) { /* next segment */ }
    return outcome;
  }

  /** Names an indexed file provides to name lookups (Java, C#, Ruby, PHP), read from the index before it changes. */
  providedBefore(relPath: string, fileId: number | undefined): string[] {
    if (fileId === undefined) return [];
    const language = detectLanguage(path.basename(relPath));
    if (!providesNames(language, relPath)) return [];
    return providedNames(language, relPath, namesFromText(language, relPath) ? this.files.content(fileId) : null);
  }

  private parser(root: string): FileParser {
    let parser = this.parsers.get(root);
    if (!parser) this.parsers.set(root, (parser = new FileParser(root, { maxFileBytes: this.options.maxFileBytes })));
    return parser;
  }
}

export { providedNow } from './parsed-batch';

export const nameChanges = (names: ChangedNames): NameChanges =>
  [...names.byLanguage].map(([l, w]) => [l, [...w], names.folders.has(l) ? [...names.folders.get(l)!] : null]);

function safeStat(p: string): fs.Stats | null {
  try { return fs.statSync(p); } catch { return null; }
}

// ---------------------------------------------------------------------------------------------------
// The writes' logic that does not depend on the backend, shared by IndexWrites (SQLite, synchronous
// stores) and PgIndexWriter (PostgreSQL, pg-index-writer.ts, awaited stores): a store's answer is
// awaited here, which on SQLite is its value at once.

/** Files per write transaction for the next slice, from the time the last one took. */
export function nextSliceFiles(elapsedMs: number, files: number, sliceMs: number): number {
  const msPerFile = Math.max(0.01, elapsedMs / files);
  return Math.max(1, Math.min(256, Math.floor(sliceMs / msPerFile)));
}

/** Skipped files: unreadable ones are only forgotten (tried again next run), the others remembered. */
export function splitSkipped(files: SkippedFile[]): { forget: string[]; keep: SkippedFile[] } {
  return { forget: files.filter((f) => f.reason === 'unreadable').map((f) => f.path), keep: files.filter((f) => f.reason !== 'unreadable') };
}

type StaleImport = {
  id: number; filePath: string; language: string | null; specifier: string; kind: ParsedFile['imports'][number]['kind']; targetPath: string | null;
};
type Relinked = { id: number; targetPath: string | null; packageName: string | null };

/** Resolves stale imports afresh (the resolution caches of `root` are reset first), by the language the file was indexed as. */
export function importResolution(parser: FileParser, root: string): (i: StaleImport) => Relinked {
  const resolver = parser.moduleResolver;
  resolver.reset();
  resetTreeSitterResolution(root);
  const script = (i: StaleImport): Omit<Relinked, 'id'> => {
    // A script's `/// <reference path>` (kind include) names a file, as parse-typescript.ts resolves it.
    if (i.kind === 'include') return { targetPath: resolver.resolveReferencePath(i.filePath, i.specifier), packageName: null };
    // Its `/// <reference types>` (kind types) names a package of types, or a file of in-repository type roots.
    if (i.kind === 'types') return resolver.resolveTypeReference(i.filePath, i.specifier);
    // A name Nuxt auto-imports (nuxt-auto-imports.ts) is no specifier: refreshNameEdges replaces it when names change.
    if (i.kind === 'reference') return { targetPath: i.targetPath, packageName: null };
    const { targetPath, packageName, typeTargets } = resolver.resolve(i.filePath, i.specifier, i.kind);
    // An import of a declaration beside its JavaScript is stored twice (parse-typescript.ts): the row that named
    // the declaration keeps naming it.
    const declaration = i.targetPath !== null && DECLARATION_FILE.test(i.targetPath) ? typeTargets?.[0] : undefined;
    return { targetPath: declaration ?? targetPath, packageName: declaration ? null : packageName };
  };
  return (i) => ({ id: i.id, ...(resolveTreeSitterImport(root, i.language, i.filePath, i.specifier, i.kind) ?? script(i)) });
}

/** The imports whose answer changed, resolved again. */
function relinked(rows: StaleImportRow[], resolve: (i: StaleImport) => Relinked): Relinked[] {
  return rows.map((row) => ({ row, now: resolve(row) }))
    .filter(({ row, now }) => now.targetPath !== row.targetPath || now.packageName !== row.packageName)
    .map(({ now }) => now);
}

type AnyFiles = FilesStore | Async<FilesStore>;

/** IndexWrites.refreshNames over either backend's files store. */
export async function refreshNameEdges(files: AnyFiles, parser: FileParser, repoId: string, names: NameChanges, skip: string[]): Promise<void> {
  const lookups = names.flatMap(([language, words, folders]): NameChanges => {
    if (language !== NUXT_NAMES) return [[language, words, folders]];
    // Nuxt's names are used anywhere in the app, by its scripts and components; only a Nuxt app's files provide them.
    if (!parser.inNuxtApp(folders ?? [])) return [];
    return [...NUXT_USER_LANGUAGES].map((l): NameChanges[number] => [l, words, null]);
  });
  // A `components/` or `utils/` folder outside a Nuxt app changes nothing (its cached answers are kept).
  if (!lookups.length) return;
  parser.resetResolution();
  const excluded = new Set(skip);
  const updates: { path: string; imports: ParsedFile['imports'] }[] = [];
  const seen = new Set<string>();
  for (const [language, words, folders] of lookups) {
    for (const { id, path: relPath } of await files.filesMentioning(repoId, language, new Set(words), excluded, folders ? new Set(folders) : undefined)) {
      if (seen.has(relPath)) continue;
      seen.add(relPath);
      const record = await files.getByPath(repoId, relPath);
      if (!record) continue;
      const r = await parser.parse({ relPath, size: record.size, mtimeMs: record.mtimeMs, content: await files.content(id) });
      if (r.kind === 'parsed') updates.push({ path: relPath, imports: r.file.imports });
    }
  }
  if (updates.length) await files.replaceImports(repoId, updates);
}

/**
 * IndexWrites.relink over either backend's files store. A script's imports resolve from their specifiers alone, as
 * the parse resolved them. The other languages' parse decides from more than the specifier (a Go import's file is
 * the one whose names the file uses; a PHP name that resolves nowhere is not kept): where their stored imports,
 * resolved again, answer differently (a renamed Go module, a moved PSR-4 folder), all of that language's files are
 * parsed again from their indexed text; where nothing moved (a go.mod's new `require`), none is.
 */
export async function relinkImports(files: AnyFiles, parser: FileParser, repoId: string, root: string, languages: readonly string[], parsed: readonly string[] = []): Promise<void> {
  // Which languages' answers moved, read before the stale imports below are given their new answers.
  const resolve = importResolution(parser, root);
  // The files this run parsed: their imports were resolved a moment ago, with the configs as they are.
  const fresh = new Set(parsed);
  const before = async (languages?: readonly string[]) => (await files.staleImports(repoId, languages)).filter((row) => !fresh.has(row.filePath));
  const moved: string[] = [];
  for (const language of languages.filter((l) => !resolvedAsScripts(l))) {
    if ((await before([language])).some((row) => !samePlace(row, resolve(row)))) moved.push(language);
  }
  const stale = relinked(await before(), resolve);
  if (stale.length) await files.setImportTarget(stale);
  const scripts = languages.filter(resolvedAsScripts);
  if (scripts.length) {
    const updates = relinked(await before(scripts), resolve);
    if (updates.length) await files.setImportTarget(updates);
  }
  if (!moved.length) return;
  parser.resetResolution();
  const updates: { path: string; imports: ParsedFile['imports'] }[] = [];
  for (const { id, path: relPath } of await files.filesOfLanguages(repoId, moved)) {
    const record = await files.getByPath(repoId, relPath);
    if (!record) continue;
    const r = await parser.parse({ relPath, size: record.size, mtimeMs: record.mtimeMs, content: await files.content(id) });
    if (r.kind === 'parsed') updates.push({ path: relPath, imports: r.file.imports });
  }
  if (updates.length) await files.replaceImports(repoId, updates);
}

/** The same answer; for Go, the same package (its parse picks the package's file by the names used). */
function samePlace(row: StaleImportRow, now: Relinked): boolean {
  if (row.packageName !== now.packageName) return false;
  if (row.targetPath === now.targetPath) return true;
  return row.language === 'go' && row.targetPath !== null && now.targetPath !== null && path.posix.dirname(row.targetPath) === path.posix.dirname(now.targetPath);
}

/** Names an indexed file provides to name lookups (Java, C#, Ruby, PHP), read from the index before it changes. */
export async function providedBeforeIn(files: AnyFiles, relPath: string, fileId: number | undefined): Promise<string[]> {
  if (fileId === undefined) return [];
  const language = detectLanguage(path.basename(relPath));
  if (!providesNames(language, relPath)) return [];
  return providedNames(language, relPath, namesFromText(language, relPath) ? await files.content(fileId) : null);
}

/** What an edit needs of the side that writes it. */
export interface EditSide {
  files: AnyFiles;
  repos: ReposStore | Async<ReposStore>;
  options: WriteOptions;
  parser(root: string): FileParser;
  recordSkipped(repoId: string, files: SkippedFile[]): void | Promise<void>;
  relink(repoId: string, root: string, languages?: readonly string[], parsed?: readonly string[]): void | Promise<void>;
}

/**
 * Re-indexes the given files (a save, an edit, a watcher event): parse, write, forget, relink and
 * name lookups. `contents` carries unsaved editor text by path.
 */
export async function editPaths(w: EditSide, repo: { id: string; rootPath: string }, relPaths: string[], contents: Map<string, string>): Promise<EditOutcome> {
  const started = Date.now();
  const parser = w.parser(repo.rootPath);
  const result: IndexRunResult = { added: 0, changed: 0, removed: 0, unchanged: 0, skipped: 0, durationMs: 0 };
  const write: ParsedFile[] = [];
  const remove: string[] = [];
  const removedIndexed: string[] = [];
  const skip: SkippedFile[] = [];
  const names = new ChangedNames();
  for (const relPath of new Set(relPaths)) {
    const abs = path.join(repo.rootPath, relPath);
    const stat = safeStat(abs);
    const existing = await w.files.getByPath(repo.id, relPath);
    const language = detectLanguage(path.basename(relPath));
    const before = await providedBeforeIn(w.files, relPath, existing?.id);
    if (!stat || !stat.isFile() || !isIndexable(repo.rootPath, relPath, w.options)) {
      // Forgotten whether it was indexed or skipped (deletePaths handles both).
      remove.push(relPath);
      if (existing) { result.removed++; removedIndexed.push(relPath); }
      names.note(language, before, [], relPath);
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
      names.note(r.file.language, before, providedNow(r.file), relPath);
    } else if (r.kind === 'unchanged') result.unchanged++;
    else {
      result.skipped++;
      skip.push({ path: relPath, size: r.size, mtimeMs: r.mtimeMs, reason: r.reason });
      if (existing) result.removed++;
      names.note(language, before, [], relPath);
    }
  }
  if (write.length) await w.files.writeBatch(repo.id, write);
  if (remove.length) await w.files.deletePaths(repo.id, remove);
  if (skip.length) await w.recordSkipped(repo.id, skip);
  // A changed tsconfig, package.json, go.mod… may move imports of files that did not change: all are resolved again.
  // Only files of the index count: an event under node_modules/ (ignored, never indexed) moves nothing.
  const resolvedBy = languagesResolvedBy([...write.map((f) => f.path), ...removedIndexed]);
  if (result.added || result.removed || resolvedBy.length) {
    parser.resetResolution();
    await w.relink(repo.id, repo.rootPath, resolvedBy);
  }
  // The files just parsed are looked at again too: they were resolved before the caches were reset.
  if (!names.empty) await refreshNameEdges(w.files, parser, repo.id, nameChanges(names), []);
  // Skipped files are not in the index: only files written or taken out of it change what it holds.
  const changed = write.length > 0 || result.removed > 0;
  if (changed) {
    const n = await w.files.count(repo.id);
    await w.repos.setProgress(repo.id, n, n);
    await w.repos.setState(repo.id, 'ready');
  }
  result.durationMs = Date.now() - started;
  return { result, changed };
}
