/**
 * Script and component files are parsed again once where imports now resolve that did not (resolver.ts):
 * - every one with an import that resolved to nothing: a Vite asset (`./assets/react.svg`), an import with Vite's query
 *   (`./w.ts?worker`, `./a.txt?raw`), a root-absolute `/vite.svg` in a Vite project (vite-imports.ts);
 * - all of them in a repository whose tsconfig.json or jsconfig.json extends `.svelte-kit/tsconfig.json` (SvelteKit):
 *   `$lib/…` and `kit.alias` resolve without the generated file, `$app/…` is @sveltejs/kit (sveltekit-config.ts);
 * - every one that writes `resolution-mode` (an `import type … with { 'resolution-mode': 'require' }` picks that
 *   condition now, parse-typescript.ts).
 * The next index run of each repository re-reads them.
 */
export const sql = `
UPDATE files SET hash = '', mtime_ms = -1
WHERE language IN ('typescript', 'javascript', 'vue', 'svelte', 'astro') AND (
  id IN (SELECT file_id FROM imports WHERE target_path IS NULL AND package IS NULL)
  OR id IN (SELECT file_id FROM chunks WHERE content LIKE '%resolution-mode%')
  OR repo_id IN (
    SELECT f.repo_id FROM files f JOIN chunks c ON c.file_id = f.id
    WHERE (f.path IN ('tsconfig.json', 'jsconfig.json') OR f.path LIKE '%/tsconfig.json' OR f.path LIKE '%/jsconfig.json')
      AND c.content LIKE '%.svelte-kit/tsconfig.json%'));
`;
