/**
 * Files whose text decides how imports resolve, with the languages whose imports they decide: a tsconfig's
 * `paths`, `baseUrl` and `extends`, svelte.config.js's kit aliases, a vite.config.*, a package.json's `exports`, `imports` and workspaces, a go.mod's module path,
 * composer.json's PSR-4 prefixes, a Cargo.toml's crates, Python's source roots, a gemspec's require paths, a C# project, a C compilation
 * database. When one is edited, added or removed, imports anywhere in the repository may resolve elsewhere
 * though their own files did not change (a tsconfig extends one in another folder; a package's `exports`
 * decide its importers' targets).
 */
const CONFIGS: [RegExp, string[]][] = [
  [/^(tsconfig[^/]*\.json|jsconfig[^/]*\.json|package\.json|pnpm-workspace\.yaml|lerna\.json)$/, ['typescript', 'javascript', 'vue', 'svelte', 'astro']],
  // SvelteKit's `kit.alias`/`files.lib` (sveltekit-config.ts) and a Vite project's root for `/x` imports (vite-imports.ts).
  [/^(svelte|vite)\.config\.[mc]?[jt]s$/, ['typescript', 'javascript', 'vue', 'svelte', 'astro']],
  [/^(go\.mod|go\.work)$/, ['go']],
  [/^composer\.json$/, ['php']],
  [/^Cargo\.toml$/, ['rust']],
  [/^(pyproject\.toml|setup\.cfg|setup\.py)$/, ['python']],
  [/^[^/]+\.csproj$/, ['csharp']],
  // A gem's `require_paths` (ruby.ts requirePaths).
  [/^[^/]+\.gemspec$/, ['ruby']],
  [/^compile_commands\.json$/, ['c', 'cpp']],
];

/** The languages whose imports the changed files among `relPaths` decide (none when no such file changed). */
export function languagesResolvedBy(relPaths: Iterable<string>): string[] {
  const languages = new Set<string>();
  for (const p of relPaths) {
    const name = p.slice(p.lastIndexOf('/') + 1);
    for (const [pattern, of] of CONFIGS) if (pattern.test(name)) for (const l of of) languages.add(l);
  }
  return [...languages].sort();
}
