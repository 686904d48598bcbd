/**
 * Java files are parsed again once: a type is now found under any source root of the repository that holds its
 * package (Bazel's java/ and javatests/, not only Maven's src/main/java and src/test/java), and a type named with
 * its package (`implements com.acme.Api`) is an edge (tree-sitter/java.ts). Java files only; the next index run of
 * each repository re-reads them.
 */
export const sql = `
UPDATE files SET hash = '', mtime_ms = -1 WHERE language = 'java';
`;
