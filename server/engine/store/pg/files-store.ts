import path from 'node:path';
import type { FileRecord, ParsedFile, ParsedImport, ParsedSymbol } from '../../types';
import { nowIso } from '../../util/ids';
import { fileUid, type FileListItem, type FileListQuery, type FilesStore, type Fingerprint, type SkippedFile, type StaleImportRow } from '../files-store';
import type { Async } from '../surface';
import { bulkInsert, Issued, pgText } from './copy';
import { lexicalRows, unindexFiles, writeLexicalRows, type ChunkToIndex } from './fts-write';
import { likeEscape, type PgSql } from './sql';
import { mentionsAny } from '../../util/mentions';

export type FileRow = {
  id: number; uid: string; repo_id: string; path: string; name: string; language: string | null; size: number;
  lines: number; hash: string; mtime_ms: number; description: string | null; indexed_at: string;
};

export const toRecord = (r: FileRow): FileRecord => ({
  id: r.id, uid: r.uid, repoId: r.repo_id, path: r.path, name: r.name, language: r.language, size: r.size,
  lines: r.lines, hash: r.hash, mtimeMs: r.mtime_ms, description: r.description, indexedAt: r.indexed_at,
});

export const FILE_COLUMNS = 'id, uid, repo_id, path, name, language, size, lines, hash, mtime_ms, description, indexed_at';

/** Text columns order as SQLite's BINARY collation does; NULL first ascending. */
const ORDER_COLUMNS: Record<FileListQuery['orderBy'], string> = {
  file_path: 'path COLLATE "C"', file_name: 'name COLLATE "C"', total_lines: 'lines', size: 'size', language: 'language COLLATE "C"', indexed_at: 'indexed_at COLLATE "C"',
};

export type ImportRow = {
  id: number; specifier: string; kind: ParsedImport['kind']; type_only: boolean; target_path: string | null; package: string | null;
  names: string | null; line: number;
};
export const toImport = (r: ImportRow): ParsedImport => ({
  specifier: r.specifier, kind: r.kind, typeOnly: r.type_only, targetPath: r.target_path,
  packageName: r.package, names: r.names ? (JSON.parse(r.names) as string[]) : [], line: r.line,
});

export type SymbolRow = {
  id: number; name: string; kind: ParsedSymbol['kind']; parent: string | null; start_line: number; end_line: number;
  exported: boolean; signature: string | null; doc: string | null;
};
export const toSymbol = (r: SymbolRow): ParsedSymbol & { id: number } => ({
  id: r.id, name: r.name, kind: r.kind, parent: r.parent, startLine: r.start_line, endLine: r.end_line,
  exported: r.exported, signature: r.signature, doc: r.doc,
});

/** Files, their symbols, edges, chunks and lexical rows on PostgreSQL: SqliteFilesStore's surface, awaited. */
export class PgFilesStore implements Async<FilesStore> {
  constructor(private readonly db: PgSql) {}

  async fingerprints(repoId: string): Promise<Map<string, Fingerprint>> {
    const rows = await this.db.rows<{ id: number; path: string; size: number; mtime_ms: number; hash: string }>(
      'SELECT id, path, size, mtime_ms, hash FROM files WHERE repo_id = $1', [repoId]);
    return new Map(rows.map((r) => [r.path, { id: r.id, size: r.size, mtimeMs: r.mtime_ms, hash: r.hash }]));
  }

  /**
   * Writes parsed files in one transaction, set by set: a statement per table for the whole batch, not
   * one per row, since every statement is a round trip to the server. The files are an upsert (their
   * ids come back); symbols, imports, chunks and the lexical rows go through COPY FROM STDIN (pg/copy.ts:
   * no value quoted into an array literal and parsed back), the chunks with ids taken from their
   * sequence first, so that their postings can be copied in the same round.
   */
  async writeBatch(repoId: string, files: ParsedFile[]): Promise<number[]> {
    if (!files.length) return [];
    const given = files;
    // One upsert cannot touch a row twice: a path given twice is written once, as its last entry.
    files = [...new Map(files.map((f) => [f.path, f])).values()];
    return this.db.transaction(async () => {
      const issued = new Issued();
      const { issue } = issued;
      try {
        const ids = await this.writeFiles(repoId, files, issue);
        await issued.done();
        return given.map((f) => ids.get(f.path)!);
      } catch (error) {
        await issued.done({ error });
        throw error;
      }
    });
  }

