/**
 * `files.holds_tests`: a file that holds tests of its own code whatever its path (Rust's `#[cfg(test)] mod tests`
 * with `#[test]` functions), so coverage gaps and file docs count them. Rust files are parsed again to set it.
 */
export const sql = `
ALTER TABLE files ADD COLUMN holds_tests INTEGER NOT NULL DEFAULT 0;
UPDATE files SET hash = '', mtime_ms = -1 WHERE language = 'rust';
`;
