/**
 * The extension beside a real team server: `npm run serve` (server/serve.ts from source, as the npm script runs it)
 * and `npm run worker` on a private PostgreSQL 15, with a repository the worker indexed after it was registered
 * through the API node (POST /v2/repos/index/new), and VS Code (code-server, driven through Chromium) on the
 * e2e-app fixture with `loupe.server.url` pointing at the API node. The key is set through the command, as a user
 * does (VS Code's secret storage); the panel's search shows hits of both sources, each labelled; a team hit opens
 * its text read through the team server's API; research asks both sources by default and draws two labelled answers
 * as they stream, a team source opening read-only from the team server; with the API node stopped, the panel says
 * the server cannot be reached and still shows the local hits and the local answer.
 * Everything started here is stopped in `after()`, also when a scenario fails.
 */
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Frame } from 'playwright-core';
import { copyFixture, tempDir } from '../helpers/engine';
import { indexThroughTeam, startTeamServer, type ApiNode, type TeamServer } from '../helpers/team-server';
import { ensureE2eTools } from './harness/install';
import { startCodeServer } from './harness/code-server';
import { launchBrowser, Workbench } from './harness/workbench';
import { extensionUnderTest } from './harness/extension-under-test';
import { e2e, extensionLog, scenario, waitForLog } from './harness/suite';

/** A line only the team repository holds: seeing it in the editor proves the team server's text was shown. */
const MARKER = '// Invoices are rounded to whole cents before tax (team billing rule 7).';
let team: TeamServer | undefined;
let api = '';
/** The API node: the last scenario stops it. */
let apiNode: ApiNode | undefined;

/** The organisation's repository on the team server: a small billing module that also formats prices. */
function teamRepository(): string {
  const folder = tempDir('loupe-team-billing-');
  fs.mkdirSync(path.join(folder, 'billing'), { recursive: true });
  fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'billing', version: '1.0.0' }, null, 2));
  fs.writeFileSync(path.join(folder, 'billing', 'invoice.ts'), [
    '/** Invoices for the billing service: totals, taxes and how a price is printed on them. */',
    MARKER,
    'export interface InvoiceLine { description: string; cents: number }',
    '',
    '/** Formats an invoice total as a price, the way the billing service prints it. */',
    'export function formatPriceForInvoice(lines: InvoiceLine[], currency = "€"): string {',
    '  const cents = lines.reduce((sum, line) => sum + Math.round(line.cents), 0);',
    '  return `${currency}${(cents / 100).toFixed(2)} (formatPrice, invoice total)`;',
    '}',
    '',
  ].join('\n'));
  return folder;
}

before(async () => {
  ensureE2eTools();
  const billing = teamRepository();
  team = await startTeamServer();
  apiNode = await team.node('billing', { allow: [billing] });
  api = apiNode.base;
  await team.worker();
  // Registered through the API node (it queues a job), indexed by the worker.
  await indexThroughTeam(team, api, billing, 180_000);

  const workspace = copyFixture('e2e-app');
  e2e.extension = await extensionUnderTest();
  e2e.server = await startCodeServer({
    workspace, name: 'team-server', ...e2e.extension,
    settings: { 'loupe.sidecar.port': 0, 'loupe.server.url': api },
  });
  e2e.browser = await launchBrowser();
  e2e.wb = await Workbench.open(e2e.browser, e2e.server.url, workspace);
});

after(async () => {
  await e2e.browser?.close().catch(() => {});
  await e2e.server?.stop().catch(() => {});
  await team?.stop();
});

async function searchView(): Promise<Frame> {
  await e2e.wb.command('Loupe: Search');
  return e2e.wb.webviewFrame('results');
}

/**
 * Searches until `ready` holds for the drawn results: the window's own index may still be building when the first
 * search runs (then the local source has no hits yet), so the search is run again, as a user would.
 */
async function searchUntil(view: Frame, query: string, ready: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let n = 1; ; n++) {
    await view.locator('#query input').fill(query);
    await view.locator('#query').press('Enter');
    await view.locator('#search-status', { hasText: `results for “${query}”` }).waitFor({ timeout: 60_000 });
    const settle = Date.now() + 5_000;
    while (Date.now() < settle) {
      if (await ready()) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    if (Date.now() > deadline) throw new Error(`after ${n} searches for ${query}: ${await view.locator('#search-status').innerText()}\n${await view.locator('#results').innerText()}`);
    // A new search replaces the status: wait for its own.
    await view.evaluate(() => { document.getElementById('search-status')!.textContent = ''; });
  }
}