  /**
   * writeBatch's statements, each handed to the connection as soon as what it needs is known: the
   * client makes the next one (the chunks' postings: the tokenizer's work) while the server runs the
   * ones before it. Answers the files' ids by path.
   */
  private async writeFiles(repoId: string, files: ParsedFile[], issue: <T>(p: Promise<T>) => Promise<T>): Promise<Map<string, number>> {
    const paths = files.map((f) => f.path);
    issue(this.db.query('DELETE FROM skipped_files WHERE repo_id = $1 AND path = ANY($2::text[])', [repoId, paths]));
    // Files indexed before keep their ids (an upsert): their old symbols, edges, chunks and lexical rows
    // go first. A cold index has none, and skips those deletes.
    const before = (await issue(this.db.rows<{ id: number }>('SELECT id FROM files WHERE repo_id = $1 AND path = ANY($2::text[])', [repoId, paths]))).map((r) => r.id);
    if (before.length) await this.clearChildren(repoId, before);
    const chunkCount = files.reduce((n, f) => n + f.chunks.length, 0);
    // The chunks' ids from their sequence, so that the chunks, their postings and lengths are each one COPY.
    const chunkIds = chunkCount ? issue(this.db.rows<{ id: number }>(
      "SELECT nextval(pg_get_serial_sequence('chunks', 'id'))::int AS id FROM generate_series(1, $1)", [chunkCount])) : Promise.resolve([]);
    const now = nowIso();
    const written = await issue(this.db.rows<{ id: number; path: string }>(
      `INSERT INTO files (uid, repo_id, path, name, language, size, lines, hash, mtime_ms, description, indexed_at, generated, unit, holds_tests)
       SELECT f.uid, $1, f.path, f.name, f.language, f.size, f.lines, f.hash, f.mtime, f.description, $2, f.generated, f.unit, f.holds_tests
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::float8[], $8::int[], $9::text[], $10::float8[], $11::text[], $12::bool[], $13::text[], $14::bool[])
         AS f(uid, path, name, language, size, lines, hash, mtime, description, generated, unit, holds_tests)
       ON CONFLICT (repo_id, path) DO UPDATE SET language = excluded.language, size = excluded.size,
         lines = excluded.lines, hash = excluded.hash, mtime_ms = excluded.mtime_ms,
         description = excluded.description, indexed_at = excluded.indexed_at, generated = excluded.generated, unit = excluded.unit,
         holds_tests = excluded.holds_tests
       RETURNING id, path`,
      [repoId, now, files.map((f) => fileUid(repoId, f.path)), paths, paths.map((p) => p.slice(p.lastIndexOf('/') + 1)),
        files.map((f) => f.language), files.map((f) => f.size), files.map((f) => f.lines), files.map((f) => f.hash),
        files.map((f) => Math.trunc(f.mtimeMs)), files.map((f) => pgText(f.description)), files.map((f) => f.generated), files.map((f) => f.unit), files.map((f) => f.holdsTests ?? false)],
    ));
    const idOf = new Map(written.map((r) => [r.path, r.id]));
    const ids = files.map((f) => idOf.get(f.path)!);

    const symbols = files.flatMap((f, i) => f.symbols.map((s) => ({ fileId: ids[i]!, s })));
    issue(bulkInsert(this.db, 'symbols', [
      { name: 'file_id', type: 'int', values: symbols.map((x) => x.fileId) }, { name: 'name', type: 'text', values: symbols.map((x) => x.s.name) },
      { name: 'kind', type: 'text', values: symbols.map((x) => x.s.kind) }, { name: 'parent', type: 'text', values: symbols.map((x) => x.s.parent) },
      { name: 'start_line', type: 'int', values: symbols.map((x) => x.s.startLine) }, { name: 'end_line', type: 'int', values: symbols.map((x) => x.s.endLine) },
      { name: 'exported', type: 'bool', values: symbols.map((x) => x.s.exported) }, { name: 'signature', type: 'text', values: symbols.map((x) => x.s.signature) },
      { name: 'doc', type: 'text', values: symbols.map((x) => x.s.doc) },
    ]));
    issue(this.insertImports(files.flatMap((f, i) => f.imports.map((imp) => ({ fileId: ids[i]!, imp })))));

    if (chunkCount) {
      const chunkId = (await chunkIds).map((r) => r.id);
      const chunks = files.flatMap((f, i) => f.chunks.map((c, seq) => ({ fileId: ids[i]!, path: f.path, seq, c })));
      issue(bulkInsert(this.db, 'chunks', [
        { name: 'id', type: 'int', values: chunkId }, { name: 'file_id', type: 'int', values: chunks.map((x) => x.fileId) },
        { name: 'seq', type: 'int', values: chunks.map((x) => x.seq) }, { name: 'start_line', type: 'int', values: chunks.map((x) => x.c.startLine) },
        { name: 'end_line', type: 'int', values: chunks.map((x) => x.c.endLine) },
        { name: 'symbols', type: 'text', values: chunks.map((x) => x.c.symbols.join(' ') || null) },
        { name: 'content', type: 'text', values: chunks.map((x) => x.c.content) },
      ]));
      // While the server writes the chunks (and their trigram index), the client makes their postings.
      const lexical = lexicalRows(chunks.map((x, i): ChunkToIndex => ({
        id: chunkId[i]!, fileId: x.fileId, path: x.path, symbols: x.c.symbols, content: x.c.content,
      })));
      writeLexicalRows(this.db, repoId, lexical, issue);
    }
    return idOf;
  }

