import type { ParsedImport, ParsedSymbol } from '../../types';
import type { GroundingFileRow, ImporterRow, ResearchStore } from '../research-store';
import type { Async } from '../surface';
import type { PgSql } from './sql';

/** Reads the research composer needs, on PostgreSQL: SqliteResearchStore's surface, awaited. */
export class PgResearchStore implements Async<ResearchStore> {
  constructor(private readonly db: PgSql) {}

  async file(repoId: string, path: string): Promise<GroundingFileRow | undefined> {
    return this.db.one<GroundingFileRow>(
      'SELECT id, repo_id AS "repoId", path, language, lines, description, generated FROM files WHERE repo_id = $1 AND path = $2', [repoId, path]);
  }

  async symbols(fileId: number): Promise<ParsedSymbol[]> {
    const rows = await this.db.rows<{
      name: string; kind: ParsedSymbol['kind']; parent: string | null; start_line: number; end_line: number; exported: boolean;
      signature: string | null; doc: string | null;
    }>('SELECT name, kind, parent, start_line, end_line, exported, signature, doc FROM symbols WHERE file_id = $1 ORDER BY start_line, id', [fileId]);
    return rows.map((r) => ({
      name: r.name, kind: r.kind, parent: r.parent, startLine: r.start_line, endLine: r.end_line, exported: r.exported, signature: r.signature, doc: r.doc,
    }));
  }

  async localImports(fileId: number): Promise<Pick<ParsedImport, 'specifier' | 'targetPath' | 'names' | 'line' | 'kind'>[]> {
    const rows = await this.db.rows<{ specifier: string; target_path: string; names: string | null; line: number; kind: ParsedImport['kind'] }>(
      'SELECT specifier, target_path, names, line, kind FROM imports WHERE file_id = $1 AND target_path IS NOT NULL ORDER BY line, id', [fileId]);
    return rows.map((r) => ({ specifier: r.specifier, targetPath: r.target_path, names: r.names ? JSON.parse(r.names) as string[] : [], line: r.line, kind: r.kind }));
  }

  async importersOf(repoId: string, paths: string[], limit: number): Promise<ImporterRow[]> {
    if (!paths.length) return [];
    const rows = await this.db.rows<{ fileId: number; path: string; targetPath: string; names: string | null; line: number }>(
      `SELECT f.id AS "fileId", f.path AS path, i.target_path AS "targetPath", i.names AS names, i.line AS line
       FROM imports i JOIN files f ON f.id = i.file_id
       WHERE f.repo_id = $1 AND i.target_path = ANY($2::text[])
       ORDER BY f.path COLLATE "C", i.line, i.id LIMIT $3`, [repoId, paths, limit]);
    return rows.map((r) => ({ ...r, names: r.names ? JSON.parse(r.names) as string[] : [] }));
  }

  async symbolNames(repoIds: string[], limit: number): Promise<string[]> {
    if (!repoIds.length) return [];
    return (await this.db.rows<{ name: string }>(
      `SELECT DISTINCT s.name COLLATE "C" AS name FROM symbols s JOIN files f ON f.id = s.file_id
       WHERE f.repo_id = ANY($1::text[]) AND s.kind IN ('function', 'method', 'class')
       ORDER BY 1 LIMIT $2`, [repoIds, limit])).map((r) => r.name);
  }

  async lines(fileId: number, start: number, end: number): Promise<string[]> {
    const rows = await this.db.rows<{ start_line: number; content: string }>(
      'SELECT start_line, content FROM chunks WHERE file_id = $1 AND end_line >= $2 AND start_line <= $3 ORDER BY seq', [fileId, start, end]);
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
