import { LoupeError } from '../errors';
import { git } from '../repos/git';
import type { RepoRecord } from '../types';

/**
 * The files the working tree changes against HEAD: staged, unstaged and untracked (not ignored),
 * relative to the indexed folder, deleted ones included (their dependents break too). A folder
 * that is not a git work tree, or has no commit yet, is a 400 naming `uncommitted`.
 */
export async function workingTreeChanges(repo: RepoRecord): Promise<string[]> {
  const run = async (args: string[]) => (await git(args, { cwd: repo.rootPath, timeoutMs: 30_000 })).stdout;
  let tracked: string;
  let untracked: string;
  try {
    // --relative: paths below the indexed folder only, relative to it (it may sit below the git top level).
    tracked = await run(['diff', '--name-only', '--no-renames', '--relative', '-z', 'HEAD', '--']);
    untracked = await run(['ls-files', '--others', '--exclude-standard', '-z']);
  } catch (error) {
    throw new LoupeError('BAD_REQUEST', `uncommitted: ${repo.name} has no git history to compare with (${(error as Error).message.split('\n')[0]})`, { field: 'uncommitted' });
  }
  const files = [...tracked.split('\0'), ...untracked.split('\0')].filter(Boolean);
  return [...new Set(files)].sort();
}