  private async insertImports(rows: { fileId: number; imp: ParsedImport }[]): Promise<void> {
    await bulkInsert(this.db, 'imports', [
      { name: 'file_id', type: 'int', values: rows.map((x) => x.fileId) }, { name: 'specifier', type: 'text', values: rows.map((x) => x.imp.specifier) },
      { name: 'kind', type: 'text', values: rows.map((x) => x.imp.kind) }, { name: 'type_only', type: 'bool', values: rows.map((x) => x.imp.typeOnly) },
      { name: 'target_path', type: 'text', values: rows.map((x) => x.imp.targetPath) }, { name: 'package', type: 'text', values: rows.map((x) => x.imp.packageName) },
      { name: 'names', type: 'text', values: rows.map((x) => (x.imp.names.length ? JSON.stringify(x.imp.names) : null)) },
      { name: 'line', type: 'int', values: rows.map((x) => x.imp.line) },
    ]);
  }

  private async clearChildren(repoId: string, fileIds: number[]): Promise<void> {
    await unindexFiles(this.db, repoId, fileIds);
    await this.db.query('DELETE FROM chunks WHERE file_id = ANY($1::int[])', [fileIds]);
    await this.db.query('DELETE FROM symbols WHERE file_id = ANY($1::int[])', [fileIds]);
    await this.db.query('DELETE FROM imports WHERE file_id = ANY($1::int[])', [fileIds]);
  }

  async touch(repoId: string, updates: { path: string; mtimeMs: number; size: number }[]): Promise<void> {
    if (!updates.length) return;
    await this.db.query(
      `UPDATE files f SET mtime_ms = u.mtime, size = u.size FROM unnest($2::text[], $3::float8[], $4::float8[]) AS u(path, mtime, size)
       WHERE f.repo_id = $1 AND f.path = u.path`,
      [repoId, updates.map((u) => u.path), updates.map((u) => Math.trunc(u.mtimeMs)), updates.map((u) => u.size)]);
  }

  async deletePaths(repoId: string, paths: string[]): Promise<void> {
    if (!paths.length) return;
    await this.db.transaction(async () => {
      await this.db.query('DELETE FROM skipped_files WHERE repo_id = $1 AND path = ANY($2::text[])', [repoId, paths]);
      await this.unindex(repoId, paths);
    });
  }

  /** Takes files out of the index (rows, symbols, edges, chunks and lexical rows), those that are there. */
  private async unindex(repoId: string, paths: string[]): Promise<void> {
    const ids = (await this.db.rows<{ id: number }>('SELECT id FROM files WHERE repo_id = $1 AND path = ANY($2::text[])', [repoId, paths])).map((r) => r.id);
    if (!ids.length) return;
    await this.clearChildren(repoId, ids);
    await this.db.query('DELETE FROM files WHERE id = ANY($1::int[])', [ids]);
  }

  async recordSkipped(repoId: string, files: SkippedFile[]): Promise<void> {
    if (!files.length) return;
    await this.db.transaction(async () => {
      await this.unindex(repoId, files.map((f) => f.path));
      // The last entry of a path wins, as SQLite's row-by-row upsert leaves it.
      const last = [...new Map(files.map((f) => [f.path, f])).values()];
      await this.db.query(
        `INSERT INTO skipped_files (repo_id, path, size, mtime_ms, reason)
         SELECT $1, * FROM unnest($2::text[], $3::float8[], $4::float8[], $5::text[])
         ON CONFLICT (repo_id, path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, reason = excluded.reason`,
        [repoId, last.map((f) => f.path), last.map((f) => f.size), last.map((f) => Math.trunc(f.mtimeMs)), last.map((f) => f.reason)]);
    });
  }

