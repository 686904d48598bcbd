import path from 'node:path';
import { type Db, pageClause } from './db';
import type { FileRecord, ImportKind, ParsedFile, ParsedImport, ParsedSymbol } from '../types';
import { nowIso, stableUuid } from '../util/ids';
import { identifierWords } from '../util/words';
import type { Surface } from './surface';
import { mentionsAny } from '../util/mentions';
import { literalTrigrams, TrigramIndex } from './trigram-index';

interface FileRow {
  id: number; uid: string; repo_id: string; path: string; name: string; language: string | null; size: number;
  lines: number; hash: string; mtime_ms: number; description: string | null; indexed_at: string;
}

const toRecord = (r: FileRow): FileRecord => ({
  id: r.id, uid: r.uid, repoId: r.repo_id, path: r.path, name: r.name, language: r.language, size: r.size,
  lines: r.lines, hash: r.hash, mtimeMs: r.mtime_ms, description: r.description, indexedAt: r.indexed_at,
});

export interface Fingerprint { id: number; size: number; mtimeMs: number; hash: string }

/** A file left out of the index, and the stat it had then. */
export interface SkippedFile { path: string; size: number; mtimeMs: number; reason: string }

/** An import to resolve again, with what it resolves to now. */
export interface StaleImportRow {
  id: number; filePath: string; language: string | null; specifier: string; kind: ImportKind; targetPath: string | null; packageName: string | null;
}

export interface FileListQuery {
  repoId: string;
  search?: string;
  limit: number;
  offset: number;
  orderBy: 'file_path' | 'file_name' | 'total_lines' | 'size' | 'language' | 'indexed_at';
  order: 'asc' | 'desc';
}

export interface FileListItem extends FileRecord {
  dependencies: string[];
  functionCount: number;
  classCount: number;
  variableCount: number;
  symbolCount: number;
}

const ORDER_COLUMNS: Record<FileListQuery['orderBy'], string> = {
  file_path: 'path', file_name: 'name', total_lines: 'lines', size: 'size', language: 'language', indexed_at: 'indexed_at',
};

export const fileUid = (repoId: string, path: string) => stableUuid(repoId, path);

export class SqliteFilesStore {
  constructor(private readonly db: Db) {}

  fingerprints(repoId: string): Map<string, Fingerprint> {
    const rows = this.db.prepare('SELECT id, path, size, mtime_ms, hash FROM files WHERE repo_id = ?').all(repoId) as
      { id: number; path: string; size: number; mtime_ms: number; hash: string }[];
    return new Map(rows.map((r) => [r.path, { id: r.id, size: r.size, mtimeMs: r.mtime_ms, hash: r.hash }]));
  }

  /** Writes parsed files (insert or replace their symbols, edges, chunks and search rows) in one transaction. */
  writeBatch(repoId: string, files: ParsedFile[]): number[] {
    const ids: number[] = [];
    const indexedAt = nowIso();
    this.db.transaction(() => {
      // Chunks from here up get their chunks_fts rows later, in bulk (migration 016).
      const ftsFrom = ftsBacklogFrom(this.db);
      for (const file of files) ids.push(this.writeOne(repoId, file, indexedAt, ftsFrom));
    })();
    return ids;
  }

