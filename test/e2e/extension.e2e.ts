/**
 * The extension in a real VS Code (code-server) driven through Chromium, on the e2e-app fixture.
 * One code-server and one browser serve every scenario; each scenario saves a screenshot under
 * test-output/e2e/. Timings go to test-output/e2e/timings.json (docs/benchmarks.md quotes them).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { copyFixture } from '../helpers/engine';
import { ensureE2eTools } from './harness/install';
import { startCodeServer, findFiles, type CodeServer } from './harness/code-server';
import { launchBrowser, Workbench, SCREENSHOTS } from './harness/workbench';
import { extensionUnderTest } from './harness/extension-under-test';
import { honoWorkspace } from './harness/real-project';

let server: CodeServer;
let browser: Browser;
let wb: Workbench;
let workspace: string;
let extension: { extensionFolder?: string; vsix?: string };
const timings: Record<string, number | number[]> = {};

before(async () => {
  ensureE2eTools();
  workspace = copyFixture('e2e-app');
  extension = await extensionUnderTest();
  server = await startCodeServer({
    workspace, ...extension,
    // Port 0: never collide with a Loupe already serving 7341 on this machine.
    settings: { 'loupe.sidecar.port': 0 },
  });
  browser = await launchBrowser();
  wb = await Workbench.open(browser, server.url, workspace);
});

after(async () => {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  fs.writeFileSync(path.join(SCREENSHOTS, 'timings.json'), `${JSON.stringify(timings, null, 2)}\n`);
  await browser?.close();
  await server?.stop();
});

/** A scenario that saves a screenshot of the workbench when it fails, to see why. */
function scenario(name: string, fn: () => Promise<void>): void {
  test(name, async () => {
    try {
      await fn();
    } catch (error) {
      await wb?.screenshot(`failed-${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}`).catch(() => {});
      throw error;
    }
  });
}

function extensionLog(): string {
  const files = findFiles(server.userDataDir, /Loupe\.log$/);
  return files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}

async function waitForLog(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = extensionLog().match(pattern);
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`the Loupe log never matched ${pattern}:\n${extensionLog()}\n${server.output.join('')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

scenario('activates, starts the language server and indexes the workspace', async () => {
  const activated = await waitForLog(/Loupe activated in (\d+) ms/);
  timings.activationMs = Number(activated[1]);
  const ready = await waitForLog(/language server ready (\d+) ms after activation/);
  timings.serverReadyMs = Number(ready[1]);
  await wb.statusItem().filter({ hasText: /Loupe \d+ files/ }).waitFor({ timeout: 60_000 });
  const text = await wb.statusItem().innerText();
  assert.match(text, /Loupe 8 files/);
  if (extension.vsix) {
    // Installed from the .vsix: the native SQLite binary came inside the package.
    const installed = findFiles(path.join(server.userDataDir, '..', 'extensions'), /^linux-x64\.node$/);
    assert.ok(installed.some((f) => f.includes('better-sqlite3')), `better-sqlite3's binary is in the installed extension: ${installed.join(', ')}`);
  }
  await wb.screenshot('01-activated');
});

scenario('the CodeLens on format.ts shows its known dependents', async () => {
  const started = Date.now();
  await wb.openFile('src/util/format.ts');
  const lens = await wb.waitForLens(/dependents/);
  timings.lensVisibleMs = Date.now() - started;
  assert.equal(lens.trim(), '5 dependents · 1 entry point · 1 test');
  await wb.waitForLens(/used in 2 files/);
  await wb.waitForLens(/used in 1 file/);
  await wb.screenshot('02-codelens');
});

scenario('hovering an import shows that file\'s docs', async () => {
  await wb.openFile('src/cart/cart.ts');
  const started = Date.now();
  const hover = await wb.hover('../util/format', /format\.ts/);
  timings.hoverVisibleMs = Date.now() - started;
  assert.match(hover, /src\/util\/format\.ts/);
  assert.match(hover, /formatPrice|processing/);
  await wb.screenshot('03-hover-import');
  await wb.page.keyboard.press('Escape');
});

