const LOCK = /(^|\/)Gemfile\.lock$/;

/**
 * The gems Bundler resolved, as Gemfile.lock files beside a Gemfile list them: each gem of a `GEM` or `GIT`
 * section's `specs:`, indented four spaces (six for the gems it depends on, which are listed again at four).
 * These name gems the project pulls in through others: `require 'diff/lcs'` is diff-lcs's, not a gem `diff`.
 */
export function lockedGems(paths: string[], readText: (p: string) => string | null): string[] {
  const all = new Set(paths);
  const gems = new Set<string>();
  for (const p of paths) {
    if (!LOCK.test(p) || !all.has(p.replace(/Gemfile\.lock$/, 'Gemfile'))) continue;
    let section = '';
    for (const line of (readText(p) ?? '').split(/\r?\n/)) {
      if (/^\S/.test(line)) section = line.trim();
      const gem = /^ {4}([A-Za-z0-9_.-]+) \(/.exec(line);
      if (gem && (section === 'GEM' || section === 'GIT')) gems.add(gem[1]);
    }
  }
  return [...gems];
}
