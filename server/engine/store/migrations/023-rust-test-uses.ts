/**
 * A Rust `use` written in test code (`#[cfg(test)] mod tests { … }`, a `#[test]` fn) is stored as kind `test-use`:
 * its file depends on the target, the file's users do not through it (analysis/import-graph.ts). Rust files
 * are parsed again to mark the imports indexed before. No schema change.
 */
export const sql = `
UPDATE files SET hash = '', mtime_ms = -1 WHERE language = 'rust';
`;
