/**
 * A script's `/// <reference types>` is an import now (kind `types`: the package of types it names, or the file of
 * type roots inside the repository; parse-typescript.ts). The script files that write one are parsed again at the
 * next index run of their repository; nothing else is.
 */
export const sql = `
UPDATE files SET hash = '', mtime_ms = -1
WHERE language IN ('typescript', 'javascript') AND id IN (SELECT file_id FROM chunks WHERE content LIKE '%<reference types=%');
`;
