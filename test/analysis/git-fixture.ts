import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture } from '../helpers/engine';

const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Loupe Test', GIT_AUTHOR_EMAIL: 'test@loupe.invalid',
  GIT_COMMITTER_NAME: 'Loupe Test', GIT_COMMITTER_EMAIL: 'test@loupe.invalid',
  GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent',
};

export const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8' }).trim();

/**
 * The radius-graph fixture as a real git repository with a known history:
 *  1. everything;  2. util.ts and a.ts change together;
 *  3. PR #7 (branch changing b.ts) merged with a merge commit "Merge pull request #7 …", its head kept as
 *     refs/pull/7/head (as a clone that fetches pull refs has it: already in main's history);
 *  4. PR #9 only as refs/pull/9/head (changes unused.ts), never merged.
 * Optionally with a GitHub origin remote (for the API path).
 */
export function gitFixture(options: { githubRemote?: string } = {}): string {
  const dir = copyFixture('radius-graph');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'Initial import');
  fs.appendFileSync(path.join(dir, 'src/core/util.ts'), '\nexport const UTIL_VERSION = 2;\n');
  fs.appendFileSync(path.join(dir, 'src/feature/a.ts'), '\nexport const A_VERSION = 2;\n');
  git(dir, 'commit', '-q', '-am', 'Version util and feature a together');
  git(dir, 'checkout', '-q', '-b', 'feature/b');
  fs.appendFileSync(path.join(dir, 'src/feature/b.ts'), '\nexport const B_VERSION = 2;\n');
  git(dir, 'commit', '-q', '-am', 'Version feature b');
  git(dir, 'checkout', '-q', 'main');
  git(dir, 'merge', '-q', '--no-ff', '-m', 'Merge pull request #7 from someone/feature-b', 'feature/b');
  git(dir, 'update-ref', 'refs/pull/7/head', 'feature/b');
  git(dir, 'branch', '-q', '-D', 'feature/b');
  git(dir, 'checkout', '-q', '-b', 'pr9');
  fs.writeFileSync(path.join(dir, 'src/unused.ts'), 'export function lonely(): number {\n  return 43;\n}\n\nexport function alsoLonely(): number {\n  return 1;\n}\n');
  git(dir, 'commit', '-q', '-am', 'Change unused');
  const pr9 = git(dir, 'rev-parse', 'HEAD');
  git(dir, 'checkout', '-q', 'main');
  git(dir, 'branch', '-q', '-D', 'pr9');
  git(dir, 'update-ref', 'refs/pull/9/head', pr9);
  if (options.githubRemote) git(dir, 'remote', 'add', 'origin', options.githubRemote);
  return dir;
}
