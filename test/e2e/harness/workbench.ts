/**
 * Driving VS Code's workbench in Chromium: open files, read lenses, hover, run commands, look
 * into webviews. Every wait is on DOM state, never a fixed sleep.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { CHROMIUM } from './install';

export const SCREENSHOTS = path.join(__dirname, '..', '..', '..', 'test-output', 'e2e');

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

export class Workbench {
  constructor(readonly page: Page) {}

  /** `query`: more URL parameters for the workbench (e.g. `payload`, VS Code web's development options). */
  static async open(browser: Browser, url: string, folder: string, query = ''): Promise<Workbench> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    const page = await context.newPage();
    // A loaded machine takes long to serve the workbench: the wait is on the page, not a sleep.
    await page.goto(`${url}/?folder=${encodeURIComponent(folder)}${query}`, { timeout: 180_000 });
    await page.locator('.monaco-workbench').waitFor({ timeout: 180_000 });
    return new Workbench(page);
  }

  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    const file = path.join(SCREENSHOTS, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  /** The Loupe status bar item. */
  statusItem() {
    return this.page.locator('.statusbar-item').filter({ hasText: 'Loupe' }).first();
  }

  /**
   * Runs the palette command whose label is exactly `title` (a click: Enter would take the top row,
   * which may be a recently used fuzzy match). The palette closes when something else takes the focus
   * (an editor a previous step opened, a view revealing itself): then it is opened again, as a user
   * would press F1 again; every wait is on the palette's state.
   */
  async command(title: string, timeoutMs = 60_000): Promise<void> {
    const widget = this.page.locator('.quick-input-widget');
    const input = widget.locator('input');
    const row = this.page.locator('.quick-input-list .monaco-list-row')
      .filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`^${escape(title)}$`) }) }).first();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = () => Math.max(1_000, deadline - Date.now());
      try {
        if (!(await input.isVisible())) await this.page.keyboard.press('F1');
        await input.waitFor({ timeout: Math.min(10_000, left()) });
        await input.fill(`>${title}`, { timeout: Math.min(10_000, left()) });
        await row.waitFor({ timeout: Math.min(20_000, left()) });
        await row.click({ timeout: Math.min(10_000, left()) });
        return;
      } catch (error) {
        // Still open: the command is not offered (a real failure). Closed: the focus moved; again.
        if (Date.now() >= deadline || (await input.isVisible())) throw error;
      }
    }
  }

  /**
   * Opens a workspace file with Quick Open and waits for its editor tab. On a loaded machine a click
   * can land while the list redraws and be lost: then the row is clicked again, as a user would.
   */
  async openFile(relPath: string, timeoutMs = 60_000): Promise<void> {
    const input = this.page.locator('.quick-input-widget input');
    const name = path.basename(relPath);
    const dir = path.dirname(relPath);
    // Click the row naming both the file and its folder: the list may still be filling when Enter
    // would pick its first row.
    let row = this.page.locator('.quick-input-list .monaco-list-row').filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`^${escape(name)}$`) }) });
    if (dir !== '.') row = row.filter({ hasText: dir });
    const tab = this.page.locator('.editor-group-container.active .tab.active').filter({ hasText: name });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = () => Math.max(1_000, deadline - Date.now());
      try {
        if (!(await input.isVisible()) || !(await input.getAttribute('placeholder'))?.startsWith('Search files')) {
          await this.page.keyboard.press('Escape');
          await this.page.keyboard.press('Control+P');
        }
        await input.waitFor({ timeout: Math.min(10_000, left()) });
        if ((await input.inputValue()) !== relPath) await input.fill(relPath, { timeout: Math.min(10_000, left()) });
        await row.first().waitFor({ timeout: Math.min(20_000, left()) });
        await row.first().click({ timeout: Math.min(10_000, left()) });
        await tab.waitFor({ timeout: Math.min(10_000, left()) });
        break;
      } catch (error) {
        if (Date.now() >= deadline) throw error;
        if (await tab.isVisible() && !(await input.isVisible())) break;
      }
    }
    await this.page.locator('.editor-group-container.active .monaco-editor .view-lines').first().waitFor();
  }

  /** Closes whatever a previous step left open over the workbench (palette, menu, hover, modal editor). */
  async dismiss(): Promise<void> {
    // A "save changes?" dialog a failed step left: keep the file as it is on disk.
    const dontSave = this.page.locator('.monaco-dialog-box .monaco-button', { hasText: "Don't Save" });
    if (await dontSave.isVisible().catch(() => false)) await dontSave.click();
    for (let i = 0; i < 2; i++) {
      const open = await this.page.locator('.quick-input-widget input, .context-view .monaco-menu, .monaco-hover:not(.hidden)').first().isVisible().catch(() => false);
      if (!open) return;
      await this.page.keyboard.press('Escape');
    }
  }

  activeEditor() {
    return this.page.locator('.editor-group-container.active .monaco-editor').first();
  }

  /** The text of every CodeLens in the active editor. */
  codeLensTexts() {
    return this.activeEditor().locator('.codelens-decoration');
  }

  async waitForLens(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
    const lens = this.codeLensTexts().filter({ hasText: pattern }).first();
    await lens.waitFor({ timeout: timeoutMs });
    return (await lens.textContent()) ?? '';
  }

  /**
   * Hovers the first span of the active editor containing `text` and returns the hover's text. The
   * mouse comes back every few seconds: a hover asked while the language's own server was still
   * starting may never show, and VS Code asks again only when the mouse moves.
   */
  async hover(text: string, expect: RegExp, timeoutMs = 15_000): Promise<string> {
    const target = this.activeEditor().locator('.view-line span span').filter({ hasText: text }).first();
    await target.waitFor();
    const hover = this.page.locator('.monaco-hover:not(.hidden)').filter({ hasText: expect }).first();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const box = (await target.boundingBox())!;
      await this.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      try {
        await hover.waitFor({ timeout: Math.min(5_000, Math.max(1, deadline - Date.now())) });
        return (await hover.innerText()) ?? '';
      } catch (error) {
        if (Date.now() >= deadline) throw error;
        await this.page.mouse.move(box.x + box.width / 2, box.y + 200);
        // Another name's hover (the line above, hovered while a lens moved the lines) may cover the target:
        // the mouse would come back onto that hover, which then stays. Close it before the next try.
        await this.page.keyboard.press('Escape');
        await this.page.locator('.monaco-hover:not(.hidden)').first().waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => {});
      }
    }
  }

  /** A view of the side bar (or wherever the user moved it) by its title: "Dependents", "Search"… */
  viewPane(title: string) {
    return this.page.locator('.pane').filter({ has: this.page.locator('.pane-header h3.title', { hasText: new RegExp(`^${escape(title)}$`, 'i') }) }).first();
  }

  /** Folds every other expanded view of the side bar, so `title`'s tree has the room to draw all its rows. */
  async soloPane(title: string): Promise<void> {
    const others = this.page.locator('.sidebar .pane-header[aria-expanded="true"]')
      .filter({ hasNot: this.page.locator('h3.title', { hasText: new RegExp(`^${escape(title)}$`, 'i') }) });
    for (let i = await others.count(); i > 0; i--) await others.first().click();
  }

  /** The rows of a tree view, as text. */
  async treeRows(title: string): Promise<string[]> {
    return this.viewPane(title).locator('.monaco-list-row').allInnerTexts();
  }

  /**
   * Reloads the window as a user does ("Developer: Reload Window"): the workbench shuts down in order
   * (views save their state, storage is flushed), a new extension host and language server start.
   * Then waits for the new workbench.
   */
  /** Reloads the window; resolves with the time (Date.now()) the new page started loading. */
  async reload(): Promise<number> {
    const navigated = this.page.waitForEvent('framenavigated', { predicate: (f) => f === this.page.mainFrame(), timeout: 180_000 }).then(() => Date.now());
    navigated.catch(() => {}); // when the command below fails, its error is the one to report
    await this.command('Developer: Reload Window');
    const at = await navigated;
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 180_000 });
    return at;
  }

  /** Right-clicks `target` and returns the labels of the context menu that opens. */
  async contextMenu(target: ReturnType<Page['locator']>): Promise<string[]> {
    await target.click({ button: 'right' });
    const menu = this.page.locator('.context-view .monaco-menu');
    await menu.waitFor();
    return menu.locator('.action-label').allInnerTexts();
  }

  /** Opens the Settings UI searching `query`; returns the settings editor. */
  async openSettings(query: string) {
    await this.command('Preferences: Open User Settings');
    const editor = this.page.locator('.settings-editor').first();
    const box = editor.locator('.settings-header .suggest-input-container').first();
    await box.waitFor();
    // The search box is a small editor: type only once it has the focus, and check what it holds.
    for (let attempt = 0; ; attempt++) {
      await box.click();
      await this.page.keyboard.press('Control+A');
      await this.page.keyboard.insertText(query);
      try {
        await box.locator('.view-line', { hasText: query }).waitFor({ timeout: 3_000 });
        break;
      } catch (error) {
        if (attempt >= 5) throw error;
      }
    }
    await editor.locator('.setting-item-label').first().waitFor();
    return editor;
  }

  /** The input of the setting whose title ends with `label` ("Min Dependents"), in an open Settings editor. */
  settingInput(label: string) {
    return this.page.locator('.settings-editor .setting-item-contents')
      .filter({ has: this.page.locator('.setting-item-label', { hasText: new RegExp(`${escape(label)}$`) }) }).locator('input').first();
  }

  /** Closes the Settings editor (a modal in recent VS Code, an editor tab in older ones). */
  async closeSettings(): Promise<void> {
    await this.page.keyboard.press('Escape');
    if (await this.page.locator('.settings-editor').isVisible()) await this.page.keyboard.press('Control+W');
  }

  /** Runs a command from the palette that asks for text, and answers it. */
  async answerInput(text: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(text);
    await this.page.keyboard.press('Enter');
  }

  /** The frame of the webview whose document has an element `#marker` (VS Code nests webviews in two iframes). */
  async webviewFrame(marker: string, timeoutMs = 30_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const frame of this.page.frames()) {
        const found = await frame.evaluate((id) => !!document.getElementById(id), marker).catch(() => false);
        if (found) return frame;
      }
      if (Date.now() > deadline) throw new Error(`no webview with #${marker}`);
      await this.page.waitForTimeout(200);
    }
  }
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