  private writeOne(repoId: string, f: ParsedFile, indexedAt: string, ftsFrom: number): number {
    this.db.prepare('DELETE FROM skipped_files WHERE repo_id = ? AND path = ?').run(repoId, f.path);
    // A file new to the index has nothing to clear (a cold index: four statements fewer per file).
    const before = this.db.prepare('SELECT id FROM files WHERE repo_id = ? AND path = ?').get(repoId, f.path) as { id: number } | undefined;
    const name = f.path.slice(f.path.lastIndexOf('/') + 1);
    const { id } = this.db.prepare(
      `INSERT INTO files (uid, repo_id, path, name, language, size, lines, hash, mtime_ms, description, indexed_at, generated, unit, holds_tests)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (repo_id, path) DO UPDATE SET language = excluded.language, size = excluded.size,
         lines = excluded.lines, hash = excluded.hash, mtime_ms = excluded.mtime_ms,
         description = excluded.description, indexed_at = excluded.indexed_at, generated = excluded.generated, unit = excluded.unit,
         holds_tests = excluded.holds_tests
       RETURNING id`,
    ).get(fileUid(repoId, f.path), repoId, f.path, name, f.language, f.size, f.lines, f.hash, Math.trunc(f.mtimeMs),
      f.description, indexedAt, f.generated ? 1 : 0, f.unit, f.holdsTests ? 1 : 0) as { id: number };
    if (before) this.clearChildren(id, ftsFrom);
    const insertSymbol = this.db.prepare(
      `INSERT INTO symbols (file_id, name, kind, parent, start_line, end_line, exported, signature, doc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const s of f.symbols) {
      insertSymbol.run(id, s.name, s.kind, s.parent, s.startLine, s.endLine, s.exported ? 1 : 0, s.signature, s.doc);
    }
    const insertImport = this.db.prepare(
      `INSERT INTO imports (file_id, specifier, kind, type_only, target_path, package, names, line)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const i of f.imports) {
      insertImport.run(id, i.specifier, i.kind, i.typeOnly ? 1 : 0, i.targetPath, i.packageName,
        i.names.length ? JSON.stringify(i.names) : null, i.line);
    }
    const insertChunk = this.db.prepare(
      'INSERT INTO chunks (file_id, seq, start_line, end_line, symbols, content) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
    );
    const insertFts = this.db.prepare('INSERT INTO chunks_fts (rowid, path, symbols, body) VALUES (?, ?, ?, ?)');
    const pathWords = `${f.path} ${identifierWords(f.path)}`;
    f.chunks.forEach((c, seq) => {
      const { id: chunkId } = insertChunk.get(id, seq, c.startLine, c.endLine, c.symbols.join(' ') || null, c.content) as { id: number };
      if (chunkId >= ftsFrom) return;
      // The same words as FTS_FILL_SQL's (bulk) rows.
      const symbolWords = c.symbols.length ? `${c.symbols.join(' ')} ${identifierWords(c.symbols.join(' '))}` : '';
      insertFts.run(chunkId, pathWords, symbolWords, `${c.content}\n${identifierWords(c.content)}`);
    });
    return id;
  }

  /** `ftsFrom`: chunks from this id up have no chunks_fts rows to delete (the backlog's; contentless: it must be told exactly). */
  private clearChildren(fileId: number, ftsFrom = ftsBacklogFrom(this.db)): void {
    this.db.prepare('DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE file_id = ? AND id < ?)').run(fileId, ftsFrom);
    this.db.prepare('DELETE FROM chunks WHERE file_id = ?').run(fileId);
    this.db.prepare('DELETE FROM symbols WHERE file_id = ?').run(fileId);
    this.db.prepare('DELETE FROM imports WHERE file_id = ?').run(fileId);
  }

  /** Same content, new modification time: keep the index, remember the new stat. */
  touch(repoId: string, updates: { path: string; mtimeMs: number; size: number }[]): void {
    const stmt = this.db.prepare('UPDATE files SET mtime_ms = ?, size = ? WHERE repo_id = ? AND path = ?');
    this.db.transaction(() => {
      for (const u of updates) stmt.run(Math.trunc(u.mtimeMs), u.size, repoId, u.path);
    })();
  }

  /** Forgets files, indexed or skipped (gone from disk, or ignored now). */
  deletePaths(repoId: string, paths: string[]): void {
    this.db.transaction(() => {
      for (const p of paths) this.deleteOne(repoId, p);
    })();
  }

  private deleteOne(repoId: string, path: string): void {
    this.db.prepare('DELETE FROM skipped_files WHERE repo_id = ? AND path = ?').run(repoId, path);
    this.unindex(repoId, path);
  }

  /** Takes a file out of the index (its row, symbols, edges, chunks and search rows), if it is there. */
  private unindex(repoId: string, path: string): void {
    const row = this.db.prepare('SELECT id FROM files WHERE repo_id = ? AND path = ?').get(repoId, path) as { id: number } | undefined;
    if (!row) return;
    this.clearChildren(row.id);
    this.db.prepare('DELETE FROM files WHERE id = ?').run(row.id);
  }

