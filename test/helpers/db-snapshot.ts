import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';

/**
 * A comparable picture of one repository's index, read straight from the SQLite file (read-only):
 * what a clean index and a resumed one must agree on. Ids, timestamps and mtimes are left out.
 */
export function indexSnapshot(dbFile: string): Record<string, unknown> {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    const rows = (sql: string) => db.prepare(sql).all();
    const digest = (value: unknown) => createHash('sha1').update(JSON.stringify(value)).digest('hex');
    const files = rows('SELECT path, name, language, size, lines, hash FROM files ORDER BY path');
    const symbols = rows(`SELECT f.path, s.name, s.kind, s.parent, s.start_line, s.end_line, s.exported, s.signature
      FROM symbols s JOIN files f ON f.id = s.file_id ORDER BY f.path, s.start_line, s.name, s.kind`);
    const imports = rows(`SELECT f.path, i.specifier, i.kind, i.type_only, i.target_path, i.package, i.names, i.line
      FROM imports i JOIN files f ON f.id = i.file_id ORDER BY f.path, i.line, i.specifier`);
    const chunks = rows(`SELECT f.path, c.seq, c.start_line, c.end_line, c.symbols, c.content
      FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.seq`);
    // Every chunk has exactly one full-text row and no full-text row is orphaned.
    const ftsRows = (db.prepare('SELECT count(*) AS n FROM chunks_fts').get() as { n: number }).n;
    const orphanChunks = (db.prepare('SELECT count(*) AS n FROM chunks WHERE file_id NOT IN (SELECT id FROM files)').get() as { n: number }).n;
    const repo = db.prepare('SELECT state, updating, files_total, files_done FROM repos').all();
    return {
      files: files.length, filesDigest: digest(files),
      symbols: symbols.length, symbolsDigest: digest(symbols),
      imports: imports.length, importsDigest: digest(imports),
      chunks: chunks.length, chunksDigest: digest(chunks),
      ftsRows, orphanChunks, repo,
      integrity: db.pragma('integrity_check', { simple: true }),
    };
  } finally {
    db.close();
  }
}

/**
 * Row counts of every table of an engine's connection, the index and the attached accounts database
 * alike (`accounts.history`, …): what "nothing was written" compares before and after a call.
 */
export function rowCounts(db: Database.Database): Record<string, number> {
  const tables: string[] = [];
  for (const schema of ['main', 'accounts']) {
    const names = db.prepare(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as { name: string }[];
    for (const { name } of names) {
      try {
        db.prepare(`SELECT count(*) FROM ${schema}."${name}"`).get();
        tables.push(`${schema}."${name}"`);
      } catch { /* a virtual table that cannot be counted */ }
    }
  }
  return Object.fromEntries(tables.map((t) => [t, (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]));
}
