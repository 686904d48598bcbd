/**
 * What the repository tracks is what a clean clone gets. A symbolic link committed by accident (a worktree's
 * `bench/.corpora` pointing at another checkout) became a loop in CI's clone and failed every Debian corpus test.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import test from 'node:test';

test('the repository tracks no symbolic links', () => {
  const staged = execFileSync('git', ['ls-files', '-s'], { encoding: 'utf8' });
  const links = staged.split('\n').filter((line) => line.startsWith('120000 ')).map((line) => line.split('\t')[1]);
  assert.deepEqual(links, [], `symbolic links are tracked: ${links.join(', ')}`);
});
