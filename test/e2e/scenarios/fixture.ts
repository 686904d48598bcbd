/** The e2e-app fixture (8 files): activation, lenses, hovers, the status menu, edits, live settings, a warm start. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { findFiles } from '../harness/code-server';
import { e2e, extensionLog, scenario, waitForLog, writeUserSettings } from '../harness/suite';

export function fixtureScenarios(workspace: () => string): void {
  scenario('activates, says it is starting, starts the language server and indexes the workspace', async () => {
    const { wb, timings } = e2e;
    const activated = await waitForLog(/Loupe activated in (\d+) ms/);
    timings.activationMs = Number(activated[1]);
    const ready = await waitForLog(/language server ready (\d+) ms after activation/);
    timings.serverReadyMs = Number(ready[1]);
    await wb.statusItem().filter({ hasText: /Loupe \d+ files/ }).waitFor({ timeout: 60_000 });
    assert.match(await wb.statusItem().innerText(), /Loupe 8 files/);
    // The log says when indexing finished and how long it took.
    const indexed = await waitForLog(/indexed e2e-app: (\d+) files in (\d+) ms/);
    assert.equal(indexed[1], '8');
    if (e2e.extension.vsix) {
      // Installed from the .vsix: the native SQLite binary came inside the package, for this platform only.
      const installed = findFiles(path.join(e2e.server.userDataDir, '..', 'extensions'), /\.node$/).filter((f) => f.includes('better-sqlite3'));
      assert.deepEqual(installed.map((f) => path.basename(f)), ['linux-x64.node'], `one better-sqlite3 build: ${installed.join(', ')}`);
      const cli = findFiles(path.join(e2e.server.userDataDir, '..', 'extensions'), /^cli\.js$/).filter((f) => f.endsWith(path.join('dist', 'cli.js')) && !f.includes('node_modules'));
      assert.deepEqual(cli, [], 'the headless CLI is not in the extension');
    }
    await wb.screenshot('01-activated');
  });

  scenario('the CodeLens on format.ts shows its known dependents', async () => {
    const { wb, timings } = e2e;
    const started = Date.now();
    await wb.openFile('src/util/format.ts');
    const lens = await wb.waitForLens(/dependents/);
    timings.lensVisibleMs = Date.now() - started;
    assert.equal(lens.trim(), '5 dependents · 1 entry point · 1 test');
    await wb.waitForLens(/used in 2 files/);
    await wb.waitForLens(/used in 1 file/);
    await wb.screenshot('02-codelens');
  });

  scenario('hovering an import shows that file\'s compact doc: radius, summary, exports, no headings', async () => {
    const { wb, timings } = e2e;
    await wb.openFile('src/cart/cart.ts');
    const started = Date.now();
    const hover = await wb.hover('../util/format', /5 dependents/, 30_000);
    timings.hoverVisibleMs = Date.now() - started;
    assert.match(hover, /src\/util\/format\.ts · 5 dependents · 1 entry point · 1 test/);
    assert.match(hover, /Formatting helpers for prices and dates/);
    assert.match(hover, /Exports formatPrice, formatDate/);
    await wb.screenshot('03-hover-import');
    await wb.page.keyboard.press('Escape');
  });

  scenario('hovering a name adds who uses it and the radius under the language\'s own hover, once', async () => {
    const { wb } = e2e;
    const hover = await wb.hover('formatPrice', /is used in/, 30_000);
    assert.match(hover, /formatPrice is used in 2 files: cart\.ts; 1 test: format\.spec\.ts/);
    assert.match(hover, /Declared in src\/util\/format\.ts:4 · 5 dependents/);
    // The signature appears once: TypeScript's hover has it, Loupe's does not repeat it.
    assert.ok((hover.match(/cents: number/g) ?? []).length <= 1, hover);
    await wb.screenshot('03b-hover-symbol');
    await wb.page.keyboard.press('Escape');
  });

  scenario('clicking the file lens lists dependents by depth; they open in the Dependents view', async () => {
    const { wb } = e2e;
    await wb.openFile('src/util/format.ts');
    await wb.codeLensTexts().locator('a', { hasText: /dependents/ }).first().click();
    const rows = wb.page.locator('.quick-input-list .monaco-list-row');
    await rows.filter({ hasText: 'src/cart/checkout.ts' }).waitFor();
    const listed = await rows.allInnerTexts();
    assert.ok(listed.some((r) => /src\/cart\/cart\.ts[\s\S]*depth 1/.test(r)), listed.join(' | '));
    assert.ok(listed.some((r) => /src\/index\.ts[\s\S]*depth 2 · entry point/.test(r)), listed.join(' | '));
    await wb.screenshot('02b-dependents-quick-pick');
    await rows.filter({ hasText: 'Dependents view' }).click();
    const pane = wb.viewPane('Dependents');
    await pane.locator('.monaco-list-row', { hasText: 'checkout.ts' }).waitFor();
    // Room for the whole tree (a tree draws only the rows in view): fold the Search view above it.
    await wb.viewPane('Search').locator('.pane-header').click();
    await pane.locator('.monaco-list-row', { hasText: 'index.ts' }).waitFor();
    const tree = (await wb.treeRows('Dependents')).join(' | ');
    assert.match(tree, /Depth 1[\s\S]*3 files[\s\S]*cart\.ts[\s\S]*report\.ts[\s\S]*format\.spec\.ts[\s\S]*test/);
    assert.match(tree, /Depth 2[\s\S]*2 files[\s\S]*checkout\.ts[\s\S]*index\.ts[\s\S]*entry point/);
    assert.match(await pane.locator('.pane-header').innerText(), /format\.ts · 5 dependents · 1 entry point · 1 test/);
    await wb.screenshot('02c-dependents-view');
    await wb.viewPane('Search').locator('.pane-header').click();
  });

  scenario('a file nobody imports says so: a message, not an empty list; the Dependents view follows the editor', async () => {
    const { wb } = e2e;
    await wb.openFile('src/index.ts');
    await wb.viewPane('Dependents').locator('.message', { hasText: 'No file depends on src/index.ts.' }).waitFor();
    await wb.command('Loupe: Show Dependents');
    await wb.page.locator('.notifications-toasts').filter({ hasText: 'no file depends on src/index.ts' }).waitFor();
    assert.equal(await wb.page.locator('.quick-input-widget').isVisible(), false, 'no quick pick of nothing');
    await wb.screenshot('02d-no-dependents');
    await wb.page.keyboard.press('Escape');
  });

  scenario('the status bar menu offers the sidecar URL and the other actions', async () => {
    const { wb } = e2e;
    await wb.statusItem().click();
    const rows = wb.page.locator('.quick-input-list .monaco-list-row');
    await rows.filter({ hasText: 'Copy sidecar URL' }).waitFor();
    const texts = (await rows.allInnerTexts()).join(' | ');
    for (const action of ['Pause indexing', 'Reindex workspace', 'Copy API key', 'Open API docs', 'Radius of my change']) assert.match(texts, new RegExp(action));
    assert.match(texts, /Copy sidecar URL[\s\S]*http:\/\/127\.0\.0\.1:\d+/);
    await wb.screenshot('07-status-menu');
    // Copy the key (from SecretStorage) and the URL, then call the sidecar with them: the same engine answers.
    await rows.filter({ hasText: 'Copy API key' }).click();
    await wb.page.locator('.notifications-toasts').filter({ hasText: 'API key copied' }).waitFor();
    const key = await wb.page.evaluate(() => navigator.clipboard.readText());
    await wb.statusItem().click();
    await rows.filter({ hasText: 'Copy sidecar URL' }).click();
    await wb.page.locator('.notifications-toasts').filter({ hasText: 'copied http' }).waitFor();
    const url = await wb.page.evaluate(() => navigator.clipboard.readText());
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${url}/v2/repos`, { headers: { 'X-API-Key': key } });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /e2e-app/);
  });

  scenario('commands: a Loupe category, Pause or Resume as the state allows, Loupe actions in the editor and Explorer menus', async () => {
    const { wb } = e2e;
    await wb.page.keyboard.press('F1');
    const input = wb.page.locator('.quick-input-widget input');
    await input.fill('>Loupe: ');
    const rows = wb.page.locator('.quick-input-list .monaco-list-row');
    await rows.filter({ hasText: 'Loupe: Pause Indexing' }).waitFor();
    await input.fill('>Loupe: Resume Indexing');
    // Only the fuzzy "similar commands" row is left: Resume is offered when indexing is paused.
    await rows.filter({ hasText: 'similar commands' }).or(wb.page.locator('.quick-input-widget', { hasText: /No matching commands/ })).first().waitFor();
    assert.equal(await rows.filter({ hasText: 'Loupe: Resume Indexing' }).count(), 0);
    await wb.page.keyboard.press('Escape');
    await wb.openFile('src/util/format.ts');
    const editorMenu = await wb.contextMenu(wb.activeEditor().locator('.view-line').nth(3));
    assert.ok(editorMenu.includes('Loupe: Ask about Selection') || editorMenu.includes('Ask about Selection'), editorMenu.join(' | '));
    assert.ok(editorMenu.some((l) => /Show Dependents$/.test(l)), editorMenu.join(' | '));
    await wb.screenshot('09-editor-context-menu');
    await wb.page.keyboard.press('Escape');
    await wb.command('View: Show Explorer');
    const explorerMenu = await wb.contextMenu(wb.page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'format.ts' }).first());
    assert.ok(explorerMenu.some((l) => /Ask about Selection/.test(l)) && explorerMenu.some((l) => /Show Dependents$/.test(l)), explorerMenu.join(' | '));
    await wb.screenshot('09b-explorer-context-menu');
    await wb.page.keyboard.press('Escape');
    // The editor title action opens the Dependents view, with an icon that is not Find's.
    const action = wb.page.locator('.editor-actions .action-label[aria-label*="Dependents"]').first();
    assert.match((await action.getAttribute('class')) ?? '', /codicon-type-hierarchy-sub/);
  });

  scenario('editing a file updates the lens of the file it imported', async () => {
    const { wb, timings } = e2e;
    await wb.openFile('src/report.ts');
    // Delete the import line without saving: the index follows the editor's text.
    await wb.activeEditor().locator('.view-line').first().click();
    await wb.page.keyboard.press('Home');
    await wb.page.keyboard.press('Shift+End');
    await wb.page.keyboard.press('Delete');
    await wb.openFile('src/util/format.ts');
    const started = Date.now();
    const lens = await wb.waitForLens(/^4 dependents/);
    timings.lensAfterEditMs = Date.now() - started;
    assert.equal(lens.trim(), '4 dependents · 1 entry point · 1 test');
    await wb.screenshot('06-lens-after-edit');
    // Undo, so the following scenarios see the fixture as committed.
    await wb.openFile('src/report.ts');
    await wb.page.keyboard.press('Control+Z');
    await wb.openFile('src/util/format.ts');
    await wb.waitForLens(/^5 dependents/);
  });

  scenario('settings apply live from the Settings UI: a lens threshold hides and shows the lens without a reload prompt; no account internals there', async () => {
    const { wb } = e2e;
    await wb.openFile('src/util/format.ts');
    await wb.waitForLens(/^5 dependents/);
    try {
      await liveLensThreshold();
    } finally {
      await wb.closeSettings();
    }
  });

  async function liveLensThreshold(): Promise<void> {
    const { wb } = e2e;
    await wb.openSettings('loupe.codeLens.minDependents');
    const from = extensionLog().length;
    const field = wb.settingInput('Min Dependents');
    await field.fill('6');
    await field.press('Tab');
    await waitForLog(/settings applied: codeLens/, 30_000, from);
    await wb.screenshot('10-settings-live');
    await wb.closeSettings();
    await wb.codeLensTexts().filter({ hasText: /dependents/ }).first().waitFor({ state: 'detached', timeout: 30_000 });
    const back = extensionLog().length;
    await wb.openSettings('loupe.codeLens.minDependents');
    await wb.settingInput('Min Dependents').fill('1');
    await wb.settingInput('Min Dependents').press('Tab');
    await waitForLog(/settings applied: codeLens/, 30_000, back);
    await wb.closeSettings();
    await wb.page.locator('.tab', { hasText: 'format.ts' }).first().click();
    await wb.waitForLens(/^5 dependents/, 30_000);
    assert.equal(await wb.page.locator('.notifications-toasts').filter({ hasText: /reload/i }).count(), 0, 'no reload prompt');
    // The owner's plan and credits are account internals, not settings.
    const settings = await wb.openSettings('@ext:loupe.loupe');
    await settings.locator('.setting-item-label', { hasText: /Min Dependents/ }).first().waitFor();
    const labels = (await settings.locator('.setting-item-category, .setting-item-label').allInnerTexts()).join(' | ');
    assert.doesNotMatch(labels, /Plan|Credits/, labels);
    await wb.screenshot('10b-settings-ui');
  }

  scenario('an engine setting restarts the language server, not the window', async () => {
    const { wb } = e2e;
    const from = extensionLog().length;
    await writeUserSettings({ 'loupe.ignore': ['test/**'] });
    await waitForLog(/settings ignore changed: restarting the language server/, 30_000, from);
    await waitForLog(/language server restarted in (\d+) ms/, 60_000, from);
    await wb.statusItem().filter({ hasText: /Loupe 7 files/ }).waitFor({ timeout: 60_000 });
    await writeUserSettings({ 'loupe.ignore': undefined });
    await wb.statusItem().filter({ hasText: /Loupe 8 files/ }).waitFor({ timeout: 60_000 });
    assert.equal(await wb.page.locator('.notifications-toasts').filter({ hasText: /reload/i }).count(), 0, 'no reload prompt');
  });

  scenario('the sidecar\'s port is not offered in the Ports view', async () => {
    const { wb } = e2e;
    const ports = extensionLog().match(/Loupe API: http:\/\/127\.0\.0\.1:(\d+)/g) ?? [];
    const sidecar = ports.length ? ports[ports.length - 1].split(':').pop()! : '';
    assert.ok(sidecar, 'the log names the sidecar port');
    await wb.command('Ports: Focus on Ports View');
    const view = wb.page.locator('.ports-view, [id="~remote.forwardedPortsContainer"]').first();
    await view.waitFor();
    await wb.screenshot('11-ports-view');
    const text = await view.innerText();
    assert.ok(!text.includes(sidecar), `port ${sidecar} is not listed:\n${text}`);
    await wb.page.locator('.panel .codicon-panel-close, .panel .codicon-close').first().click();
  });

  scenario('a warm start (window reload) serves lenses from the persisted index at once', async () => {
    const { wb, timings } = e2e;
    await wb.openFile('src/util/format.ts');
    const from = extensionLog().length;
    const started = Date.now();
    await wb.reload();
    // Generous waits: the time itself is measured (bench/editor-startup.ts), not asserted here.
    const ready = await waitForLog(/language server ready (\d+) ms after activation/, 240_000, from);
    await wb.waitForLens(/^5 dependents/, 120_000);
    timings.warmStartToLensMs = Date.now() - started;
    timings.warmServerReadyMs = Number(ready[1]);
    await wb.screenshot('12-warm-start-lens');
    void workspace;
  });
}
