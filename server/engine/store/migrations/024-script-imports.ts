/**
 * Imports are resolved again once, by parsing again the files they are in, nothing else:
 * - Vue, Svelte and Astro components: their `<script>` blocks' (and Astro's frontmatter's) imports and declarations
 *   are read now, and `./App.vue` resolves to the file;
 * - script files importing a declaration file (beside the JavaScript it describes, `x.d.ts` beside `x.js`, the
 *   JavaScript is the target now and the declaration a type-only one: resolver.ts withRuntimeFile) or a stylesheet
 *   (`import './App.css'` names the file now);
 * - the scripts of repositories with a "solution" tsconfig.json (`"files": []` and `references`: a file resolves with
 *   the referenced config that includes it, solution-config.ts);
 * - Rust files: the items inside item macros (tokio's `cfg_rt! { … }`) are symbols and their `use` lines edges;
 * - C and C++ files: an include found nowhere else is the one `<folder>/include/<path>` of the repository, and
 *   `<dir/file.h>` is tried from the folders above; namespaces are symbols, specialisations are named without their
 *   arguments, struct fields are properties;
 * - Python files: a package's `__init__.py` stores what it imports as re-exports, `import __main__` is no file,
 *   a folder that is itself a package is importable by name from its scripts, and a package and its own stub are
 *   no edge.
 * The next index run of each repository re-reads them.
 */
export const sql = `
UPDATE files SET hash = '', mtime_ms = -1
WHERE language IN ('vue', 'svelte', 'rust', 'c', 'cpp', 'python') OR path LIKE '%.astro'
  OR (language IN ('typescript', 'javascript')
    AND id IN (SELECT file_id FROM imports WHERE target_path LIKE '%.d.ts' OR target_path LIKE '%.d.mts' OR target_path LIKE '%.d.cts'
      OR (target_path IS NULL AND package IS NULL AND (specifier LIKE '%.css' OR specifier LIKE '%.scss' OR specifier LIKE '%.less'))))
  OR (language IN ('typescript', 'javascript') AND repo_id IN (
    SELECT f.repo_id FROM files f JOIN chunks c ON c.file_id = f.id
    WHERE (f.path = 'tsconfig.json' OR f.path LIKE '%/tsconfig.json') AND c.content LIKE '%"files"%' AND c.content LIKE '%"references"%'));
`;
