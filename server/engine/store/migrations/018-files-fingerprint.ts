/**
 * The files' fingerprints (`SqliteFilesStore.fingerprints`: path, size, mtime and hash of every file of a
 * repository), read from one index instead of a lookup of each row in the table: a restart's scan reads
 * them all on a fresh connection, and the table's rows lie scattered among the index's other pages (payload,
 * 8,800 files: the read took 140–340 ms cold at load 15, 23–60 ms from this index).
 */
export const sql = `
CREATE INDEX files_fingerprint ON files (repo_id, path, size, mtime_ms, hash);
`;
