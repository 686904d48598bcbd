/**
 * Rust, C, C++, TypeScript and JavaScript files are parsed again once. Rust: a path inside an inline module
 * (`mod tests { use super::*; }`) is written from the file's own module, a `tests/` folder holds a crate only beside
 * a Cargo.toml, and paths outside `use` (expressions, types, impl headers, macro bodies) are edges. Scripts: an
 * import resolves in the mode the compiler gives it (the file's format and the import's kind pick package.json
 * `exports` conditions), and a `#name` subpath import resolves through package.json `imports` as Node does. C: comment lines starting `** ` lose
 * their stars, and a header comment's words before its copyright line are the file's description. The next index run of each
 * repository re-reads them; nothing else is touched.
 */
export const sql = `
UPDATE files SET hash = '', mtime_ms = -1
WHERE language IN ('rust', 'c', 'cpp', 'typescript', 'javascript');
`;
