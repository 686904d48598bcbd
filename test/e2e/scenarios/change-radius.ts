/** The radius of my change: the working tree against HEAD, then a branch against its base. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { e2e, scenario } from '../harness/suite';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=e2e', '-c', 'user.email=e2e@example.invalid', ...args], { cwd, encoding: 'utf8' });

export function changeScenarios(workspace: () => string): void {
  scenario('the radius of my change lists changed files, tests to run first and every affected file', async () => {
    const { wb } = e2e;
    const folder = workspace();
    // A change made outside the editor (as a git checkout or another tool would).
    fs.appendFileSync(path.join(folder, 'src/util/format.ts'), '\n/** Formats a quantity. */\nexport const formatCount = (n: number) => `${n}×`;\n');
    await wb.command('Loupe: Show the Radius of My Change');
    const pane = wb.viewPane('Radius of My Change');
    await pane.locator('.monaco-list-row', { hasText: 'Changed files' }).waitFor({ timeout: 30_000 });
    await pane.locator('.monaco-list-row', { hasText: 'format.ts' }).first().waitFor();
    await wb.soloPane('Radius of My Change');
    await pane.locator('.monaco-list-row', { hasText: 'Affected files' }).waitFor();
    const rows = (await wb.treeRows('Radius of My Change')).join(' | ');
    assert.match(rows, /Changed files[\s\S]*1[\s\S]*format\.ts[\s\S]*modified · 5 dependents/);
    assert.match(rows, /Tests to run first[\s\S]*1[\s\S]*format\.spec\.ts[\s\S]*depth 1/);
    assert.match(rows, /Affected files[\s\S]*5/);
    assert.match(await pane.locator('.pane-header').innerText(), /working tree vs HEAD/);
    await wb.screenshot('15-change-radius');
  });

  scenario('a branch compares with its base: committed and uncommitted changes together', async () => {
    const { wb } = e2e;
    const folder = workspace();
    git(folder, 'checkout', '-q', '-b', 'feature');
    git(folder, 'commit', '-q', '-am', 'formatCount');
    fs.appendFileSync(path.join(folder, 'src/report.ts'), '\n// reviewed\n');
    await wb.command('Loupe: Compare the Branch with Its Base');
    const pane = wb.viewPane('Radius of My Change');
    await pane.locator('.pane-header', { hasText: /branch vs main @ [0-9a-f]{7}/ }).waitFor({ timeout: 30_000 });
    await pane.locator('.monaco-list-row', { hasText: 'report.ts' }).first().waitFor();
    const rows = (await wb.treeRows('Radius of My Change')).join(' | ');
    assert.match(rows, /Changed files[\s\S]*2/);
    assert.match(rows, /format\.ts[\s\S]*modified/);
    assert.match(rows, /report\.ts[\s\S]*modified/);
    await wb.screenshot('15b-change-radius-branch');
    git(folder, 'checkout', '-q', '--', 'src/report.ts');
    git(folder, 'checkout', '-q', 'main');
  });
}
