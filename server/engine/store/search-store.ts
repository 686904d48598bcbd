import type { Db } from './db';
import { repoGeneration } from './analysis-store';
import type { ParsedSymbol, SymbolKind } from '../types';
import type { Surface } from './surface';
import { literalTrigrams, TrigramIndex } from './trigram-index';

/** A file as search sees it: enough to filter, rank and label a hit. */
export interface SearchFileRow {
  id: number;
  repoId: string;
  path: string;
  language: string | null;
  lines: number;
  description: string | null;
  /** Written by a tool (files.generated): ranked below source unless asked for (search/file-role.ts). */
  generated: boolean;
}

const FILE_ROW = 'f.id, f.repo_id AS repoId, f.path, f.language, f.lines, f.description, f.generated';
type SqliteFileRow = Omit<SearchFileRow, 'generated'> & { generated: number };
const fileRow = (r: SqliteFileRow): SearchFileRow => ({ ...r, generated: r.generated === 1 });

export interface ChunkRow {
  id: number;
  fileId: number;
  startLine: number;
  endLine: number;
  symbols: string | null;
  content: string;
}

export interface SymbolRow extends ParsedSymbol {
  id: number;
  fileId: number;
}

/** The filters that SQL answers; file types and path globs are applied by the caller. */
export interface FileFilterSql {
  dependencies?: string[];
  functionNames?: string[];
  hasFunctions?: boolean;
  minLines?: number;
  maxLines?: number;
  /** public: files that export something; private: files that have symbols and export none. */
  visibility?: 'public' | 'private';
}

const FUNCTION_KINDS = "('function', 'method')";

/** Every read lexical, grep and semantic search make. Ids cross the boundary as JSON arrays. */
export class SqliteSearchStore {
  constructor(private readonly db: Db) {}

  /** The repositories' generations (bumped by every write to their files): a listing keyed by them is current. */
  generations(repoIds: string[]): number[] {
    return repoIds.map((id) => repoGeneration(this.db, id));
  }

  /** The files of the given repositories that pass the SQL-side filters. */
  files(repoIds: string[], filter: FileFilterSql = {}): SearchFileRow[] {
    const where = ['f.repo_id IN (SELECT value FROM json_each(?))'];
    const params: unknown[] = [JSON.stringify(repoIds)];
    if (filter.minLines !== undefined) { where.push('f.lines >= ?'); params.push(filter.minLines); }
    if (filter.maxLines !== undefined) { where.push('f.lines <= ?'); params.push(filter.maxLines); }
    if (filter.hasFunctions !== undefined) {
      where.push(`${filter.hasFunctions ? '' : 'NOT '}EXISTS (SELECT 1 FROM symbols s WHERE s.file_id = f.id AND s.kind IN ${FUNCTION_KINDS})`);
    }
    if (filter.functionNames?.length) {
      where.push(`EXISTS (SELECT 1 FROM symbols s WHERE s.file_id = f.id AND s.kind IN ${FUNCTION_KINDS}
        AND lower(s.name) IN (SELECT lower(value) FROM json_each(?)))`);
      params.push(JSON.stringify(filter.functionNames));
    }
    if (filter.dependencies?.length) {
      // A dependency is named by package (`lodash`), by specifier (`./util`) or by the path it resolves to.
      where.push(`EXISTS (SELECT 1 FROM imports i WHERE i.file_id = f.id AND (
        i.package IN (SELECT value FROM json_each(?)) OR i.specifier IN (SELECT value FROM json_each(?))
        OR i.target_path IN (SELECT value FROM json_each(?))))`);
      const deps = JSON.stringify(filter.dependencies);
      params.push(deps, deps, deps);
    }
    if (filter.visibility === 'public') where.push('EXISTS (SELECT 1 FROM symbols s WHERE s.file_id = f.id AND s.exported = 1)');
    if (filter.visibility === 'private') {
      where.push('EXISTS (SELECT 1 FROM symbols s WHERE s.file_id = f.id) AND NOT EXISTS (SELECT 1 FROM symbols s WHERE s.file_id = f.id AND s.exported = 1)');
    }
    return (this.db.prepare(
      `SELECT ${FILE_ROW} FROM files f WHERE ${where.join(' AND ')}`,
    ).all(...params) as SqliteFileRow[]).map(fileRow);
  }

