/**
 * The scripts and components of Nuxt apps (repositories with a `nuxt.config.*`) are parsed again once: the components
 * their templates use and the composables and utils they call without importing them (Nuxt's auto-imports,
 * nuxt-auto-imports.ts) are edges now. Nothing else is read again.
 */
export const sql = `
UPDATE files SET hash = '', mtime_ms = -1
WHERE language IN ('vue', 'typescript', 'javascript') AND repo_id IN (
  SELECT repo_id FROM files WHERE path LIKE 'nuxt.config.%' OR path LIKE '%/nuxt.config.%');
`;