scenario('the panel searches the local index and the team server; each hit says where it is from; a team hit opens its text from the team server', async () => {
  const { wb } = e2e;
  const host = new URL(api).host;
  // The palette lists the commands known when it opens: wait for the extension first.
  await waitForLog(/Loupe language server ready/, 180_000);
  // The key goes to the secret storage through the command, never into settings.json.
  await wb.command('Loupe: Set Team Server API Key');
  // The command's own input box (not the palette closing behind it): it names the secret storage.
  const box = wb.page.locator('.quick-input-widget', { hasText: 'kept in the secret storage' });
  await box.waitFor({ timeout: 60_000 });
  await box.locator('input').fill(team!.key);
  await wb.page.keyboard.press('Enter');
  await waitForLog(/team server: its API key was set/);
  assert.ok(!fs.readFileSync(`${e2e.server.userDataDir}/User/settings.json`, 'utf8').includes(team!.key), 'the key is not in settings.json');

  const view = await searchView();
  const teamHit = view.locator('.hit[data-source="team"]');
  const localHit = view.locator('.hit[data-source="local"]');
  await searchUntil(view, 'formatPrice', async () => (await teamHit.count()) > 0 && (await localHit.count()) > 0);
  // Labelled: the local repository's heading says "local", the team's names the team server's host.
  const badges = await view.locator('.repo-name .source').allInnerTexts();
  assert.ok(badges.includes('local') && badges.includes(host), badges.join(', '));
  const teamFiles = await view.locator('.repo').filter({ has: view.locator('.source-team') }).locator('.file-path').allInnerTexts();
  assert.ok(teamFiles.includes('billing/invoice.ts'), teamFiles.join(', '));
  const localFiles = await view.locator('.repo').filter({ has: view.locator('.source-local') }).locator('.file-path').allInnerTexts();
  assert.ok(localFiles.includes('src/util/format.ts'), localFiles.join(', '));
  assert.ok(!localFiles.includes('billing/invoice.ts') && !teamFiles.includes('src/util/format.ts'), 'each file under its own source');
  assert.match(await view.locator('#search-status').innerText(), new RegExp(`\\(local \\d+ · ${host.replace(/\./g, '\\.')} \\d+\\)`));
  assert.equal(await view.locator('.source-error').count(), 0);
  await wb.screenshot('30-team-server-search');

  // A team hit opens the team server's text (there is no such file on this machine's workspace), read-only.
  const logFrom = extensionLog().length;
  await view.locator('.file').filter({ has: view.locator('.file-path', { hasText: 'billing/invoice.ts' }) }).locator('.hit[data-source="team"]').first().click();
  await wb.page.locator('.tab.active').filter({ hasText: 'invoice.ts' }).first().waitFor({ timeout: 60_000 });
  const editor = wb.activeEditor();
  await editor.locator('.view-lines', { hasText: 'team billing rule 7' }).waitFor({ timeout: 30_000 });
  await waitForLog(new RegExp(`team server: opened billing/invoice\\.ts \\(\\d+ lines\\) from ${host.replace(/\./g, '\\.')}`), 30_000, logFrom);
  const before = await editor.locator('.view-lines').innerText();
  await editor.locator('.view-lines').click();
  await wb.page.keyboard.type('zz');
  await wb.page.waitForTimeout(300);
  assert.equal(await editor.locator('.view-lines').innerText(), before, 'a team file is read-only');
  await wb.screenshot('31-team-server-file');
  await wb.page.keyboard.press('Control+W');
});

async function researchView(): Promise<Frame> {
  await e2e.wb.command('Loupe: Research');
  return e2e.wb.webviewFrame('thread');
}

/** Asks a question in the Research tab and waits until every part of its turn is done; returns that turn. */
async function ask(view: Frame, question: string) {
  const turns = await view.locator('.turn').count();
  await view.locator('#question textarea').fill(question);
  await view.locator('#ask').click();
  const turn = view.locator('.turn').nth(turns);
  await turn.locator('.question', { hasText: question }).waitFor({ timeout: 30_000 });
  // The turn is done when Ask is enabled again (both parts ended: answered, failed or stopped).
  await view.locator('#ask:not([disabled])').waitFor({ timeout: 180_000 });
  return turn;
}

