/** The Search view in the sidebar: search, grep hint, research, History, state kept across a reload, Ask about selection. */
import assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { e2e, extensionLog, scenario, waitForLog } from '../harness/suite';

async function searchView(): Promise<Frame> {
  await e2e.wb.command('Loupe: Search');
  return e2e.wb.webviewFrame('results');
}

/** Searches `query` and waits for its own results (the previous search's stay until they arrive). */
export async function search(view: Frame, query: string, timeoutMs = 30_000): Promise<void> {
  await view.locator('#query input').fill(query);
  await view.locator('#query').press('Enter');
  await view.locator('#search-status', { hasText: `results for “${query}”` }).waitFor({ timeout: timeoutMs });
}

export function viewScenarios(workspace: () => string): void {
  scenario('the Search view lives in the sidebar; a click on a result opens it at its line', async () => {
    const { wb, timings } = e2e;
    const view = await searchView();
    // A view of Loupe's own container in the side bar, not an editor tab that splits the layout.
    await wb.page.locator('.sidebar .pane-header', { hasText: /^Search$/i }).first().waitFor();
    assert.equal(await wb.page.locator('.tab', { hasText: /^Loupe$/ }).count(), 0, 'no editor tab');
    const started = Date.now();
    await search(view, 'formatPrice');
    const hit = view.locator('.file').filter({ has: view.locator('.file-path', { hasText: 'src/cart/cart.ts' }) }).locator('.hit').first();
    await hit.waitFor({ timeout: 30_000 });
    timings.searchVisibleMs = Date.now() - started;
    assert.match(await view.locator('#results').innerText(), /formatPrice/);
    // Matches are marked on whole identifiers, and a snippet is one block (one background), not a bar per line.
    const marks = await view.locator('#results mark').allInnerTexts();
    assert.ok(marks.length > 0 && marks.every((m) => /^[\w$]+$/.test(m)), marks.join(','));
    const backgrounds = await view.locator('.snippet .code').first().evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.match(backgrounds, /rgba\(0, 0, 0, 0\)|transparent/);
    await wb.screenshot('04-search-view');
    await hit.click();
    await wb.page.locator('.tab.active').filter({ hasText: 'cart.ts' }).first().waitFor();
    await wb.page.locator('.statusbar-item').filter({ hasText: /Ln (1|18),/ }).first().waitFor();
  });

  scenario('grep mode hints the /regex/ syntax, and a regex finds what it says', async () => {
    const view = await searchView();
    await view.locator('#mode').click();
    await view.locator('vscode-option', { hasText: 'Grep code' }).click();
    await view.locator('#grep-hint').waitFor({ state: 'visible' });
    assert.match(await view.locator('#grep-hint').innerText(), /\/pattern\/flags/);
    assert.match((await view.locator('#query').getAttribute('placeholder')) ?? '', /\/regex\/flags/);
    await search(view, '/format(Price|Date)\\(/');
    // The previous search's results stay until this one's arrive: wait for a file only the regex finds.
    await view.locator('.file-path', { hasText: 'src/report.ts' }).waitFor({ timeout: 30_000 });
    const files = await view.locator('.file-path').allInnerTexts();
    assert.ok(files.includes('src/report.ts') && files.includes('src/cart/cart.ts'), files.join(', '));
    await e2e.wb.screenshot('04b-grep-regex');
    await view.locator('#mode').click();
    await view.locator('vscode-option', { hasText: 'Semantic' }).click();
    await view.locator('#grep-hint').waitFor({ state: 'hidden' });
  });

  scenario('research streams an answer pinned above the question box; sources are listed once and open files', async () => {
    const { wb, timings } = e2e;
    await wb.command('Loupe: Research');
    const view = await wb.webviewFrame('thread');
    await view.locator('#new-thread').click();
    await view.evaluate(() => {
      const lengths: number[] = [];
      (window as unknown as { answerLengths: number[] }).answerLengths = lengths;
      new MutationObserver(() => {
        const answer = document.querySelector('.turn:last-child .answer');
        if (answer) lengths.push(answer.textContent?.length ?? 0);
      }).observe(document.getElementById('thread')!, { childList: true, subtree: true, characterData: true });
    });
    await view.locator('#question textarea').fill('How is the cart total formatted as a price?');
    const started = Date.now();
    await view.locator('#ask').click();
    await view.locator('.turn .answer.done').first().waitFor({ timeout: 60_000 });
    timings.researchDoneMs = Date.now() - started;
    const answer = await view.locator('.turn .answer.done').first().innerText();
    assert.ok(answer.length > 20, `an answer: ${answer}`);
    assert.doesNotMatch(answer, /(^|\s)[_*]{1,2}\w[^\n]*?\w[_*]{1,2}(\s|$)/, 'Markdown emphasis is rendered, not shown as text');
    const lengths = await view.evaluate(() => (window as unknown as { answerLengths: number[] }).answerLengths);
    assert.ok(new Set(lengths.filter((n) => n > 0)).size > 1, `the answer arrived in several pieces: ${lengths.join(',')}`);
    // Sources once: the answer's own list, or the citation line, never both; no path twice.
    const ownList = /Sources/.test(answer);
    assert.equal(await view.locator('.turn .citations').count(), ownList ? 0 : 1);
    const cited = ownList
      ? await view.locator('.turn .answer h5', { hasText: 'Sources' }).locator('xpath=following-sibling::*[1]').locator('a.file-link').allInnerTexts()
      : await view.locator('.turn .citation').allInnerTexts();
    assert.ok(cited.length > 0, 'some sources');
    const paths = cited.map((c) => c.split(':')[0]);
    assert.equal(new Set(paths).size, paths.length, `each source once: ${cited.join(', ')}`);
    // The question box stays at the bottom of the view, under the conversation.
    const composer = await view.locator('.composer').boundingBox();
    const viewport = await view.evaluate(() => window.innerHeight);
    assert.ok(composer && composer.y + composer.height > viewport - 16, `composer at the bottom: ${JSON.stringify(composer)} of ${viewport}`);
    await wb.screenshot('05-research');
    const link = view.locator('.turn .answer a.file-link, .turn .citation').first();
    const target = (await link.innerText()).split(':')[0];
    await link.click();
    await wb.page.locator('.tab.active').filter({ hasText: target.split('/').pop()! }).first().waitFor();
    // The file opened with the focus in its editor (the next step's palette would lose it otherwise).
    await wb.page.locator('.editor-group-container.active .monaco-editor.focused').waitFor();
  });

  scenario('History lists a conversation once and reopens its answers; a follow-up continues it; Clear empties the list', async () => {
    const { wb } = e2e;
    await wb.command('Loupe: Research');
    const view = await wb.webviewFrame('thread');
    await view.locator('#question textarea').fill('Where is formatDate used?');
    await view.locator('#ask').click();
    await view.locator('.turn .answer.done').nth(1).waitFor({ timeout: 60_000 });
    await view.locator('#new-thread').click();
    await view.locator('#thread .empty').waitFor();
    await view.locator('#tab-history').click();
    const rows = view.locator('.history-entry');
    await rows.filter({ hasText: '2 questions' }).waitFor();
    const conversation = rows.filter({ hasText: 'How is the cart total formatted' });
    assert.equal(await conversation.count(), 1, 'one row for the conversation');
    assert.equal(await rows.filter({ hasText: 'Where is formatDate used?' }).count(), 0, 'its follow-up is not a row of its own');
    assert.equal(await rows.filter({ has: view.locator('.kind', { hasText: /^search$/ }) }).filter({ hasText: /^\s*search\s+formatPrice\s/ }).count(), 1, 'a search query once');
    await wb.screenshot('08-history');
    await conversation.click();
    await view.locator('.turn .question', { hasText: 'Where is formatDate used?' }).waitFor();
    assert.equal(await view.locator('.turn .answer.done').count(), 2, 'both answers are back');
    assert.ok((await view.locator('.turn .answer.done').first().innerText()).length > 20);
    await wb.screenshot('08b-history-reopened');
    await view.locator('#tab-history').click();
    await view.locator('#clear-history').click();
    await view.locator('#history .empty', { hasText: 'No searches yet.' }).waitFor();
  });

  scenario('a warm start (window reload) serves lenses from the persisted index; the view keeps its search and conversation', async () => {
    const { wb, timings } = e2e;
    await wb.openFile('src/util/format.ts');
    let view = await searchView();
    await search(view, 'checkout');
    await view.locator('.hit').first().waitFor();
    const before = await view.locator('#results').innerText();
    const from = extensionLog().length;
    const started = Date.now();
    await wb.reload();
    // Generous waits: the time itself is measured (bench/editor-startup.ts), not asserted here.
    const ready = await waitForLog(/language server ready (\d+) ms after activation/, 180_000, from);
    await wb.page.locator('.tab.active', { hasText: 'format.ts' }).waitFor({ timeout: 60_000 });
    await wb.waitForLens(/^5 dependents/, 120_000);
    timings.warmStartToLensMs = Date.now() - started;
    timings.warmServerReadyMs = Number(ready[1]);
    await wb.screenshot('12-warm-start-lens');
    await wb.statusItem().filter({ hasText: /Loupe \d+ files/ }).waitFor({ timeout: 60_000 });
    await wb.page.locator('.sidebar .pane-header', { hasText: /^Search$/i }).first().waitFor();
    view = await wb.webviewFrame('results');
    await view.locator('.hit').first().waitFor();
    assert.equal(await view.locator('#results').innerText(), before);
    assert.equal(await view.locator('#query input').inputValue(), 'checkout');
    await view.locator('#tab-research').click();
    await view.locator('.turn .question', { hasText: 'Where is formatDate used?' }).waitFor();
    await wb.screenshot('13-state-after-reload');
  });

  scenario('Ask about selection sends the selected code with the question', async () => {
    const { wb } = e2e;
    await wb.openFile('src/util/format.ts');
    await wb.activeEditor().locator('.view-line').nth(3).click();
    await wb.page.keyboard.press('Home');
    await wb.page.keyboard.press('Shift+ArrowDown');
    await wb.page.keyboard.press('Shift+ArrowDown');
    await wb.command('Loupe: Ask about Selection');
    await wb.answerInput('What does this return for 1999 cents?');
    const view = await wb.webviewFrame('thread');
    const turn = view.locator('.turn').filter({ hasText: 'What does this return for 1999 cents?' });
    await turn.locator('.answer.done').waitFor({ timeout: 60_000 });
    assert.match(await turn.locator('.question').innerText(), /about src\/util\/format\.ts:4-6[\s\S]*export function formatPrice/);
    await wb.screenshot('14-ask-about-selection');
    void workspace;
  });
}
