/**
 * Python files are parsed again once where a module they import is missing but packages on its way exist
 * (`import docutils.utils.roman` without roman.py): Python imports `docutils` and `docutils.utils` before it
 * fails, and those edges are written now (tree-sitter/python.ts `expand`). Such an import is kept unresolved
 * with no package name; relative ones that resolve nothing are included too (a few more files read again).
 * The next index run of each repository re-reads them.
 */
export const sql = `
UPDATE files SET hash = '', mtime_ms = -1
WHERE language = 'python' AND id IN (
  SELECT file_id FROM imports WHERE target_path IS NULL AND package IS NULL AND specifier LIKE '%.%');
`;