scenario('research asks the local index and the team server: two labelled answers as they stream; a team source opens read-only from the team server', async () => {
  const { wb } = e2e;
  const host = new URL(api).host;
  const view = await researchView();
  await view.locator('#new-thread').click();
  // With a team server set, the panel offers where to ask; both sources by default.
  const where = view.locator('#research-where');
  await where.waitFor({ state: 'visible', timeout: 30_000 });
  assert.equal(await where.evaluate((el) => (el as HTMLElement & { value: string }).value), 'both');
  await view.evaluate(() => {
    // Streaming: the team part's answer grows in several steps (recorded as the DOM changes).
    const lengths: number[] = [];
    (window as unknown as { teamLengths: number[] }).teamLengths = lengths;
    new MutationObserver(() => {
      const answer = document.querySelector('.turn:last-child .answer-part[data-source="team"] .answer');
      if (answer) lengths.push(answer.textContent?.length ?? 0);
    }).observe(document.getElementById('thread')!, { childList: true, subtree: true, characterData: true });
  });
  const turn = await ask(view, 'How is a price formatted for an invoice?');
  const local = turn.locator('.answer-part[data-source="local"]');
  const remote = turn.locator('.answer-part[data-source="team"]');
  assert.equal(await local.locator('.answer-source .source').innerText(), 'local');
  assert.equal(await remote.locator('.answer-source .source').innerText(), host);
  assert.equal(await remote.getAttribute('aria-label'), `Answer from the team server ${host}`);
  assert.equal(await turn.locator('.error').count(), 0, await turn.innerText());
  // Each answer is grounded on its own source: the team's on the billing repository, the local one on the workspace.
  const teamAnswer = await remote.locator('.answer.done').innerText();
  assert.match(teamAnswer, /formatPriceForInvoice/);
  const teamLinks = await remote.locator('a.file-link').evaluateAll((els) => els.map((e) => `${(e as HTMLElement).dataset.uri} ${e.textContent}`));
  assert.ok(teamLinks.length > 0 && teamLinks.every((l) => l.startsWith(`loupe-team://${host}/`)), teamLinks.join('\n'));
  assert.ok(teamLinks.some((l) => l.includes('billing/invoice.ts')), teamLinks.join('\n'));
  const localLinks = await local.locator('a.file-link').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.uri ?? ''));
  assert.ok(localLinks.length > 0 && localLinks.every((u) => u.startsWith('file:')), localLinks.join('\n'));
  assert.ok((await local.locator('.answer.done').innerText()).length > 20);
  const lengths = await view.evaluate(() => (window as unknown as { teamLengths: number[] }).teamLengths);
  assert.ok(new Set(lengths.filter((n) => n > 0)).size > 1, `the team answer arrived in several pieces: ${lengths.join(',')}`);
  await wb.screenshot('33-team-server-research');

  // A team source opens the team server's text (the line only the team repository holds), read-only. (The first
  // scenario opened this document already: VS Code may keep its text, so no second read need reach the server.)
  await remote.locator('a.file-link', { hasText: 'billing/invoice.ts' }).first().click();
  await wb.page.locator('.tab.active').filter({ hasText: 'invoice.ts' }).first().waitFor({ timeout: 60_000 });
  const editor = wb.activeEditor();
  await editor.locator('.view-lines', { hasText: 'team billing rule 7' }).waitFor({ timeout: 30_000 });
  const text = await editor.locator('.view-lines').innerText();
  await editor.locator('.view-lines').click();
  await wb.page.keyboard.type('zz');
  await wb.page.waitForTimeout(300);
  assert.equal(await editor.locator('.view-lines').innerText(), text, 'a team source is read-only');
  await wb.page.keyboard.press('Control+W');

  // The team server alone: one part, its own.
  const again = await researchView();
  await again.locator('#research-where').click();
  await again.locator('vscode-option', { hasText: `${host} only` }).click();
  const teamOnly = await ask(again, 'Where is the invoice total rounded?');
  assert.equal(await teamOnly.locator('.answer-part[data-source="local"]').count(), 0);
  assert.match(await teamOnly.locator('.answer-part[data-source="team"] .answer.done').innerText(), /invoice/i);
  await again.locator('#research-where').click();
  await again.locator('vscode-option', { hasText: `local + ${host}` }).click();
});

scenario('an unreachable team server is a clear message, and the local results still show', async () => {
  // The team server goes away (its API node stops); the URL and the key stay as they were.
  const host = new URL(api).host;
  apiNode!.child.kill('SIGTERM');
  await apiNode!.exited();
  const view = await searchView();
  const error = view.locator('.source-error');
  // A kept-alive connection may first end as "other side closed"; a new one is refused: search until it says so.
  await searchUntil(view, 'formatDate', async () => /connection refused/.test((await error.allInnerTexts()).join('\n'))
    && (await view.locator('.hit[data-source="local"]').count()) > 0);
  const message = await error.innerText();
  assert.match(message, new RegExp(`Team server ${host.replace(/\./g, '\\.')}: cannot reach the team server at ${api.replace(/\./g, '\\.')}: connection refused`));
  assert.match(message, /showing the local results/);
  assert.equal(await view.locator('.hit[data-source="team"]').count(), 0);
  assert.ok((await view.locator('.file-path').allInnerTexts()).includes('src/util/format.ts'));
  await e2e.wb.screenshot('32-team-server-unreachable');

  // Research too: the team part is one sentence, and the local answer shows beside it.
  const research = await researchView();
  const turn = await ask(research, 'How is a date formatted?');
  const failed = turn.locator('.answer-part[data-source="team"] .source-error');
  assert.equal(await failed.count(), 1, await turn.innerText());
  assert.match(await failed.innerText(), new RegExp(`^Team server ${host.replace(/\./g, '\\.')}: cannot reach the team server at ${api.replace(/\./g, '\\.')}: connection refused .* — showing the local answer\\.$`));
  assert.ok((await turn.locator('.answer-part[data-source="local"] .answer.done').innerText()).length > 20);
  assert.equal(await turn.locator('.answer-part[data-source="local"] .error').count(), 0);
  await e2e.wb.screenshot('34-team-server-research-unreachable');
});