  /** Files the indexer leaves out: they leave the index (if they were in it) and are remembered with their stat. */
  recordSkipped(repoId: string, files: SkippedFile[]): void {
    this.db.transaction(() => {
      for (const f of files) {
        this.unindex(repoId, f.path);
        this.db.prepare(
          `INSERT INTO skipped_files (repo_id, path, size, mtime_ms, reason) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (repo_id, path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, reason = excluded.reason`,
        ).run(repoId, f.path, f.size, Math.trunc(f.mtimeMs), f.reason);
      }
    })();
  }

  /** The skipped files of a repository by path: one whose stat is unchanged is not read again. */
  skipped(repoId: string): Map<string, SkippedFile> {
    const rows = this.db.prepare('SELECT path, size, mtime_ms AS mtimeMs, reason FROM skipped_files WHERE repo_id = ?').all(repoId) as SkippedFile[];
    return new Map(rows.map((r) => [r.path, r]));
  }

  count(repoId: string): number {
    return (this.db.prepare('SELECT count(*) AS n FROM files WHERE repo_id = ?').get(repoId) as { n: number }).n;
  }

  getByUid(repoId: string, uid: string): FileRecord | undefined {
    const row = this.db.prepare('SELECT * FROM files WHERE repo_id = ? AND uid = ?').get(repoId, uid) as FileRow | undefined;
    return row && toRecord(row);
  }

  getByPath(repoId: string, path: string): FileRecord | undefined {
    const row = this.db.prepare('SELECT * FROM files WHERE repo_id = ? AND path = ?').get(repoId, path) as FileRow | undefined;
    return row && toRecord(row);
  }

  paths(repoId: string): string[] {
    return (this.db.prepare('SELECT path FROM files WHERE repo_id = ? ORDER BY path').all(repoId) as { path: string }[]).map((r) => r.path);
  }

