/** A real project nobody here wrote: hono's npm package (~580 files), in a second window of the same code-server. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { honoWorkspace } from '../harness/real-project';
import { e2e, extensionLog, scenario, waitForLog } from '../harness/suite';
import { Workbench } from '../harness/workbench';
import { search } from './views';

export function honoScenarios(commitAll: (folder: string) => void): void {
  let folder = '';

  scenario('hono: a cold start says what it does, indexes, and its notification\'s close button does not pause', async () => {
    await e2e.wb.page.context().close(); // one window (and one language server) at a time on two cores
    folder = honoWorkspace();
    commitAll(folder);
    const from = extensionLog().length;
    const started = Date.now();
    e2e.wb = await Workbench.open(e2e.browser, e2e.server.url, folder);
    const { wb, timings } = e2e;
    // Every text the status bar shows until the index is ready, read as it changes.
    const seen = new Set<string>();
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const text = await wb.statusItem().innerText({ timeout: 1000 }).catch(() => '');
        if (text) seen.add(text.trim());
        if (/Loupe \d+ files/.test(text)) return;
        await wb.page.waitForTimeout(100);
      }
    })();
    const toast = wb.page.locator('.notifications-toasts .notification-toast').filter({ hasText: 'Loupe: indexing the workspace' });
    let dismissed = false;
    try {
      await toast.waitFor({ timeout: 30_000 });
      await wb.screenshot('20-hono-first-index');
      await toast.hover();
      await toast.locator('.monaco-button', { hasText: 'Cancel' }).or(toast.locator('.codicon-notifications-clear')).first().click();
      dismissed = true;
    } catch { /* indexing finished before the notification could be reached */ }
    // Said at once (a toast hides itself after a while): closing it hid the progress, indexing goes on.
    if (dismissed) await wb.page.locator('.notifications-toasts').filter({ hasText: 'indexing continues in the background' }).waitFor();
    await wb.openFile('dist/context.js');
    const lens = await wb.waitForLens(/dependents/, 120_000);
    timings.honoColdStartToLensMs = Date.now() - started;
    assert.match(lens, /^\d+ dependents/);
    const indexed = await waitForLog(/indexed hono: (\d+) files in (\d+) ms/, 120_000, from);
    timings.honoFiles = Number(indexed[1]);
    timings.honoIndexMs = Number(indexed[2]);
    await wb.statusItem().filter({ hasText: /Loupe \d+ files/ }).waitFor({ timeout: 120_000 });
    watching = false;
    await watcher;
    const texts = [...seen];
    assert.ok(texts.some((t) => /Loupe (starting…|listing files…|indexing \d+\/\d+)/.test(t)), `the status bar said what it was doing: ${texts.join(' → ')}`);
    timings.honoStatusTexts = texts.join(' → ');
    if (dismissed) {
      assert.ok(!texts.some((t) => /paused/.test(t)), 'closing the notification did not pause indexing');
    }
    await wb.screenshot('21-hono-lens');
  });

  scenario('hono: Enter and a click on a search result open that result, when a file\'s hits are not contiguous in the answer', async () => {
    const { wb } = e2e;
    await wb.command('Loupe: Search');
    const view = await wb.webviewFrame('results');
    await search(view, 'cookie');
    await view.locator('.hit').first().waitFor();
    const rows = await view.locator('.hit').evaluateAll((els) => els.map((el) => ({
      index: Number((el as HTMLElement).dataset.index), rank: Number((el as HTMLElement).dataset.rank), where: el.getAttribute('title')!,
      file: el.closest('.file')!.querySelector('.file-path')!.textContent!,
    })));
    // The answer interleaves files (the case that opened the wrong row): drawn order ≠ answer order.
    const moved = rows.filter((r) => r.rank !== r.index);
    assert.ok(moved.length > 0, `some row is drawn away from its place in the answer: ${JSON.stringify(rows.slice(0, 12))}`);
    await wb.screenshot('22-hono-search-grouped');
    const opens = async (row: (typeof rows)[number]) => {
      const [file, line] = row.where.split(/:(?=\d+$)/);
      assert.equal(file, row.file, 'a row sits under its own file');
      await wb.page.locator('.tab.active').filter({ hasText: path.basename(file) }).first().waitFor();
      await wb.page.locator('.statusbar-item').filter({ hasText: new RegExp(`Ln ${line},`) }).first().waitFor();
    };
    const clicked = moved[0];
    await view.locator(`.hit[data-index="${clicked.index}"]`).click();
    await opens(clicked);
    const keyed = moved.find((r) => r.file !== clicked.file) ?? moved[moved.length - 1];
    await wb.command('Loupe: Search');
    await view.locator(`.hit[data-index="${clicked.index}"]`).waitFor();
    await view.locator('#results').focus();
    const steps = keyed.index - clicked.index;
    for (let i = 0; i < Math.abs(steps); i++) await view.locator('#results').press(steps > 0 ? 'ArrowDown' : 'ArrowUp');
    await view.locator(`.hit.selected[data-index="${keyed.index}"]`).waitFor();
    await view.locator('#results').press('Enter');
    await opens(keyed);
    await wb.screenshot('23-hono-search-opened');
  });

  scenario('hono: hovers on an import and on an imported name; the Dependents view of context.js', async () => {
    const { wb } = e2e;
    await wb.openFile('dist/hono-base.js');
    // The hover of that import, not of a name the mouse passed over while lenses moved the lines.
    const fileHover = await wb.hover('./context.js', /dist\/context\.js · \d+ dependents/, 30_000);
    assert.match(fileHover, /dist\/context\.js · \d+ dependents/);
    await wb.screenshot('24-hono-hover-import');
    await wb.page.keyboard.press('Escape');
    const nameHover = await wb.hover('Context', /Context is used in/, 30_000);
    assert.match(nameHover, /Context is used in \d+ files/);
    assert.match(nameHover, /Declared in dist\/context\.js/);
    await wb.screenshot('25-hono-hover-name');
    await wb.page.keyboard.press('Escape');
    await wb.openFile('dist/context.js');
    await wb.command('Loupe: Show Dependents in the Dependents View');
    const pane = wb.viewPane('Dependents');
    await pane.locator('.monaco-list-row', { hasText: 'Depth 1' }).waitFor({ timeout: 30_000 });
    assert.match(await pane.locator('.pane-header').innerText(), /context\.js · \d+ dependents/);
    await wb.screenshot('26-hono-dependents');
  });

  scenario('hono: the radius of a change to context.js', async () => {
    const { wb } = e2e;
    fs.appendFileSync(path.join(folder, 'dist/context.js'), '\n// touched\n');
    await wb.command('Loupe: Show the Radius of My Change');
    const pane = wb.viewPane('Radius of My Change');
    await pane.locator('.monaco-list-row', { hasText: 'context.js' }).first().waitFor({ timeout: 30_000 });
    const rows = (await wb.treeRows('Radius of My Change')).join(' | ');
    assert.match(rows, /context\.js[\s\S]*modified · \d+ dependents/);
    assert.match(rows, /Affected files[\s\S]*\d+/);
    await wb.screenshot('27-hono-change-radius');
  });

  scenario('hono: research answers with its sources once, and History reopens the answer', async () => {
    const { wb } = e2e;
    await wb.command('Loupe: Research');
    const view = await wb.webviewFrame('thread');
    await view.locator('#new-thread').click();
    await view.locator('#question textarea').fill('How does setSignedCookie sign the cookie value?');
    await view.locator('#ask').click();
    const answer = view.locator('.turn .answer.done').first();
    await answer.waitFor({ timeout: 90_000 });
    const text = await answer.innerText();
    assert.match(text, /cookie/i);
    const sources = await view.locator('.turn .answer h5', { hasText: 'Sources' }).locator('xpath=following-sibling::*[1]').locator('a.file-link').allInnerTexts();
    const paths = sources.map((c) => c.split(':')[0]);
    assert.ok(paths.length > 0 && new Set(paths).size === paths.length, `sources once: ${sources.join(', ')}`);
    assert.equal(await view.locator('.turn .citations').count(), 0, 'no second list of sources');
    await wb.screenshot('29-hono-research');
    await view.locator('#new-thread').click();
    await view.locator('#tab-history').click();
    await view.locator('.history-entry', { hasText: 'How does setSignedCookie sign' }).click();
    await view.locator('.turn .answer.done').first().waitFor();
    assert.equal(await view.locator('.turn .answer.done').first().innerText(), text, 'the same answer comes back');
  });

  scenario('hono: a warm start serves lenses from the persisted index at once', async () => {
    const { wb, timings } = e2e;
    await wb.openFile('dist/context.js');
    await wb.waitForLens(/dependents/);
    const from = extensionLog().length;
    const started = Date.now();
    await wb.reload();
    // Generous waits: the time itself is measured (bench/editor-startup.ts), not asserted here.
    await waitForLog(/language server ready (\d+) ms after activation/, 240_000, from);
    await wb.waitForLens(/dependents/, 120_000);
    timings.honoWarmStartToLensMs = Date.now() - started;
    // The research view (the last one used) offers its models as soon as it is drawn again: the list it
    // saved, not an empty dropdown until the server has started and answered (it was empty here once).
    const research = await wb.webviewFrame('thread', 60_000);
    const models = () => research.locator('#model vscode-option').allInnerTexts();
    await research.locator('#model vscode-option', { hasText: 'loupe-grounded' }).waitFor({ state: 'attached', timeout: 2_000 });
    assert.ok(!(await models()).some((m) => /Loading/.test(m)), `models at once: ${(await models()).join(', ')}`);
    await wb.screenshot('28-hono-warm-start');
    // No request for the list failed.
    assert.doesNotMatch(extensionLog().slice(from), /search view: models:/, 'the model list was sent without an error');
  });
}
