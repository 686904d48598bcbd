/** The e2e-app fixture (8 files): activation, the package, lenses, hovers, the status menu, edits, live settings, the Ports view. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { RadiusResult } from '../../../protocol/lsp';
import { copyFixture, tempDir } from '../../helpers/engine';
import { SERVER_JS, startLspClient } from '../../helpers/lsp-client';
import { findFiles } from '../harness/code-server';
import { e2e, extensionLog, scenario, waitForLog, writeUserSettings } from '../harness/suite';

export function fixtureScenarios(): void {
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
      const headless = findFiles(path.join(e2e.server.userDataDir, '..', 'extensions'), /^(cli|mcp)\.js$/).filter((f) => path.basename(path.dirname(f)) === 'dist' && !f.includes('node_modules'));
      assert.deepEqual(headless, [], 'the headless CLI and MCP stdio server are not in the extension');
    }
    await wb.screenshot('01-activated');
  });

  scenario('the installed package indexes every tree-sitter language as the development build does', async () => {
    // The package leaves out what the engine never loads (other grammars, web-tree-sitter, ts-morph):
    // its own server, run from the installed extension with only its own node_modules, must find
    // the same dependents in Go, Python, Rust, Java, C#, C/C++, Ruby and PHP as dist/server.js.
    if (!e2e.extension.vsix) return; // the linked working tree: nothing packaged to check
    const installed = findFiles(path.join(e2e.server.userDataDir, '..', 'extensions'), /^server\.js$/)
      .filter((f) => f.endsWith(path.join('dist', 'server.js')) && !f.includes('node_modules'));
    assert.equal(installed.length, 1, installed.join(', '));
    const folder = copyFixture('polyglot');
    const shipped = await polyglotRadii(folder, installed[0]);
    assert.deepEqual(shipped, await polyglotRadii(folder, SERVER_JS));
    for (const [file, dependents] of Object.entries(shipped)) assert.ok(dependents.length > 0, `${file} has dependents`);
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
    const hover = await wb.hover('formatPrice', /formatPrice is used in/, 30_000);
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
    // Delete the import line: the index follows the editor's text. The editor shows the deletion
    // before the test goes on (a key pressed while the editor was not yet focused is lost: then again).
    const lines = wb.activeEditor().locator('.view-lines');
    // \s: the editor draws spaces as no-break spaces.
    const imported = /import\s\{\sformatDate\s\}/;
    await expectEventually(async () => {
      if (!imported.test(await lines.innerText())) return;
      await lines.locator('.view-line').first().click();
      await wb.page.keyboard.press('Home');
      await wb.page.keyboard.press('Shift+End');
      await wb.page.keyboard.press('Delete');
      await wb.page.waitForFunction((re) => !new RegExp(re).test(document.querySelector('.editor-group-container.active .monaco-editor .view-lines')?.textContent ?? ''), imported.source, { timeout: 5_000 });
    });
    assert.match(await lines.innerText(), /export\sfunction\sreportTitle/);
    await wb.openFile('src/util/format.ts');
    const started = Date.now();
    const lens = await wb.waitForLens(/^4 dependents/);
    timings.lensAfterEditMs = Date.now() - started;
    assert.equal(lens.trim(), '4 dependents · 1 entry point · 1 test');
    await wb.screenshot('06-lens-after-edit');
    // Undo, so the following scenarios see the fixture as committed.
    await wb.openFile('src/report.ts');
    await expectEventually(async () => {
      if (imported.test(await lines.innerText())) return;
      await lines.click();
      await wb.page.keyboard.press('Control+Z');
      await wb.page.waitForFunction((re) => new RegExp(re).test(document.querySelector('.editor-group-container.active .monaco-editor .view-lines')?.textContent ?? ''), imported.source, { timeout: 5_000 });
    });
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

  scenario('the sidecar\'s port is not offered in the Ports view, where a port opened meanwhile is', async () => {
    const { wb } = e2e;
    await wb.statusItem().filter({ hasText: /Loupe \d+ files/ }).waitFor({ timeout: 60_000 });
    const ports = [...extensionLog().matchAll(/Loupe API: http:\/\/127\.0\.0\.1:(\d+)/g)];
    const sidecar = ports.at(-1)?.[1];
    assert.ok(sidecar, 'the log names the sidecar port');
    assert.ok((await fetch(`http://127.0.0.1:${sidecar}/v2/repos`)).status < 500, 'the sidecar listens');
    // VS Code finds candidate ports by scanning the machine's listening sockets every few seconds. A
    // port opened now by another process shows the scan ran; the sidecar's must still be absent.
    const probe = await listeningProbe();
    try {
      await wb.command('Ports: Focus on Ports View');
      const view = wb.page.locator('.ports-view, [id="~remote.forwardedPortsContainer"]').first();
      await view.locator('.monaco-list-row', { hasText: new RegExp(`\\b${probe.port}\\b`) }).first().waitFor({ timeout: 120_000 });
      await wb.screenshot('11-ports-view');
      const rows = await view.locator('.monaco-list-row').allInnerTexts();
      assert.ok(!rows.some((r) => new RegExp(`\\b${sidecar}\\b`).test(r)), `port ${sidecar} is not listed:\n${rows.join('\n')}`);
    } finally {
      probe.stop();
      await wb.page.locator('.panel .codicon-panel-close, .panel .codicon-close').first().click().catch(() => {});
    }
  });
}

/** One file per tree-sitter language of the polyglot fixture, each imported by another. */
const POLYGLOT = ['go/store/store.go', 'py/src/shop/pricing.py', 'rust/src/config.rs', 'java/src/main/java/com/acme/util/Strings.java',
  'csharp/Acme.Core/Geometry/Shapes.cs', 'cpp/src/util.h', 'ruby/lib/ledger/entry.rb', 'php/src/Models/User.php'];

/** The dependents of each POLYGLOT file, as the language server at `serverJs` indexes them. */
async function polyglotRadii(folder: string, serverJs: string): Promise<Record<string, string[]>> {
  const lsp = await startLspClient(folder, tempDir('loupe-e2e-polyglot-'), randomUUID(), {}, process.env, serverJs);
  try {
    await lsp.ready(120_000);
    const out: Record<string, string[]> = {};
    for (const file of POLYGLOT) {
      const radius = (await lsp.connection.sendRequest('loupe/radius', { uri: lsp.uri(file) })) as RadiusResult;
      out[file] = radius.dependents.map((d) => d.path).sort();
    }
    return out;
  } finally {
    await lsp.stop();
  }
}

/** Runs `step` until it passes (at most 5 times): for keyboard input a loaded browser may drop. */
async function expectEventually(step: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
}

/** A process listening on a free port of 127.0.0.1 (as a dev server a user starts would), stopped by stop(). */
async function listeningProbe(): Promise<{ port: number; stop(): void }> {
  const child = spawn(process.execPath, ['-e', "const s = require('net').createServer().listen(0, '127.0.0.1', () => console.log(s.address().port))"], { stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d) => resolve(Number(String(d).trim())));
    child.once('exit', (code) => reject(new Error(`the probe exited ${code}`)));
  });
  return { port, stop: () => child.kill('SIGKILL') };
}
