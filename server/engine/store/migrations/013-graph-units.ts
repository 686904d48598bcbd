/**
 * Import graph, second form. `files.generated`: generated files (a "Code generated … DO NOT EDIT" or
 * `@generated` banner) are indexed and flagged instead of skipped, since they import and are imported like
 * any file. `files.unit`: the unit a file declares it belongs to (Go: its package clause), so a Go import of
 * a folder's package is an edge to each of the package's files. Go and Python files are parsed again (their
 * resolution changed), and generated files left out before are read again.
 */
export const sql = `
ALTER TABLE files ADD COLUMN generated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE files ADD COLUMN unit TEXT;
UPDATE files SET hash = '', mtime_ms = -1 WHERE language IN ('go', 'python');
DELETE FROM skipped_files WHERE reason = 'generated';
`;
