import type { Db } from '../db';

/**
 * `files.holds_tests`: a file that holds tests of its own code whatever its path (Rust's `#[cfg(test)] mod tests`
 * with `#[test]` functions), so coverage gaps and file docs count them. Rust files are parsed again to set it.
 * The column is added only when missing: a database whose version was set back (a test of migration 20) has it.
 */
export function addColumn(db: Db): void {
  const columns = db.prepare('PRAGMA table_info(files)').all() as { name: string }[];
  if (!columns.some((c) => c.name === 'holds_tests')) db.exec('ALTER TABLE files ADD COLUMN holds_tests INTEGER NOT NULL DEFAULT 0');
}

export const sql = `
UPDATE files SET hash = '', mtime_ms = -1 WHERE language = 'rust';
`;
