/**
 * Every file is parsed again once: what the parsers find changed in most languages at once. Go files depend on
 * the sibling files whose names they use; Ruby paths built with File.expand_path/File.join and autoloads are
 * edges; a Python stub is a type-only target; an executable without an extension takes its language from its
 * `#!` line (stored before with none); JavaScript's CommonJS methods, default exports and signatures, and a
 * license banner is no file's description; a Rust `use` in test code is kind `test-use`; C declarations behind a macro keep their names, PHP `use … as`
 * aliases resolve, Java tests of another source root see their package, and a C header is C. The next index
 * run of each repository (at start) re-reads them; nothing else is touched.
 */
export const sql = `
UPDATE files SET hash = '', mtime_ms = -1;
`;
