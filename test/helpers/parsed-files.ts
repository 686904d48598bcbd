import type { SqliteStorage } from '../../server/engine/store/storage';
import type { ParsedFile } from '../../server/engine/types';

/**
 * A repository's files as the engine parsed them, read back from its SQLite index: what the
 * PostgreSQL tests write into PostgreSQL (`PgFilesStore.writeBatch`) to compare the two backends on
 * the same parse. In path order, or (`order: 'id'`) in the order SQLite wrote them, so that the
 * PostgreSQL file ids follow SQLite's where an answer lists files by id.
 */
export function parsedFiles(s: Pick<SqliteStorage, 'files' | 'db'>, repoId: string, options: { order?: 'path' | 'id' } = {}): ParsedFile[] {
  let paths = s.files.paths(repoId);
  if (options.order === 'id') {
    paths = paths.map((p) => ({ p, id: s.files.getByPath(repoId, p)!.id })).sort((a, b) => a.id - b.id).map((x) => x.p);
  }
  return paths.map((p) => {
    const f = s.files.getByPath(repoId, p)!;
    const extra = s.db.prepare('SELECT generated, unit FROM files WHERE id = ?').get(f.id) as { generated: number; unit: string | null };
    const chunks = s.db.prepare('SELECT start_line, end_line, symbols, content FROM chunks WHERE file_id = ? ORDER BY seq').all(f.id) as
      { start_line: number; end_line: number; symbols: string | null; content: string }[];
    return {
      path: p, language: f.language, size: f.size, lines: f.lines, hash: f.hash, mtimeMs: f.mtimeMs, description: f.description,
      generated: extra.generated === 1, unit: extra.unit,
      symbols: s.files.symbols(f.id).map(({ id: _id, ...sym }) => sym),
      imports: s.files.imports(f.id),
      chunks: chunks.map((c) => ({ startLine: c.start_line, endLine: c.end_line, symbols: c.symbols ? c.symbols.split(' ') : [], content: c.content })),
    } as ParsedFile;
  });
}