  list(q: FileListQuery): { items: FileListItem[]; total: number } {
    const params: unknown[] = [q.repoId];
    let clause = 'WHERE f.repo_id = ?';
    if (q.search) {
      clause += " AND (f.name LIKE ? ESCAPE '\\' OR f.path LIKE ? ESCAPE '\\')";
      const like = `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      params.push(like, like);
    }
    const total = (this.db.prepare(`SELECT count(*) AS n FROM files f ${clause}`).get(...params) as { n: number }).n;
    const rows = this.db.prepare(
      `SELECT f.*,
         (SELECT json_group_array(DISTINCT coalesce(i.target_path, i.package, i.specifier)) FROM imports i WHERE i.file_id = f.id) AS deps,
         (SELECT count(*) FROM symbols s WHERE s.file_id = f.id AND s.kind IN ('function', 'method')) AS fn_count,
         (SELECT count(*) FROM symbols s WHERE s.file_id = f.id AND s.kind IN ('class', 'struct', 'interface', 'trait')) AS class_count,
         (SELECT count(*) FROM symbols s WHERE s.file_id = f.id AND s.kind IN ('variable', 'constant')) AS var_count,
         (SELECT count(*) FROM symbols s WHERE s.file_id = f.id) AS sym_count
       FROM files f ${clause}
       ORDER BY f.${ORDER_COLUMNS[q.orderBy]} ${q.order === 'asc' ? 'ASC' : 'DESC'}, f.path
       ${pageClause(q.limit, q.offset)}`,
    ).all(...params) as (FileRow & { deps: string; fn_count: number; class_count: number; var_count: number; sym_count: number })[];
    return {
      total,
      items: rows.map((r) => ({
        ...toRecord(r),
        dependencies: (JSON.parse(r.deps) as (string | null)[]).filter((d): d is string => !!d),
        functionCount: r.fn_count,
        classCount: r.class_count,
        variableCount: r.var_count,
        symbolCount: r.sym_count,
      })),
    };
  }

  /** The file's text as indexed: chunks are contiguous and cover the whole file. */
  content(fileId: number): string {
    const rows = this.db.prepare('SELECT content FROM chunks WHERE file_id = ? ORDER BY seq').all(fileId) as { content: string }[];
    return rows.map((r) => r.content).join('\n');
  }

  symbols(fileId: number): (ParsedSymbol & { id: number })[] {
    const rows = this.db.prepare('SELECT * FROM symbols WHERE file_id = ? ORDER BY start_line').all(fileId) as {
      id: number; name: string; kind: ParsedSymbol['kind']; parent: string | null; start_line: number; end_line: number;
      exported: number; signature: string | null; doc: string | null;
    }[];
    return rows.map((r) => ({
      id: r.id, name: r.name, kind: r.kind, parent: r.parent, startLine: r.start_line, endLine: r.end_line,
      exported: r.exported === 1, signature: r.signature, doc: r.doc,
    }));
  }

  imports(fileId: number): ParsedImport[] {
    const rows = this.db.prepare('SELECT * FROM imports WHERE file_id = ? ORDER BY line, id').all(fileId) as {
      specifier: string; kind: ParsedImport['kind']; type_only: number; target_path: string | null; package: string | null;
      names: string | null; line: number;
    }[];
    return rows.map((r) => ({
      specifier: r.specifier, kind: r.kind, typeOnly: r.type_only === 1, targetPath: r.target_path,
      packageName: r.package, names: r.names ? (JSON.parse(r.names) as string[]) : [], line: r.line,
    }));
  }

  /**
   * Imports to resolve again: those that did not resolve, or whose target file is gone; with `languages`, all
   * imports of the files of those languages (a file that decides their resolution changed: resolution-config.ts).
   * With what they resolve to now.
   */
  staleImports(repoId: string, languages?: readonly string[]): StaleImportRow[] {
    const select = `SELECT i.id, f.path AS filePath, f.language, i.specifier, i.kind, i.target_path AS targetPath, i.package AS packageName
       FROM imports i JOIN files f ON f.id = i.file_id WHERE f.repo_id = ?`;
    if (languages) return this.db.prepare(`${select} AND f.language IN (SELECT value FROM json_each(?))`).all(repoId, JSON.stringify(languages)) as StaleImportRow[];
    return this.db.prepare(
      `${select} AND (
         (i.target_path IS NULL AND i.package IS NULL)
         OR (i.target_path IS NOT NULL AND NOT EXISTS (SELECT 1 FROM files t WHERE t.repo_id = f.repo_id AND t.path = i.target_path)))`,
    ).all(repoId) as StaleImportRow[];
  }

  /** The indexed files of some languages. */
  filesOfLanguages(repoId: string, languages: readonly string[]): { id: number; path: string }[] {
    return this.db.prepare('SELECT id, path FROM files WHERE repo_id = ? AND language IN (SELECT value FROM json_each(?)) ORDER BY path')
      .all(repoId, JSON.stringify(languages)) as { id: number; path: string }[];
  }

  setImportTarget(updates: { id: number; targetPath: string | null; packageName: string | null }[]): void {
    const stmt = this.db.prepare('UPDATE imports SET target_path = ?, package = ? WHERE id = ?');
    this.db.transaction(() => {
      for (const u of updates) stmt.run(u.targetPath, u.packageName, u.id);
    })();
  }

  /**
   * Files of one language whose indexed text holds one of `words` (lower case) as a whole word, case
   * ignored. A few words are looked up through the trigram index first; many (a branch switch) scan the
   * language's files. Each candidate (not in `exclude`; in one of `folders` when given: a Go package's
   * siblings) is confirmed by splitting its text into words.
   */
  filesMentioning(repoId: string, language: string, words: ReadonlySet<string>, exclude: ReadonlySet<string> = new Set(), folders?: ReadonlySet<string>): { id: number; path: string }[] {
    if (!words.size) return [];
    let rows: { id: number; path: string }[];
    const lists = words.size <= 32 ? [...words].map(literalTrigrams) : [null];
    if (lists.every((l) => l !== null)) {
      const chunks = new TrigramIndex(this.db).chunksWithAll(lists as number[][]);
      rows = this.db.prepare(
        `SELECT f.id, f.path FROM chunks c JOIN files f ON f.id = c.file_id
         WHERE c.id IN (SELECT value FROM json_each(?)) AND f.repo_id = ? AND f.language = ?
         UNION
         SELECT f.id, f.path FROM chunks c JOIN files f ON f.id = c.file_id
         WHERE c.id >= (SELECT from_id FROM trigram_backlog) AND f.repo_id = ? AND f.language = ?`,
      ).all(JSON.stringify(chunks), repoId, language, repoId, language) as { id: number; path: string }[];
    } else {
      rows = this.db.prepare('SELECT id, path FROM files WHERE repo_id = ? AND language = ?').all(repoId, language) as { id: number; path: string }[];
    }
    return rows
      .filter((r) => !exclude.has(r.path) && (!folders || folders.has(path.posix.dirname(r.path))) && mentionsAny(this.content(r.id), words))
      .sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  /**
   * Puts a file's import edges in place of its stored ones (its text unchanged: names it uses resolve
   * differently). Only files whose edges differ are written; the repository's generation moves once.
   */
  replaceImports(repoId: string, updates: { path: string; imports: ParsedImport[] }[]): number {
    const key = (list: ParsedImport[]) => JSON.stringify(list.map((i) => [i.specifier, i.kind, i.typeOnly, i.targetPath, i.packageName, i.names, i.line]).sort());
    const insertImport = this.db.prepare(
      `INSERT INTO imports (file_id, specifier, kind, type_only, target_path, package, names, line)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    let written = 0;
    this.db.transaction(() => {
      for (const u of updates) {
        const row = this.db.prepare('SELECT id FROM files WHERE repo_id = ? AND path = ?').get(repoId, u.path) as { id: number } | undefined;
        if (!row || key(this.imports(row.id)) === key(u.imports)) continue;
        this.db.prepare('DELETE FROM imports WHERE file_id = ?').run(row.id);
        for (const i of u.imports) {
          insertImport.run(row.id, i.specifier, i.kind, i.typeOnly ? 1 : 0, i.targetPath, i.packageName,
            i.names.length ? JSON.stringify(i.names) : null, i.line);
        }
        written++;
      }
      // Inserted and deleted edges fire no trigger (only a relinked target does): analyses cached by
      // generation must see the new edges.
      if (written) {
        this.db.prepare(
          `INSERT INTO repo_generations (repo_id, generation) VALUES (?, 1)
           ON CONFLICT (repo_id) DO UPDATE SET generation = generation + 1`,
        ).run(repoId);
      }
    })();
    return written;
  }

  /** The files imported by the most other files of the repository. */
  mostImported(repoId: string, limit: number): { file_path: string; dependents: number }[] {
    return this.db.prepare(
      `SELECT i.target_path AS file_path, count(DISTINCT i.file_id) AS dependents FROM imports i JOIN files f ON f.id = i.file_id
       WHERE f.repo_id = ? AND i.target_path IS NOT NULL GROUP BY i.target_path ORDER BY dependents DESC, file_path LIMIT ?`,
    ).all(repoId, limit) as { file_path: string; dependents: number }[];
  }

}

/** What the engine programs against; SqliteFilesStore is the implementation on SQLite. */
export type FilesStore = Surface<SqliteFilesStore>;

/** The first chunk id of the words index's backlog (migration 016): chunks from it up have no chunks_fts rows; none: past every id. */
function ftsBacklogFrom(db: Db): number {
  const row = db.prepare('SELECT from_id AS fromId FROM fts_backlog WHERE id = 1').get() as { fromId: number } | undefined;
  return row ? row.fromId : Number.MAX_SAFE_INTEGER;
}

/**
 * The backlog's chunks_fts rows from the chunks themselves, with the words writeOne gives a row (its path, its
 * symbols and its text, each followed by their identifiers' sub-words: `loupe_words`, identifierWords).
 */
const FTS_FILL_SQL = `INSERT INTO chunks_fts (rowid, path, symbols, body)
  SELECT c.id, f.path || ' ' || loupe_words(f.path),
    CASE WHEN c.symbols IS NULL THEN '' ELSE c.symbols || ' ' || loupe_words(c.symbols) END,
    c.content || char(10) || loupe_words(c.content)
  FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id >= ? AND c.id < ?`;

/**
 * The backlogs of the two text indexes: grep's trigram index (migrations 015, 027: every chunk waits for
 * `fillTrigram`, which builds its posting lists in bulk; store/trigram-index.ts) and the words index of a
 * large run (016: `fillFts` by `INSERT … SELECT`). SQLite only (not part of FilesStore's surface): the index
 * writer uses it.
 */
export class TrigramBacklog {
  private readonly trigrams: TrigramIndex;

