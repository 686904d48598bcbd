import type { Db } from './db';
import type { ImportKind, ParsedImport, ParsedSymbol, SymbolKind } from '../types';
import { nowIso } from '../util/ids';
import type { Surface } from './surface';

export interface GraphFileRow {
  id: number; path: string; language: string | null; lines: number; hash: string;
  /** Written by a tool (files.generated). */
  generated: boolean;
  /** The unit the file declares (files.unit: Go's package clause). */
  unit: string | null;
  /** Holds tests of its own code whatever its path (files.holds_tests: Rust's in-file `#[test]` functions). */
  holdsTests: boolean;
}

export interface GraphEdgeRow extends ParsedImport {
  fileId: number;
}

export interface RepoSymbolRow extends ParsedSymbol {
  fileId: number;
}

export interface FileDocRow { fileId: number; sourceHash: string; generator: string; doc: string; generatedAt: string }

type SymbolTuple = [number, string, SymbolKind, string | null, number, number, number, string | null, string | null];
const toSymbol = ([fileId, name, kind, parent, startLine, endLine, exported, signature, doc]: SymbolTuple): RepoSymbolRow => ({
  fileId, name, kind, parent, startLine, endLine, exported: exported === 1, signature, doc,
});

/** A repository's generation: bumped by triggers on every write to its files and import edges. */
export function repoGeneration(db: Db, repoId: string): number {
  const row = db.prepare('SELECT generation FROM repo_generations WHERE repo_id = ?').get(repoId) as { generation: number } | undefined;
  return row?.generation ?? 0;
}

/** Reads (and the doc writes) behind blast radius, blueprint, scope, map and file docs. */
export class SqliteAnalysisStore {
  constructor(private readonly db: Db) {}

  /** Bumped by triggers on every write to the repository's files or import edges (migration 004). */
  generation(repoId: string): number {
    return repoGeneration(this.db, repoId);
  }

  /** The whole import graph of a repository in two queries, read in one snapshot. */
  graph(repoId: string): { generation: number; files: GraphFileRow[]; edges: GraphEdgeRow[] } {
    return this.db.transaction(() => {
      const generation = this.generation(repoId);
      const files = (this.db.prepare('SELECT id, path, language, lines, hash, generated, unit, holds_tests AS holdsTests FROM files WHERE repo_id = ? ORDER BY path').all(repoId) as
        (Omit<GraphFileRow, 'generated' | 'holdsTests'> & { generated: number; holdsTests: number })[])
        .map((f) => ({ ...f, generated: f.generated === 1, holdsTests: f.holdsTests === 1 }));
      const rows = this.db.prepare(
        `SELECT i.file_id, i.specifier, i.kind, i.type_only, i.target_path, i.package, i.names, i.line
         FROM imports i JOIN files f ON f.id = i.file_id WHERE f.repo_id = ? ORDER BY i.file_id, i.line, i.id`,
      ).raw().all(repoId) as [number, string, ImportKind, number, string | null, string | null, string | null, number][];
      const edges = rows.map(([fileId, specifier, kind, typeOnly, targetPath, packageName, names, line]) => ({
        fileId, specifier, kind, typeOnly: typeOnly === 1, targetPath, packageName, names: names ? (JSON.parse(names) as string[]) : [], line,
      }));
      return { generation, files, edges };
    })();
  }

  symbols(repoId: string): RepoSymbolRow[] {
    const rows = this.db.prepare(
      `SELECT s.file_id, s.name, s.kind, s.parent, s.start_line, s.end_line, s.exported, s.signature, s.doc
       FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.repo_id = ? ORDER BY s.file_id, s.start_line`,
    ).raw().all(repoId) as [number, string, SymbolKind, string | null, number, number, number, string | null, string | null][];
    return rows.map(toSymbol);
  }

