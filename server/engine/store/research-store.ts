import type { Db } from './db';
import type { ParsedImport, ParsedSymbol } from '../types';
import type { SearchFileRow } from './search-store';
import type { Surface } from './surface';

/** The same file facts search uses to label a hit. */
export type GroundingFileRow = SearchFileRow;

export interface ImporterRow {
  /** The importing file. */
  fileId: number;
  path: string;
  /** The imported file. */
  targetPath: string;
  names: string[];
  line: number;
}

/** Reads the research composer needs: files, their symbols and import edges in both directions. */
export class SqliteResearchStore {

  constructor(private readonly db: Db) {}


  file(repoId: string, path: string): GroundingFileRow | undefined {
    const row = this.db.prepare(
      'SELECT id, repo_id AS repoId, path, language, lines, description, generated FROM files WHERE repo_id = ? AND path = ?',
    ).get(repoId, path) as (Omit<GroundingFileRow, 'generated'> & { generated: number }) | undefined;
    return row && { ...row, generated: row.generated === 1 };
  }

  symbols(fileId: number): ParsedSymbol[] {
    const rows = this.db.prepare(
      'SELECT name, kind, parent, start_line, end_line, exported, signature, doc FROM symbols WHERE file_id = ? ORDER BY start_line',
    ).all(fileId) as { name: string; kind: ParsedSymbol['kind']; parent: string | null; start_line: number; end_line: number; exported: number; signature: string | null; doc: string | null }[];
    return rows.map((r) => ({
      name: r.name, kind: r.kind, parent: r.parent, startLine: r.start_line, endLine: r.end_line,
      exported: r.exported === 1, signature: r.signature, doc: r.doc,
    }));
  }

  /** Imports of a file that resolve to another file of the repository. */
  localImports(fileId: number): Pick<ParsedImport, 'specifier' | 'targetPath' | 'names' | 'line' | 'kind'>[] {
    const rows = this.db.prepare(
      'SELECT specifier, target_path, names, line, kind FROM imports WHERE file_id = ? AND target_path IS NOT NULL ORDER BY line',
    ).all(fileId) as { specifier: string; target_path: string; names: string | null; line: number; kind: ParsedImport['kind'] }[];
    return rows.map((r) => ({ specifier: r.specifier, targetPath: r.target_path, names: r.names ? JSON.parse(r.names) as string[] : [], line: r.line, kind: r.kind }));
  }

  /** Files of the repository that import any of `paths`, most connected first. */
  importersOf(repoId: string, paths: string[], limit: number): ImporterRow[] {
    if (!paths.length) return [];
    const rows = this.db.prepare(
      `SELECT f.id AS fileId, f.path AS path, i.target_path AS targetPath, i.names AS names, i.line AS line
       FROM imports i JOIN files f ON f.id = i.file_id
       WHERE f.repo_id = ? AND i.target_path IN (SELECT value FROM json_each(?))
       ORDER BY f.path, i.line LIMIT ?`,
    ).all(repoId, JSON.stringify(paths), limit) as { fileId: number; path: string; targetPath: string; names: string | null; line: number }[];
    return rows.map((r) => ({ ...r, names: r.names ? JSON.parse(r.names) as string[] : [] }));
  }

  /** Names of the functions, methods and classes the repositories define (distinct, by name), for a model to choose from. */
  symbolNames(repoIds: string[], limit: number): string[] {
    if (!repoIds.length) return [];
    const rows = this.db.prepare(
      `SELECT DISTINCT s.name AS name FROM symbols s JOIN files f ON f.id = s.file_id
       WHERE f.repo_id IN (SELECT value FROM json_each(?)) AND s.kind IN ('function', 'method', 'class')
       ORDER BY s.name LIMIT ?`,
    ).all(JSON.stringify(repoIds), limit) as { name: string }[];
    return rows.map((r) => r.name);
  }

  /** The text of lines [start, end] (1-based, inclusive) of a file, from its contiguous chunks. */
  lines(fileId: number, start: number, end: number): string[] {
    const rows = this.db.prepare(
      'SELECT start_line, content FROM chunks WHERE file_id = ? AND end_line >= ? AND start_line <= ? ORDER BY seq',
    ).all(fileId, start, end) as { start_line: number; content: string }[];
    const out: string[] = [];
    for (const row of rows) {
      row.content.split('\n').forEach((text, i) => {
        const n = row.start_line + i;
        if (n >= start && n <= end) out[n - start] = text;
      });
    }
    return Array.from({ length: Math.max(0, end - start + 1) }, (_, i) => out[i] ?? '');
  }
}

/** What the engine programs against; SqliteResearchStore is the implementation on SQLite. */
export type ResearchStore = Surface<SqliteResearchStore>;
