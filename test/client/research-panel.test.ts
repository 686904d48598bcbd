import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderTurn } from '../../webview/research-turn';
import { restoreState, type Turn } from '../../webview/state';

/**
 * The research turn as the panel draws it (webview/research-turn.ts, pure): with a team server asked, each source's
 * answer is its own labelled part whose sources open where they are from; a failed team server is one sentence and
 * the local answer still shows; without a team server the turn is drawn as before.
 */
const team = { kind: 'team' as const, label: 'loupe.example.com:8080' };
const localCite = { path: 'src/util/format.ts', uri: 'file:///w/src/util/format.ts', startLine: 3, endLine: 9 };
const teamCite = { path: 'billing/invoice.ts', uri: 'loupe-team://loupe.example.com:8080/billing/billing/invoice.ts?repo=r1', startLine: 6, endLine: 9 };

function turn(over: Partial<Turn> = {}): Turn {
  return { question: 'how is a price formatted?', streamId: 's1', answer: '`formatPrice` in src/util/format.ts:3-9', citations: [localCite], status: '', error: null, done: true, ...over };
}

/** The part of `html` drawn for one source. */
function part(html: string, kind: 'local' | 'team'): string {
  const match = new RegExp(`<section class="answer-part" data-source="${kind}"[\\s\\S]*?</section>`).exec(html);
  assert.ok(match, `no ${kind} part in ${html}`);
  return match[0];
}

test('both sources asked: two labelled parts, each with its own answer and sources; team sources open from the team server', () => {
  const html = renderTurn(turn({
    team: { source: team, answer: '`formatPriceForInvoice` in billing/invoice.ts:6-9', citations: [teamCite], status: '', error: null, done: true },
  }));
  const local = part(html, 'local');
  const remote = part(html, 'team');
  assert.match(local, /aria-label="Answer from the local index"/);
  assert.match(local, /<span class="source source-local"[^>]*>local<\/span>/);
  assert.match(local, /data-uri="file:\/\/\/w\/src\/util\/format\.ts" data-line="3">src\/util\/format\.ts:3</);
  assert.ok(!local.includes('loupe-team:'), 'no team source in the local part');
  assert.match(remote, /aria-label="Answer from the team server loupe\.example\.com:8080"/);
  assert.match(remote, /<span class="source source-team"[^>]*>loupe\.example\.com:8080<\/span>/);
  assert.match(remote, /data-uri="loupe-team:\/\/loupe\.example\.com:8080\/billing\/billing\/invoice\.ts\?repo=r1" data-line="6" title="from the team server loupe\.example\.com:8080 \(read-only\)">billing\/invoice\.ts:6</);
  assert.ok(!remote.includes('file:///'), 'no local source in the team part');
  assert.equal((html.match(/class="question"/g) ?? []).length, 1, 'the question once');
});

test('a failed team server is one sentence in its part, and the local answer still shows', () => {
  const html = renderTurn(turn({
    team: { source: team, answer: '', citations: [], status: '', error: 'cannot reach the team server at http://loupe.example.com:8080: connection refused (is the server running, on that port?)', done: true },
  }));
  assert.match(part(html, 'local'), /formatPrice/);
  const remote = part(html, 'team');
  assert.equal((remote.match(/role="alert"/g) ?? []).length, 1);
  assert.match(remote, /Team server loupe\.example\.com:8080: cannot reach the team server at http:\/\/loupe\.example\.com:8080: connection refused \(is the server running, on that port\?\) — showing the local answer\./);
  // Stopped by the user: said plainly, not as an alert.
  const stopped = renderTurn(turn({ team: { source: team, answer: 'The pri', citations: [], status: '', error: 'stopped', done: true } }));
  assert.ok(!part(stopped, 'team').includes('role="alert"'));
  assert.match(part(stopped, 'team'), /<div class="error">stopped<\/div>/);
});

test('streaming parts show their progress; the team server alone has one part; no team server draws the turn as before', () => {
  const streaming = renderTurn(turn({ answer: 'The price', done: false, team: { source: team, answer: '', citations: [], status: '3 results on loupe.example.com:8080; writing the answer…', error: null, done: false } }));
  assert.match(part(streaming, 'local'), /class="answer streaming"/);
  assert.match(part(streaming, 'team'), /<vscode-progress-ring><\/vscode-progress-ring> 3 results on loupe\.example\.com:8080; writing the answer…/);
  const teamOnly = renderTurn(turn({ local: false, answer: '', citations: [], team: { source: team, answer: 'x', citations: [teamCite], status: '', error: null, done: true } }));
  assert.ok(!teamOnly.includes('data-source="local"'));
  part(teamOnly, 'team');
  const plain = renderTurn(turn());
  assert.ok(!plain.includes('answer-part') && !plain.includes('class="source'), plain);
  assert.match(plain, /<div class="citations"><span>Sources:<\/span> <a href="#" class="file-link citation" data-uri="file:\/\/\/w\/src\/util\/format\.ts" data-line="3">src\/util\/format\.ts:3<\/a><\/div>/);
});

test('a panel closed while both answers streamed comes back with each part said to be interrupted; older states get the new fields', () => {
  const state = restoreState({
    version: 1, tab: 'research',
    search: { query: '', scope: 'code', mode: 'semantic', types: [], paths: [], result: null, selected: -1 },
    research: {
      turns: [turn({ done: false, team: { source: team, answer: 'The', citations: [], status: 'writing', error: null, done: false } })],
      threadId: 't1', model: '', draft: '', models: [],
    },
  });
  const [t] = state.research.turns;
  assert.equal(t.done, true);
  assert.match(t.error ?? '', /interrupted/);
  assert.equal(t.team?.done, true);
  assert.match(t.team?.error ?? '', /interrupted/);
  assert.equal(t.team?.status, '');
});