  constructor(private readonly db: Db) {
    this.trigrams = new TrigramIndex(db);
    // For FTS_FILL_SQL: the identifiers' sub-words, as writeOne adds them.
    db.function('loupe_words', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? identifierWords(text) : ''));
  }

  /**
   * From now on, chunks written get their words index (chunks_fts) rows later, in bulk (`fillFts`; migration
   * 016): a large run's rows added by `INSERT … SELECT` after each batch cost a fraction of one insert per
   * chunk. (Their trigram rows always wait for `fillTrigram`: migration 027.)
   */
  deferWordsIndex(): void {
    this.db.transaction(() => {
      this.db.prepare('INSERT OR IGNORE INTO fts_backlog (id, from_id) SELECT 1, coalesce(max(id), 0) + 1 FROM chunks').run();
    })();
  }

  /**
   * Adds the chunks_fts rows of up to `maxChunks` chunks of the words index's backlog, in one transaction.
   * `finish`: once every chunk has its rows the backlog goes (writes keep the index row by row again);
   * otherwise it stays, moved past the last chunk (a run's later files are deferred too). True once every
   * chunk written so far has its rows.
   */
  fillFts(maxChunks: number, finish: boolean): boolean {
    let caughtUp = false;
    this.db.transaction(() => {
      const row = this.db.prepare('SELECT from_id AS fromId FROM fts_backlog WHERE id = 1').get() as { fromId: number } | undefined;
      if (!row) { caughtUp = true; return; }
      const top = (this.db.prepare('SELECT coalesce(max(id), 0) AS top FROM chunks').get() as { top: number }).top;
      const until = Math.min(row.fromId + maxChunks, top + 1);
      if (until > row.fromId) this.db.prepare(FTS_FILL_SQL).run(row.fromId, until);
      caughtUp = until > top;
      if (caughtUp && finish) this.db.prepare('DELETE FROM fts_backlog WHERE id = 1').run();
      else if (until > row.fromId) this.db.prepare('UPDATE fts_backlog SET from_id = ? WHERE id = 1').run(until);
    })();
    return caughtUp;
  }