  /** Symbols of one file. */
  symbolsOf(fileId: number): RepoSymbolRow[] {
    const rows = this.db.prepare(
      `SELECT file_id, name, kind, parent, start_line, end_line, exported, signature, doc FROM symbols WHERE file_id = ? ORDER BY start_line`,
    ).raw().all(fileId) as [number, string, SymbolKind, string | null, number, number, number, string | null, string | null][];
    return rows.map(toSymbol);
  }

  /** Exported top-level symbols of a repository (far fewer rows than all symbols: no members, no locals). */
  exportedSymbols(repoId: string): RepoSymbolRow[] {
    const rows = this.db.prepare(
      `SELECT s.file_id, s.name, s.kind, s.parent, s.start_line, s.end_line, s.exported, s.signature, s.doc
       FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.repo_id = ? AND s.exported = 1 AND s.parent IS NULL ORDER BY s.file_id, s.start_line`,
    ).raw().all(repoId) as [number, string, SymbolKind, string | null, number, number, number, string | null, string | null][];
    return rows.map(toSymbol);
  }

  /**
   * Chunks that may read environment variables, found by the spellings of the common languages'
   * environment APIs; the caller parses the exact variable names out of them.
   */
  envChunks(repoId: string): { path: string; startLine: number; content: string }[] {
    return this.db.prepare(
      `SELECT f.path, c.start_line AS startLine, c.content FROM chunks c JOIN files f ON f.id = c.file_id
       WHERE f.repo_id = ? AND (c.content LIKE '%process.env%' OR c.content LIKE '%import.meta.env%' OR c.content LIKE '%environ%'
         OR c.content LIKE '%getenv%' OR c.content LIKE '%Getenv%' OR c.content LIKE '%ENV[%' OR c.content LIKE '%env::var%'
         OR c.content LIKE '%Environment.GetEnvironmentVariable%')
       ORDER BY f.path, c.seq`,
    ).all(repoId) as { path: string; startLine: number; content: string }[];
  }

  /** Text of one indexed file by path (chunks are contiguous and cover the file). */
  fileText(repoId: string, path: string): string | null {
    const file = this.db.prepare('SELECT id FROM files WHERE repo_id = ? AND path = ?').get(repoId, path) as { id: number } | undefined;
    if (!file) return null;
    const rows = this.db.prepare('SELECT content FROM chunks WHERE file_id = ? ORDER BY seq').all(file.id) as { content: string }[];
    return rows.map((r) => r.content).join('\n');
  }

  fileDoc(fileId: number): FileDocRow | undefined {
    return this.db.prepare(
      'SELECT file_id AS fileId, source_hash AS sourceHash, generator, doc, generated_at AS generatedAt FROM file_docs WHERE file_id = ?',
    ).get(fileId) as FileDocRow | undefined;
  }

  putFileDoc(fileId: number, sourceHash: string, generator: string, doc: string): void {
    this.db.prepare(
      `INSERT INTO file_docs (file_id, source_hash, generator, doc, generated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (file_id) DO UPDATE SET source_hash = excluded.source_hash, generator = excluded.generator,
         doc = excluded.doc, generated_at = excluded.generated_at`,
    ).run(fileId, sourceHash, generator, doc, nowIso());
  }

  /** Documented files whose content changed since their doc was generated. */
  staleDocs(repoId: string): { fileId: number; path: string; hash: string }[] {
    return this.db.prepare(
      // From the documented files (few), not from the repository's (CROSS JOIN keeps that order): after
      // every edit this ran over every file of phaser ×4, 10–16 ms on the thread that answers.
      `SELECT f.id AS fileId, f.path, f.hash FROM file_docs d CROSS JOIN files f ON f.id = d.file_id
       WHERE f.repo_id = ? AND d.source_hash <> f.hash ORDER BY f.path`,
    ).all(repoId) as { fileId: number; path: string; hash: string }[];
  }

}

/** What the engine programs against; SqliteAnalysisStore is the implementation on SQLite. */
export type AnalysisStore = Surface<SqliteAnalysisStore>;
