/**
 * Ruby files are parsed again once where a gem's .gemspec may put other folders than lib/ on the load path
 * (`s.require_paths = ["lib/concurrent-ruby"]`): their `require`s resolve there now (tree-sitter/ruby.ts
 * `requirePaths`). Only files with a `require` or `autoload` that resolved nothing, in repositories holding a
 * .gemspec. The next index run of each repository re-reads them.
 */
export const sql = `
UPDATE files SET hash = '', mtime_ms = -1
WHERE language = 'ruby'
  AND id IN (SELECT file_id FROM imports WHERE target_path IS NULL AND kind = 'require')
  AND repo_id IN (SELECT repo_id FROM files WHERE path LIKE '%.gemspec');
`;
