/**
 * composer.lock and Gemfile.lock are indexed now instead of skipped as generated (parse-file.ts): they name the
 * packages a project's imports belong to (repo-facts.ts). Those left out before are read at the next index run.
 */
export const sql = `
DELETE FROM skipped_files WHERE reason = 'generated' AND (
  path IN ('composer.lock', 'Gemfile.lock') OR path LIKE '%/composer.lock' OR path LIKE '%/Gemfile.lock');
`;
