import type { ImportKind, SymbolKind } from '../../types';
import { nowIso } from '../../util/ids';
import type { AnalysisStore, FileDocRow, GraphEdgeRow, GraphFileRow, RepoSymbolRow } from '../analysis-store';
import type { Async } from '../surface';
import type { PgSql } from './sql';

type SymbolTuple = {
  file_id: number; name: string; kind: SymbolKind; parent: string | null; start_line: number; end_line: number;
  exported: boolean; signature: string | null; doc: string | null;
};
const toSymbol = (r: SymbolTuple): RepoSymbolRow => ({
  fileId: r.file_id, name: r.name, kind: r.kind, parent: r.parent, startLine: r.start_line, endLine: r.end_line,
  exported: r.exported, signature: r.signature, doc: r.doc,
});
const SYMBOL_COLUMNS = 's.file_id, s.name, s.kind, s.parent, s.start_line, s.end_line, s.exported, s.signature, s.doc';

/** Reads behind blast radius, blueprint, scope, map and file docs, on PostgreSQL: SqliteAnalysisStore's surface, awaited. */
export class PgAnalysisStore implements Async<AnalysisStore> {
  constructor(private readonly db: PgSql) {}

  async generation(repoId: string): Promise<number> {
    const row = await this.db.one<{ generation: number }>('SELECT generation::float8 AS generation FROM repo_generations WHERE repo_id = $1', [repoId]);
    return row?.generation ?? 0;
  }

  /** The import graph in two queries, read in one snapshot (REPEATABLE READ would be stricter; a generation read first marks it stale at worst). */
  async graph(repoId: string): Promise<{ generation: number; files: GraphFileRow[]; edges: GraphEdgeRow[] }> {
    return this.db.transaction(async () => {
      const generation = await this.generation(repoId);
      const files = await this.db.rows<GraphFileRow>(
        'SELECT id, path, language, lines, hash, generated, unit, holds_tests AS "holdsTests" FROM files WHERE repo_id = $1 ORDER BY path COLLATE "C"', [repoId]);
      const rows = await this.db.rows<{
        file_id: number; specifier: string; kind: ImportKind; type_only: boolean; target_path: string | null; package: string | null;
        names: string | null; line: number;
      }>(
        `SELECT i.file_id, i.specifier, i.kind, i.type_only, i.target_path, i.package, i.names, i.line
         FROM imports i JOIN files f ON f.id = i.file_id WHERE f.repo_id = $1 ORDER BY i.file_id, i.line, i.id`, [repoId]);
      const edges = rows.map((r) => ({
        fileId: r.file_id, specifier: r.specifier, kind: r.kind, typeOnly: r.type_only, targetPath: r.target_path, packageName: r.package,
        names: r.names ? (JSON.parse(r.names) as string[]) : [], line: r.line,
      }));
      return { generation, files, edges };
    });
  }

  async symbols(repoId: string): Promise<RepoSymbolRow[]> {
    return (await this.db.rows<SymbolTuple>(
      `SELECT ${SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.repo_id = $1 ORDER BY s.file_id, s.start_line, s.id`,
      [repoId])).map(toSymbol);
  }

  async symbolsOf(fileId: number): Promise<RepoSymbolRow[]> {
    return (await this.db.rows<SymbolTuple>(`SELECT ${SYMBOL_COLUMNS} FROM symbols s WHERE s.file_id = $1 ORDER BY s.start_line, s.id`, [fileId])).map(toSymbol);
  }

  async exportedSymbols(repoId: string): Promise<RepoSymbolRow[]> {
    return (await this.db.rows<SymbolTuple>(
      `SELECT ${SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id
       WHERE f.repo_id = $1 AND s.exported AND s.parent IS NULL ORDER BY s.file_id, s.start_line, s.id`, [repoId])).map(toSymbol);
  }

  /** SQLite's LIKE ignores ASCII case: ILIKE here. */
  async envChunks(repoId: string): Promise<{ path: string; startLine: number; content: string }[]> {
    return this.db.rows<{ path: string; startLine: number; content: string }>(
      `SELECT f.path, c.start_line AS "startLine", c.content FROM chunks c JOIN files f ON f.id = c.file_id
       WHERE f.repo_id = $1 AND (c.content ILIKE '%process.env%' OR c.content ILIKE '%import.meta.env%' OR c.content ILIKE '%environ%'
         OR c.content ILIKE '%getenv%' OR c.content ILIKE '%ENV[%' OR c.content ILIKE '%env::var%'
         OR c.content ILIKE '%Environment.GetEnvironmentVariable%')
       ORDER BY f.path COLLATE "C", c.seq`, [repoId]);
  }

  async fileText(repoId: string, path: string): Promise<string | null> {
    const file = await this.db.one<{ id: number }>('SELECT id FROM files WHERE repo_id = $1 AND path = $2', [repoId, path]);
    if (!file) return null;
    return (await this.db.rows<{ content: string }>('SELECT content FROM chunks WHERE file_id = $1 ORDER BY seq', [file.id])).map((r) => r.content).join('\n');
  }

  async fileDoc(fileId: number): Promise<FileDocRow | undefined> {
    return this.db.one<FileDocRow>(
      'SELECT file_id AS "fileId", source_hash AS "sourceHash", generator, doc, generated_at AS "generatedAt" FROM file_docs WHERE file_id = $1', [fileId]);
  }

  async putFileDoc(fileId: number, sourceHash: string, generator: string, doc: string): Promise<void> {
    await this.db.query(
      `INSERT INTO file_docs (file_id, source_hash, generator, doc, generated_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (file_id) DO UPDATE SET source_hash = excluded.source_hash, generator = excluded.generator,
         doc = excluded.doc, generated_at = excluded.generated_at`, [fileId, sourceHash, generator, doc, nowIso()]);
  }

  /**
   * Files of a repository without a doc of their current content (none yet, or stale): what the team
   * server's worker builds after a run, so API nodes answer docs without building them.
   */
  async pendingDocs(repoId: string): Promise<{ fileId: number; path: string; hash: string }[]> {
    return this.db.rows<{ fileId: number; path: string; hash: string }>(
      `SELECT f.id AS "fileId", f.path, f.hash FROM files f LEFT JOIN file_docs d ON d.file_id = f.id
       WHERE f.repo_id = $1 AND (d.file_id IS NULL OR d.source_hash <> f.hash) ORDER BY f.path COLLATE "C"`, [repoId]);
  }

  async staleDocs(repoId: string): Promise<{ fileId: number; path: string; hash: string }[]> {
    return this.db.rows<{ fileId: number; path: string; hash: string }>(
      `SELECT f.id AS "fileId", f.path, f.hash FROM file_docs d JOIN files f ON f.id = d.file_id
       WHERE f.repo_id = $1 AND d.source_hash <> f.hash ORDER BY f.path COLLATE "C"`, [repoId]);
  }
}
