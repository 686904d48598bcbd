/**
 * Script files that import a declaration file are parsed again once: where the declaration sits beside the
 * JavaScript it describes (`x.d.ts` beside `x.js`), the JavaScript is now the import's target and the declaration
 * a type-only one (resolver.ts withRuntimeFile). The next index run of each repository re-reads them; nothing
 * else is touched.
 */
export const sql = `
UPDATE files SET hash = '', mtime_ms = -1
WHERE language IN ('typescript', 'javascript')
  AND id IN (SELECT file_id FROM imports WHERE target_path LIKE '%.d.ts' OR target_path LIKE '%.d.mts' OR target_path LIKE '%.d.cts');
`;