  async skipped(repoId: string): Promise<Map<string, SkippedFile>> {
    const rows = await this.db.rows<SkippedFile>('SELECT path, size, mtime_ms AS "mtimeMs", reason FROM skipped_files WHERE repo_id = $1', [repoId]);
    return new Map(rows.map((r) => [r.path, r]));
  }

  async count(repoId: string): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT count(*)::int AS n FROM files WHERE repo_id = $1', [repoId]))!.n;
  }

  async getByUid(repoId: string, uid: string): Promise<FileRecord | undefined> {
    const row = await this.db.one<FileRow>(`SELECT ${FILE_COLUMNS} FROM files WHERE repo_id = $1 AND uid = $2`, [repoId, uid]);
    return row && toRecord(row);
  }

  async getByPath(repoId: string, path: string): Promise<FileRecord | undefined> {
    const row = await this.db.one<FileRow>(`SELECT ${FILE_COLUMNS} FROM files WHERE repo_id = $1 AND path = $2`, [repoId, path]);
    return row && toRecord(row);
  }

  async paths(repoId: string): Promise<string[]> {
    return (await this.db.rows<{ path: string }>('SELECT path FROM files WHERE repo_id = $1 ORDER BY path COLLATE "C"', [repoId])).map((r) => r.path);
  }

  async list(q: FileListQuery): Promise<{ items: FileListItem[]; total: number }> {
    const params: unknown[] = [q.repoId];
    let clause = 'WHERE f.repo_id = $1';
    if (q.search) {
      params.push(`%${likeEscape(q.search)}%`);
      clause += ' AND (f.name ILIKE $2 OR f.path ILIKE $2)';
    }
    const total = (await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM files f ${clause}`, params))!.n;
    const rows = await this.db.rows<FileRow & { deps: (string | null)[] | null; fn_count: number; class_count: number; var_count: number; sym_count: number }>(
      `SELECT ${FILE_COLUMNS.split(', ').map((c) => `f.${c}`).join(', ')},
         (SELECT array_agg(DISTINCT coalesce(i.target_path, i.package, i.specifier)) FROM imports i WHERE i.file_id = f.id) AS deps,
         (SELECT count(*)::int FROM symbols s WHERE s.file_id = f.id AND s.kind IN ('function', 'method')) AS fn_count,
         (SELECT count(*)::int FROM symbols s WHERE s.file_id = f.id AND s.kind IN ('class', 'struct', 'interface', 'trait')) AS class_count,
         (SELECT count(*)::int FROM symbols s WHERE s.file_id = f.id AND s.kind IN ('variable', 'constant')) AS var_count,
         (SELECT count(*)::int FROM symbols s WHERE s.file_id = f.id) AS sym_count
       FROM files f ${clause}
       ORDER BY f.${ORDER_COLUMNS[q.orderBy]} ${q.order === 'asc' ? 'ASC NULLS FIRST' : 'DESC NULLS LAST'}, f.path COLLATE "C"
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, q.limit, q.offset],
    );
    return {
      total,
      items: rows.map((r) => ({
        ...toRecord(r),
        dependencies: (r.deps ?? []).filter((d): d is string => !!d),
        functionCount: r.fn_count,
        classCount: r.class_count,
        variableCount: r.var_count,
        symbolCount: r.sym_count,
      })),
    };
  }

  async content(fileId: number): Promise<string> {
    const rows = await this.db.rows<{ content: string }>('SELECT content FROM chunks WHERE file_id = $1 ORDER BY seq', [fileId]);
    return rows.map((r) => r.content).join('\n');
  }

  async symbols(fileId: number): Promise<(ParsedSymbol & { id: number })[]> {
    return (await this.db.rows<SymbolRow>('SELECT * FROM symbols WHERE file_id = $1 ORDER BY start_line, id', [fileId])).map(toSymbol);
  }

  async imports(fileId: number): Promise<ParsedImport[]> {
    return (await this.db.rows<ImportRow>('SELECT * FROM imports WHERE file_id = $1 ORDER BY line, id', [fileId])).map(toImport);
  }

  async staleImports(repoId: string, languages?: readonly string[]): Promise<StaleImportRow[]> {
    const select = `SELECT i.id, f.path AS "filePath", f.language, i.specifier, i.kind, i.target_path AS "targetPath", i.package AS "packageName"
       FROM imports i JOIN files f ON f.id = i.file_id WHERE f.repo_id = $1`;
    if (languages) return this.db.rows<StaleImportRow>(`${select} AND f.language = ANY($2::text[]) ORDER BY i.id`, [repoId, languages]);
    return this.db.rows<StaleImportRow>(
      `${select} AND (
         (i.target_path IS NULL AND i.package IS NULL)
         OR (i.target_path IS NOT NULL AND NOT EXISTS (SELECT 1 FROM files t WHERE t.repo_id = f.repo_id AND t.path = i.target_path)))
       ORDER BY i.id`, [repoId]);
  }

  async filesOfLanguages(repoId: string, languages: readonly string[]): Promise<{ id: number; path: string }[]> {
    return this.db.rows<{ id: number; path: string }>('SELECT id, path FROM files WHERE repo_id = $1 AND language = ANY($2::text[]) ORDER BY path', [repoId, languages]);
  }

  async setImportTarget(updates: { id: number; targetPath: string | null; packageName: string | null }[]): Promise<void> {
    if (!updates.length) return;
    await this.db.query(
      `UPDATE imports i SET target_path = u.target, package = u.package FROM unnest($1::int[], $2::text[], $3::text[]) AS u(id, target, package)
       WHERE i.id = u.id`,
      [updates.map((u) => u.id), updates.map((u) => u.targetPath), updates.map((u) => u.packageName)]);
  }

  /**
   * Files of one language whose indexed text holds one of `words` (lower case) as a whole word. A few
   * words are looked up through the trigram index (one ILIKE each, OR-ed: a bitmap of GIN scans);
   * many scan the language's files. Each candidate is confirmed by splitting its text into words.
   */
  async filesMentioning(repoId: string, language: string, words: ReadonlySet<string>, exclude: ReadonlySet<string> = new Set(), folders?: ReadonlySet<string>): Promise<{ id: number; path: string }[]> {
    if (!words.size) return [];
    let rows: { id: number; path: string }[];
    if (words.size <= 32 && [...words].every((w) => w.length >= 3)) {
      const likes = [...words].map((w) => `%${likeEscape(w)}%`);
      rows = await this.db.rows<{ id: number; path: string }>(
        `SELECT DISTINCT f.id, f.path FROM chunks c JOIN files f ON f.id = c.file_id
         WHERE f.repo_id = $1 AND f.language = $2 AND (${likes.map((_, i) => `c.content ILIKE $${i + 3}`).join(' OR ')})`,
        [repoId, language, ...likes]);
    } else {
      rows = await this.db.rows<{ id: number; path: string }>('SELECT id, path FROM files WHERE repo_id = $1 AND language = $2', [repoId, language]);
    }
    const out: { id: number; path: string }[] = [];
    for (const r of rows) {
      if (exclude.has(r.path) || (folders && !folders.has(path.posix.dirname(r.path)))) continue;
      if (mentionsAny(await this.content(r.id), words)) out.push(r);
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  async replaceImports(repoId: string, updates: { path: string; imports: ParsedImport[] }[]): Promise<number> {
    const key = (list: ParsedImport[]) => JSON.stringify(list.map((i) => [i.specifier, i.kind, i.typeOnly, i.targetPath, i.packageName, i.names, i.line]).sort());
    return this.db.transaction(async () => {
      let written = 0;
      for (const u of updates) {
        const row = await this.db.one<{ id: number }>('SELECT id FROM files WHERE repo_id = $1 AND path = $2', [repoId, u.path]);
        if (!row || key(await this.imports(row.id)) === key(u.imports)) continue;
        await this.db.query('DELETE FROM imports WHERE file_id = $1', [row.id]);
        await this.insertImports(u.imports.map((imp) => ({ fileId: row.id, imp })));
        written++;
      }
      if (written) await this.db.query('SELECT loupe_bump_generation($1)', [repoId]);
      return written;
    });
  }

  async mostImported(repoId: string, limit: number): Promise<{ file_path: string; dependents: number }[]> {
    return this.db.rows<{ file_path: string; dependents: number }>(
      `SELECT i.target_path AS file_path, count(DISTINCT i.file_id)::int AS dependents FROM imports i JOIN files f ON f.id = i.file_id
       WHERE f.repo_id = $1 AND i.target_path IS NOT NULL GROUP BY i.target_path ORDER BY dependents DESC, i.target_path COLLATE "C" LIMIT $2`,
      [repoId, limit]);
  }
}
