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

  /** Runs the palette command whose label is exactly `title` (a click: Enter would take the top row, which may be a recently used fuzzy match). */
  async command(title: string): Promise<void> {
    await this.page.keyboard.press('F1');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(`>${title}`);
    const row = this.page.locator('.quick-input-list .monaco-list-row')
      .filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`^${escape(title)}$`) }) }).first();
    await row.waitFor();
    await row.click();
  }

  /** Opens a workspace file with Quick Open and waits for its editor tab. */
  async openFile(relPath: string): Promise<void> {
    await this.page.keyboard.press('Control+P');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(relPath);
    const name = path.basename(relPath);
    const dir = path.dirname(relPath);
    // Click the row naming both the file and its folder: the list may still be filling when Enter
    // would pick its first row.
    let row = this.page.locator('.quick-input-list .monaco-list-row').filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`^${escape(name)}$`) }) });
    if (dir !== '.') row = row.filter({ hasText: dir });
    await row.first().waitFor();
    await row.first().click();
    await this.page.locator('.editor-group-container.active .tab.active').filter({ hasText: name }).waitFor();
    await this.page.locator('.editor-group-container.active .monaco-editor .view-lines').first().waitFor();
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
      }
    }
  }

  /** A view of the side bar (or wherever the user moved it) by its title: "Dependents", "Search"… */
  viewPane(title: string) {
    return this.page.locator('.pane').filter({ has: this.page.locator('.pane-header h3.title', { hasText: new RegExp(`^${escape(title)}$`, 'i') }) }).first();
  }

  /** The rows of a tree view, as text. */
  async treeRows(title: string): Promise<string[]> {
    return this.viewPane(title).locator('.monaco-list-row').allInnerTexts();
  }

  /** Reloads the window (the extension host and the language server start again) and waits for the workbench. */
  async reload(): Promise<void> {
    await this.page.reload();
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
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
