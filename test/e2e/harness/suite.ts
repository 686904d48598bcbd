/**
 * What the scenarios share: one code-server and one browser for the whole run, the window under
 * test, timings for docs/benchmarks.md, and helpers that wait on the extension's log.
 */
import { test } from 'node:test';
import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { findFiles, type CodeServer } from './code-server';
import type { Workbench } from './workbench';

export const e2e = {
  server: null as unknown as CodeServer,
  browser: null as unknown as Browser,
  /** The window the current scenario drives. */
  wb: null as unknown as Workbench,
  extension: {} as { extensionFolder?: string; vsix?: string },
  timings: {} as Record<string, number | number[] | string>,
};

/** A scenario that saves a screenshot of the workbench when it fails, to see why. */
export function scenario(name: string, fn: () => Promise<void>, timeoutMs = 240_000): void {
  // A bound per scenario: a wait that never ends fails the scenario; the after hook still stops everything.
  test(name, { timeout: timeoutMs }, async () => {
    try {
      await e2e.wb?.dismiss();
      await fn();
    } catch (error) {
      await e2e.wb?.screenshot(`failed-${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}`).catch(() => {});
      throw error;
    }
  });
}

/** Every Loupe output channel log of the run (one per window). */
export function extensionLog(): string {
  return findFiles(e2e.server.userDataDir, /Loupe\.log$/).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}

export async function waitForLog(pattern: RegExp, timeoutMs = 60_000, from = 0): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = extensionLog().slice(from).match(pattern);
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`the Loupe log never matched ${pattern}:\n${extensionLog().slice(-4000)}\n${e2e.server.output.join('').slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Changes the user's settings.json the way a user does: in VS Code's JSON settings editor, saved with
 * Ctrl+S (a write to the file from outside is not reliably noticed on this busy machine: file
 * watchers run out).
 */
export async function writeUserSettings(change: Record<string, unknown>): Promise<void> {
  const file = `${e2e.server.userDataDir}/User/settings.json`;
  const settings = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  for (const [key, value] of Object.entries(change)) {
    if (value === undefined) delete settings[key];
    else settings[key] = value;
  }
  const { wb } = e2e;
  const text = JSON.stringify(settings, null, 2);
  await wb.command('Preferences: Open User Settings (JSON)');
  // An editor tab in older VS Code, a modal editor in recent ones: the editor showing this file's text.
  const editor = wb.page.locator('.monaco-editor', { hasText: '"workbench.startupEditor"' }).first();
  const lines = editor.locator('.view-lines');
  const bare = (t: string) => t.replace(/\s+/g, '');
  try {
    // The editor holds the new text before it is saved: a paste into a not yet focused editor is lost.
    for (let attempt = 1; ; attempt++) {
      await lines.click();
      await wb.page.keyboard.press('Control+A');
      await wb.page.keyboard.press('Delete');
      // Pasted, not typed: typing goes through the editor's auto-closing brackets and auto-indent,
      // which leave a stray `}` behind.
      await wb.page.evaluate((t) => navigator.clipboard.writeText(t), text);
      await wb.page.keyboard.press('Control+V');
      const deadline = Date.now() + 5_000;
      while (bare(await lines.innerText()) !== bare(text) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (bare(await lines.innerText()) === bare(text)) break;
      if (attempt >= 5) throw new Error(`the settings editor does not show the new settings:\n${await lines.innerText()}`);
    }
    await wb.page.keyboard.press('Control+S');
    const deadline = Date.now() + 30_000;
    while (fs.readFileSync(file, 'utf8').trim() !== text) {
      if (Date.now() > deadline) throw new Error(`settings.json was not saved:\n${fs.readFileSync(file, 'utf8')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await wb.page.keyboard.press('Escape');
    if (await editor.isVisible()) await wb.page.keyboard.press('Control+W');
    // Closed unsaved after a failure: leave the file as it is on disk.
    const dontSave = wb.page.locator('.monaco-dialog-box .monaco-button', { hasText: "Don't Save" });
    if (await dontSave.isVisible().catch(() => false)) await dontSave.click();
  }
}