  private filesAll(repoIds: string[]): number[] {
    return (this.db.prepare('SELECT id FROM files WHERE repo_id IN (SELECT value FROM json_each(?))').all(JSON.stringify(repoIds)) as { id: number }[]).map((r) => r.id);
  }

  /**
   * Text files the indexer left out (generated, minified, oversized) that grep_code still scans from
   * disk, as ripgrep reads them. Binary ones are not listed: ripgrep prints nothing from a file with a
   * NUL byte in its first 64 KiB, and the indexer calls a file binary for one in its first 8,000 bytes.
   */
  unindexedFiles(repoIds: string[]): { id: number; repoId: string; path: string }[] {
    return this.db.prepare(
      `SELECT id, repo_id AS repoId, path FROM skipped_files
       WHERE repo_id IN (SELECT value FROM json_each(?)) AND reason IN ('generated', 'oversized')`,
    ).all(JSON.stringify(repoIds)) as { id: number; repoId: string; path: string }[];
  }

  filesByIds(ids: number[]): SearchFileRow[] {
    return (this.db.prepare(
      `SELECT ${FILE_ROW} FROM files f WHERE f.id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(ids)) as SqliteFileRow[]).map(fileRow);
  }

  /**
   * BM25 over chunks_fts (columns path, symbols, body): the best `limit` chunks of the given
   * repositories (and, when `accept` is given, of the files it accepts). `match` is an FTS5 expression
   * built by the query parser. Lower bm25() is better; it is returned negated so that higher is better.
   *
   * The full-text index is ranked alone first, and its best rows are then placed in their files and
   * repositories: joining chunks and files inside the ranked query looks both up for every matching
   * row (thousands for a common word), two thirds of the time. That answers whenever the rows asked
   * for are among the best of the whole index (one repository, or filters that keep most files).
   * Otherwise the ranked query is run again with the joins, in one pass, as it was before.
   */
  lexical(
    match: string, repoIds: string[], limit: number, weights: [number, number, number], accept?: (fileId: number) => boolean,
  ): { chunkId: number; fileId: number; score: number }[] {
    const scope = new Set(repoIds);
    const [wPath, wSymbols, wBody] = weights.map(Number);
    const rank = `bm25(chunks_fts, ${wPath}, ${wSymbols}, ${wBody})`;
    // An integer written into the SQL: a bound LIMIT makes SQLite recompile the statement at every run.
    const fetch = Math.trunc(accept ? limit * 2 : limit);
    const rows = this.db.prepare(
      `SELECT rowid AS chunkId, -${rank} AS score FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY ${rank} LIMIT ${fetch}`,
    ).all(match) as { chunkId: number; score: number }[];
    const places = new Map((this.db.prepare(
      `SELECT c.id, c.file_id AS fileId, f.repo_id AS repoId FROM chunks c JOIN files f ON f.id = c.file_id
       WHERE c.id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(rows.map((r) => r.chunkId))) as { id: number; fileId: number; repoId: string }[]).map((p) => [p.id, p]));
    const out: { chunkId: number; fileId: number; score: number }[] = [];
    for (const r of rows) {
      const place = places.get(r.chunkId);
      if (!place || !scope.has(place.repoId) || (accept && !accept(place.fileId))) continue;
      out.push({ chunkId: r.chunkId, fileId: place.fileId, score: r.score });
      if (out.length === limit) return out;
    }
    if (rows.length < fetch) return out;
    out.length = 0;
    const joined = this.db.prepare(
      `SELECT c.id AS chunkId, c.file_id AS fileId, -${rank} AS score
       FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id
       WHERE chunks_fts MATCH ? AND f.repo_id IN (SELECT value FROM json_each(?)) ORDER BY ${rank}`,
    ).iterate(match, JSON.stringify(repoIds)) as IterableIterator<{ chunkId: number; fileId: number; score: number }>;
    for (const r of joined) {
      if (accept && !accept(r.fileId)) continue;
      out.push(r);
      if (out.length === limit) break;
    }
    return out;
  }

  /** Chunks without their text: what ranking needs (a chunk's text is read only for those returned). */
  chunkPlaces(ids: number[]): Omit<ChunkRow, 'content'>[] {
    return this.db.prepare(
      `SELECT id, file_id AS fileId, start_line AS startLine, end_line AS endLine, symbols FROM chunks
       WHERE id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(ids)) as Omit<ChunkRow, 'content'>[];
  }

  /** The text of some chunks, by id. */
  chunkContents(ids: number[]): Map<number, string> {
    const rows = this.db.prepare('SELECT id, content FROM chunks WHERE id IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(ids)) as { id: number; content: string }[];
    return new Map(rows.map((r) => [r.id, r.content]));
  }

  /**
   * Files with a chunk that holds every trigram of every one of `literals` (case-folded, as the
   * trigram index folds case; store/trigram-index.ts), and the files of the index's backlog. A superset
   * of the files that match: the caller confirms by scanning.
   */
  trigramFiles(repoIds: string[], literals: string[]): number[] {
    const tris = new Set(literals.flatMap((literal) => literalTrigrams(literal) ?? []));
    if (!tris.size) return this.filesAll(repoIds);
    const chunks = new TrigramIndex(this.db).chunksWithAll([[...tris]]);
    const rows = this.db.prepare(
      `SELECT c.file_id AS id FROM chunks c JOIN files f ON f.id = c.file_id
       WHERE c.id IN (SELECT value FROM json_each(?)) AND f.repo_id IN (SELECT value FROM json_each(?))
       UNION
       SELECT c.file_id FROM chunks c JOIN files f ON f.id = c.file_id
       WHERE c.id >= (SELECT from_id FROM trigram_backlog) AND f.repo_id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(chunks), JSON.stringify(repoIds), JSON.stringify(repoIds)) as { id: number }[];
    return rows.map((r) => r.id);
  }

  /** Symbols of the given files, optionally of some kinds only. */
  symbols(fileIds: number[], kinds?: SymbolKind[]): SymbolRow[] {
    const rows = this.db.prepare(
      `SELECT id, file_id AS fileId, name, kind, parent, start_line AS startLine, end_line AS endLine, exported, signature, doc
       FROM symbols WHERE file_id IN (SELECT value FROM json_each(?))
       AND (? IS NULL OR kind IN (SELECT value FROM json_each(?))) ORDER BY file_id, start_line`,
    ).all(JSON.stringify(fileIds), kinds ? 1 : null, JSON.stringify(kinds ?? [])) as (Omit<SymbolRow, 'exported'> & { exported: number })[];
    return rows.map((r) => ({ ...r, exported: r.exported === 1 }));
  }

  /** Symbols named exactly one of `names` (case-insensitive) in the given repositories. */
  symbolsNamed(repoIds: string[], names: string[]): SymbolRow[] {
    const rows = this.db.prepare(
      `SELECT s.id, s.file_id AS fileId, s.name, s.kind, s.parent, s.start_line AS startLine, s.end_line AS endLine, s.exported,
         s.signature, s.doc
       FROM symbols s JOIN files f ON f.id = s.file_id
       WHERE s.name IN (SELECT value FROM json_each(?)) AND f.repo_id IN (SELECT value FROM json_each(?))
       LIMIT 500`,
    ).all(JSON.stringify(names), JSON.stringify(repoIds)) as (Omit<SymbolRow, 'exported'> & { exported: number })[];
    return rows.map((r) => ({ ...r, exported: r.exported === 1 }));
  }

  /** The text each file's documentation is grepped in when no generated doc exists: description and doc comments. */
  docSources(fileIds: number[]): { fileId: number; description: string | null; docs: string | null }[] {
    return this.db.prepare(
      `SELECT f.id AS fileId, f.description,
         (SELECT group_concat(s.name || ': ' || replace(s.doc, char(10), ' '), char(10)) FROM symbols s
          WHERE s.file_id = f.id AND s.doc IS NOT NULL) AS docs
       FROM files f WHERE f.id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(fileIds)) as { fileId: number; description: string | null; docs: string | null }[];
  }

  /** All chunk ids of the given repositories (for counting work). */
  chunkCount(repoIds: string[]): number {
    return (this.db.prepare(
      'SELECT count(*) AS n FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.repo_id IN (SELECT value FROM json_each(?))',
    ).get(JSON.stringify(repoIds)) as { n: number }).n;
  }

}

/** What the engine programs against; SqliteSearchStore is the implementation on SQLite. */
export type SearchStore = Surface<SqliteSearchStore>;
