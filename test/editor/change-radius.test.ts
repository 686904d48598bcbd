import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, createTestEngine, indexFolder } from '../helpers/engine';
import { changeRadius, parseNameStatus } from '../../server/engine/editor/change-radius';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });

test('git name-status with renames and copies', () => {
  assert.deepEqual(parseNameStatus('M\0src/a.ts\0R100\0src/old.ts\0src/new.ts\0A\0b.ts\0D\0c.ts\0'), [
    { path: 'src/a.ts', status: 'modified' },
    { path: 'src/old.ts', status: 'deleted' },
    { path: 'src/new.ts', status: 'renamed' },
    { path: 'b.ts', status: 'added' },
    { path: 'c.ts', status: 'deleted' },
  ]);
});

test('the radius of a change: the working tree against HEAD, then a branch against main, on a real git repository', async () => {
  const folder = copyFixture('e2e-app');
  git(folder, 'init', '-q');
  git(folder, 'add', '-A');
  git(folder, 'commit', '-q', '-m', 'start');
  const t = createTestEngine();
  try {
    const repo = await indexFolder(t, folder);
    const clean = await changeRadius(t.engine.analysis, repo, 'workingTree');
    assert.deepEqual([clean.base, clean.changed, clean.note], ['HEAD', [], null]);

    fs.appendFileSync(path.join(folder, 'src/util/format.ts'), '\n// changed\n');
    fs.writeFileSync(path.join(folder, 'src/new.ts'), 'export const x = 1;\n');
    const r = await changeRadius(t.engine.analysis, repo, 'workingTree');
    assert.deepEqual(r.changed.map((c) => [c.path, c.status, c.dependents]), [['src/new.ts', 'untracked', 0], ['src/util/format.ts', 'modified', 5]]);
    assert.deepEqual(r.dependents.map((d) => `${d.path}@${d.depth}`), ['src/cart/cart.ts@1', 'src/report.ts@1', 'test/format.spec.ts@1', 'src/cart/checkout.ts@2', 'src/index.ts@2']);
    assert.deepEqual(r.tests.map((d) => d.path), ['test/format.spec.ts']);
    assert.equal(r.entryPoints, 1);

    // A changed file that depends on another changed one is listed as changed, not as affected; a changed test runs first.
    fs.appendFileSync(path.join(folder, 'src/cart/cart.ts'), '\n// changed\n');
    fs.appendFileSync(path.join(folder, 'test/format.spec.ts'), '\n// changed\n');
    const both = await changeRadius(t.engine.analysis, repo, 'workingTree');
    assert.ok(!both.dependents.some((d) => d.path === 'src/cart/cart.ts'));
    assert.deepEqual(both.tests.map((d) => `${d.path}@${d.depth}`), ['test/format.spec.ts@0']);

    git(folder, 'checkout', '-q', '-b', 'feature');
    git(folder, 'add', '-A');
    git(folder, 'commit', '-q', '-m', 'feature work');
    fs.appendFileSync(path.join(folder, 'src/report.ts'), '\n// not committed\n');
    const branch = await changeRadius(t.engine.analysis, repo, 'branch');
    assert.match(branch.base ?? '', /^main @ [0-9a-f]{7}$/);
    assert.deepEqual(branch.changed.map((c) => c.path), ['src/cart/cart.ts', 'src/new.ts', 'src/report.ts', 'src/util/format.ts', 'test/format.spec.ts']);
    assert.equal((await changeRadius(t.engine.analysis, repo, 'workingTree')).changed.length, 1, 'the working tree has only the uncommitted change');
  } finally {
    await t.close();
  }
});

test('a folder that is not a git repository says so instead of failing', async () => {
  const folder = copyFixture('e2e-app');
  const t = createTestEngine();
  try {
    const repo = await indexFolder(t, folder);
    const r = await changeRadius(t.engine.analysis, repo, 'workingTree');
    assert.equal(r.changed.length, 0);
    assert.match(r.note ?? '', /e2e-app: .*not a git repository/i);
  } finally {
    await t.close();
  }
});