scenario('clicking the file lens lists dependents by depth; the whole tree opens in the panel', async () => {
  await wb.openFile('src/util/format.ts');
  await wb.codeLensTexts().locator('a', { hasText: /dependents/ }).first().click();
  const rows = wb.page.locator('.quick-input-list .monaco-list-row');
  await rows.filter({ hasText: 'src/cart/checkout.ts' }).waitFor();
  const listed = await rows.allInnerTexts();
  assert.ok(listed.some((r) => /src\/cart\/cart\.ts[\s\S]*depth 1/.test(r)), listed.join(' | '));
  assert.ok(listed.some((r) => /src\/index\.ts[\s\S]*depth 2 · entry point/.test(r)), listed.join(' | '));
  await wb.screenshot('02b-dependents-quick-pick');
  await rows.filter({ hasText: 'whole radius tree' }).click();
  const panel = await wb.webviewFrame('radius');
  await panel.locator('#radius details').first().waitFor();
  const tree = await panel.locator('#radius').innerText();
  assert.match(tree, /5 dependents · 1 entry point · 1 test/);
  assert.match(tree, /Depth 1 · 3 files[\s\S]*Depth 2 · 2 files/);
  await wb.screenshot('02c-radius-tree');
});

scenario('the status bar menu offers the sidecar URL and the other actions', async () => {
  await wb.statusItem().click();
  const rows = wb.page.locator('.quick-input-list .monaco-list-row');
  await rows.filter({ hasText: 'Copy sidecar URL' }).waitFor();
  const texts = (await rows.allInnerTexts()).join(' | ');
  for (const action of ['Pause indexing', 'Reindex workspace', 'Copy API key', 'Open API docs']) assert.match(texts, new RegExp(action));
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

scenario('editing a file updates the lens of the file it imported', async () => {
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
});

scenario('the panel searches and a click opens the result at its line', async () => {
  await wb.command('Loupe: Search');
  const panel = await wb.webviewFrame('results');
  const query = panel.locator('#query');
  await query.click();
  await panel.locator('#query input').fill('formatPrice').catch(async () => { await query.pressSequentially('formatPrice'); });
  const started = Date.now();
  await panel.locator('#query').press('Enter');
  const hit = panel.locator('.file').filter({ has: panel.locator('.file-path', { hasText: 'src/cart/cart.ts' }) }).locator('.hit').first();
  await hit.waitFor({ timeout: 30_000 });
  timings.searchVisibleMs = Date.now() - started;
  assert.match(await panel.locator('#results').innerText(), /formatPrice/);
  assert.ok(await panel.locator('#results mark').count() > 0, 'matches are highlighted');
  await wb.screenshot('04-panel-search');
  // Keyboard: ArrowDown moves from the query into the results, again to the next hit, Enter opens it.
  const second = await panel.locator('.hit[data-index="1"]').evaluate((el) => el.closest('.file')!.querySelector('.file-path')!.textContent!);
  await panel.locator('#query').press('ArrowDown');
  await panel.locator('#results').press('ArrowDown');
  await panel.locator('.hit.selected[data-index="1"]').waitFor();
  await panel.locator('#results').press('Enter');
  await wb.page.locator('.tab.active').filter({ hasText: second.split('/').pop()! }).first().waitFor();
  await wb.command('Loupe: Search');
  await hit.click();
  await wb.page.locator('.tab.active').filter({ hasText: 'cart.ts' }).first().waitFor();
  await wb.page.locator('.statusbar-item').filter({ hasText: /Ln (1|18),/ }).first().waitFor();
  await wb.screenshot('04-search-opened-result');
});

scenario('research streams an answer with citations that open files', async () => {
  await wb.command('Loupe: Research');
  const panel = await wb.webviewFrame('thread');
  // Record the answer's length at every change, to see it arrive in pieces.
  await panel.evaluate(() => {
    const lengths: number[] = [];
    (window as unknown as { answerLengths: number[] }).answerLengths = lengths;
    new MutationObserver(() => {
      const answer = document.querySelector('.turn:last-child .answer');
      if (answer) lengths.push(answer.textContent?.length ?? 0);
    }).observe(document.getElementById('thread')!, { childList: true, subtree: true, characterData: true });
  });
  await panel.locator('#question textarea').fill('How is the cart total formatted as a price?');
  const started = Date.now();
  await panel.locator('#ask').click();
  await panel.locator('.answer.streaming').first().waitFor({ timeout: 30_000 }).catch(() => {});
  await panel.locator('.turn .answer.done').first().waitFor({ timeout: 60_000 });
  timings.researchDoneMs = Date.now() - started;
  const answer = await panel.locator('.turn .answer.done').first().innerText();
  assert.ok(answer.length > 20, `an answer: ${answer}`);
  const lengths = await panel.evaluate(() => (window as unknown as { answerLengths: number[] }).answerLengths);
  assert.ok(new Set(lengths.filter((n) => n > 0)).size > 1, `the answer arrived in several pieces: ${lengths.join(',')}`);
  const citation = panel.locator('.citation').first();
  await citation.waitFor();
  await wb.screenshot('05-research');
  const cited = (await citation.innerText()).split(':')[0];
  await citation.click();
  await wb.page.locator('.tab.active').filter({ hasText: cited.split('/').pop()! }).first().waitFor();

  // A follow-up continues the conversation; History lists both questions under one conversation id.
  await wb.command('Loupe: Research');
  await panel.locator('#question textarea').fill('Where is formatDate used?');
  await panel.locator('#ask').click();
  await panel.locator('.turn .answer.done').nth(1).waitFor({ timeout: 60_000 });
  await panel.locator('#tab-history').click();
  const entries = panel.locator('.history-entry').filter({ hasText: 'research' });
  await entries.filter({ hasText: 'Where is formatDate used?' }).waitFor();
  const first = await entries.filter({ hasText: 'How is the cart total formatted' }).locator('.thread-id').innerText();
  const second = await entries.filter({ hasText: 'Where is formatDate used?' }).locator('.thread-id').innerText();
  assert.equal(second, first, 'the follow-up is in the same conversation');
  await wb.screenshot('08-history');
});

// ---- a real project: hono's npm package (~580 files), opened in a second window of the same code-server ----

let hono: Workbench;

scenario('hono: a real project indexes and shows its lenses', async () => {
  await wb.page.close(); // one window (and one language server) at a time on two cores
  const folder = honoWorkspace();
  const started = Date.now();
  hono = await Workbench.open(browser, server.url, folder);
  wb = hono;
  await hono.statusItem().filter({ hasText: /Loupe \d+ files/ }).waitFor({ timeout: 120_000 });
  timings.honoColdIndexedMs = Date.now() - started;
  await hono.openFile('dist/context.js');
  const lens = await hono.waitForLens(/dependents/, 60_000);
  timings.honoColdFirstLensMs = Date.now() - started;
  assert.match(lens, /^\d+ dependents/);
  await hono.screenshot('20-hono-lens');
});

scenario('hono: Enter and a click on a search result open that result, when a file\'s hits are not contiguous in the answer', async () => {
  await hono.command('Loupe: Search');
  const panel = await hono.webviewFrame('results');
  await panel.locator('#query input').fill('cookie');
  await panel.locator('#query').press('Enter');
  await panel.locator('.hit').first().waitFor({ timeout: 30_000 });
  const rows = await panel.locator('.hit').evaluateAll((els) => els.map((el) => ({
    index: Number((el as HTMLElement).dataset.index), rank: Number((el as HTMLElement).dataset.rank), where: el.getAttribute('title')!,
    file: el.closest('.file')!.querySelector('.file-path')!.textContent!,
  })));
  // The answer interleaves files (the case that opened the wrong row): drawn order ≠ answer order.
  const moved = rows.filter((r) => r.rank !== r.index);
  assert.ok(moved.length > 0, `some row is drawn away from its place in the answer: ${JSON.stringify(rows.slice(0, 12))}`);
  await hono.screenshot('21-hono-search-grouped');
  const opens = async (row: (typeof rows)[number]) => {
    const [file, line] = row.where.split(/:(?=\d+$)/);
    assert.equal(file, row.file, 'a row sits under its own file');
    await hono.page.locator('.tab.active').filter({ hasText: path.basename(file) }).first().waitFor();
    await hono.page.locator('.statusbar-item').filter({ hasText: new RegExp(`Ln ${line},`) }).first().waitFor();
  };
  // A click on a row whose place moved, then Enter on another one reached with the arrow keys.
  const clicked = moved[0];
  await panel.locator(`.hit[data-index="${clicked.index}"]`).click();
  await opens(clicked);
  const keyed = moved.find((r) => r.file !== clicked.file) ?? moved[moved.length - 1];
  await hono.command('Loupe: Search');
  await panel.locator(`.hit[data-index="${clicked.index}"]`).waitFor();
  await panel.locator('#results').focus();
  const steps = keyed.index - clicked.index;
  for (let i = 0; i < Math.abs(steps); i++) await panel.locator('#results').press(steps > 0 ? 'ArrowDown' : 'ArrowUp');
  await panel.locator(`.hit.selected[data-index="${keyed.index}"]`).waitFor();
  await panel.locator('#results').press('Enter');
  await opens(keyed);
  await hono.screenshot('22-hono-search-opened');
});
