/**
 * Files are parsed again once, nothing else:
 * - the scripts and components of Nuxt apps (repositories with a `nuxt.config.*`): the components their templates
 *   use and the composables and utils they call without importing them (Nuxt's auto-imports, nuxt-auto-imports.ts)
 *   are edges now;
 * - Rust files: methods of impls for `&[u8]`, `&'a T`, `str`, tuples and qualified types have their parent
 *   (rust-impls.ts);
 * - C and C++ files: a macro call standing alone as a declaration no longer hides what follows it (cpp-macros.ts).
 * The next index run of each repository re-reads them.
 */
export const sql = `
UPDATE files SET hash = '', mtime_ms = -1
WHERE language IN ('rust', 'c', 'cpp')
  OR (language IN ('vue', 'typescript', 'javascript') AND repo_id IN (
    SELECT repo_id FROM files WHERE path LIKE 'nuxt.config.%' OR path LIKE '%/nuxt.config.%'));
`;
