/**
 * Script and component files are parsed again once where imports now resolve differently:
 * - the scripts that write `/// <reference types>`, an import now (kind `types`: the package of types it names, or
 *   the file of type roots inside the repository; parse-typescript.ts);
 * - all of them in a repository with a svelte.config that sets `kit.outDir`: without the generated config in that
 *   folder (a fresh clone), `$lib/…` and `kit.alias` resolve now as in a `.svelte-kit` app (sveltekit-config.ts).
 * The next index run of each repository re-reads them.
 */
export const sql = `
UPDATE files SET hash = '', mtime_ms = -1
WHERE (language IN ('typescript', 'javascript') AND id IN (SELECT file_id FROM chunks WHERE content LIKE '%<reference types=%'))
  OR (language IN ('typescript', 'javascript', 'svelte') AND repo_id IN (
    SELECT f.repo_id FROM files f JOIN chunks c ON c.file_id = f.id
    WHERE (f.path LIKE 'svelte.config.%' OR f.path LIKE '%/svelte.config.%') AND c.content LIKE '%outDir%'));
`;