  /**
   * Adds the trigram rows of up to `maxChunks` chunks of the backlog as one segment (store/trigram-index.ts),
   * in one transaction; true once the backlog is empty. The segments are merged once they are many.
   */
  fillTrigram(maxChunks: number): boolean {
    let empty = false;
    let added = false;
    this.db.transaction(() => {
      const fromId = this.trigramFrom();
      const top = (this.db.prepare('SELECT coalesce(max(id), 0) AS top FROM chunks').get() as { top: number }).top;
      const until = Math.min(fromId + maxChunks, top + 1);
      if (until > fromId) {
        this.trigrams.addSegment(fromId, until);
        this.db.prepare('INSERT OR REPLACE INTO trigram_backlog (id, from_id) VALUES (1, ?)').run(until);
        added = true;
      }
      empty = until > top;
    })();
    if (added && empty && this.trigrams.shouldMerge()) this.db.transaction(() => this.trigrams.merge())();
    return empty;
  }

  /** Chunks waiting for their trigram rows. */
  chunksWaiting(): number {
    return this.db.prepare('SELECT count(*) FROM chunks WHERE id >= ?').pluck().get(this.trigramFrom()) as number;
  }

  private trigramFrom(): number {
    return (this.db.prepare('SELECT from_id FROM trigram_backlog WHERE id = 1').pluck().get() as number | undefined) ?? 1;
  }

  /** Whether chunks are waiting for their words index (chunks_fts) rows. */
  ftsPending(): boolean {
    return !!this.db.prepare('SELECT 1 FROM fts_backlog WHERE id = 1').get();
  }
}
