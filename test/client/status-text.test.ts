import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatCount, progressPercent, statusText } from '../../client/status-text';
import { dependentItems } from '../../client/dependents-text';
import type { LoupeStatus, RepoStatus } from '../../protocol/lsp';

const repo = (over: Partial<RepoStatus>): RepoStatus => ({
  repoId: 'r', name: 'app', rootPath: '/w/app', phase: 'ready', filesDone: 0, filesTotal: 0, error: null, ...over,
});
const status = (repos: RepoStatus[], over: Partial<LoupeStatus> = {}): LoupeStatus => ({
  repos, paused: false, sidecarUrl: 'http://127.0.0.1:7341', sidecarError: null, firstIndex: false, ...over,
});

test('while indexing the status bar counts files done of total, then shows the index size', () => {
  assert.equal(statusText(status([repo({ phase: 'parsing', filesDone: 120, filesTotal: 900 })])).text, '$(sync~spin) Loupe indexing 120/900');
  assert.equal(statusText(status([repo({ phase: 'scanning' })])).text, '$(sync~spin) Loupe listing files…');
  assert.equal(statusText(status([repo({ phase: 'derived', filesDone: 512, filesTotal: 1531 })])).text, '$(sync~spin) Loupe search index 512/1531');
  assert.equal(statusText(status([repo({ phase: 'ready', filesDone: 1234, filesTotal: 1234 })])).text, '$(eye) Loupe 1.2k files');
  // Before the server answers, it says it is starting rather than spinning without a word.
  assert.equal(statusText(null).text, '$(loading~spin) Loupe starting…');
});

test('paused and failed states say so; the tooltip names each folder and the API address', () => {
  const paused = statusText(status([repo({ phase: 'paused', filesDone: 5, filesTotal: 10 })], { paused: true }));
  assert.equal(paused.text, '$(debug-pause) Loupe paused');
  assert.match(paused.tooltip, /app: paused \(5\/10 files\)/);
  assert.match(paused.tooltip, /API: http:\/\/127\.0\.0\.1:7341/);
  const failed = statusText(status([repo({ phase: 'failed', error: 'disk full' })], { sidecarUrl: null, sidecarError: 'port 7341 is in use' }));
  assert.equal(failed.text, '$(error) Loupe');
  assert.match(failed.tooltip, /indexing failed — disk full/);
  assert.match(failed.tooltip, /API not started: port 7341 is in use/);
});

test('counts and percentages', () => {
  assert.deepEqual([formatCount(999), formatCount(1000), formatCount(12_345)], ['999', '1k', '12k']);
  assert.equal(progressPercent(status([repo({ filesDone: 1, filesTotal: 3 }), repo({ filesDone: 0, filesTotal: 1 })])), 25);
  assert.equal(progressPercent(status([])), 0);
});

test('dependents are listed nearest first with depth, entry points and tests marked', () => {
  const items = dependentItems({
    uri: 'file:///w/a.ts', path: 'a.ts', entryPoints: 1, tests: 1, note: null,
    dependents: [
      { path: 'src/main.ts', uri: 'u2', depth: 2, isEntryPoint: true, isTest: false },
      { path: 'test/a.spec.ts', uri: 'u3', depth: 1, isEntryPoint: false, isTest: true },
      { path: 'src/b.ts', uri: 'u1', depth: 1, isEntryPoint: false, isTest: false },
    ],
  });
  assert.deepEqual(items.map((i) => [i.label, i.description]), [
    ['$(file) src/b.ts', 'depth 1'],
    ['$(beaker) test/a.spec.ts', 'depth 1 · test'],
    ['  $(rocket) src/main.ts', 'depth 2 · entry point'],
  ]);
});

test('the radius of my change in one line, and tool answers a model reads', async () => {
  const { changeSummary } = await import('../../client/views/change-text');
  const entry = { path: 'test/a.test.ts', uri: 'file:///w/test/a.test.ts', depth: 1, isEntryPoint: false, isTest: true, repoName: 'w' };
  assert.equal(changeSummary({ changed: [{} as never], dependents: [entry, { ...entry, path: 'src/main.ts', isTest: false, isEntryPoint: true }], tests: [entry], entryPoints: 1 }),
    '1 changed file affects 2 files · 1 entry point · 1 test to run');
  const { radiusText, searchText } = await import('../../client/tool-text');
  assert.equal(radiusText({ uri: '', path: 'src/a.ts', dependents: [], entryPoints: 0, tests: 0, note: null }), 'src/a.ts: no file depends on it.');
  assert.match(radiusText({ uri: '', path: 'src/a.ts', dependents: [entry, { ...entry, path: 'src/b.ts', isTest: false, depth: 2 }], entryPoints: 0, tests: 1, note: null }),
    /^src\/a\.ts: 2 dependents · 1 test\.\nDepth 1 \(1\): test\/a\.test\.ts \[test\]\nDepth 2 \(1\): src\/b\.ts$/);
  assert.match(searchText('cart', { hits: [{ type: 'code', repo_id: '00000000-0000-4000-8000-000000000000', repo_name: 'w', file_path: 'src/cart.ts', uri: null, line: 3, start_line: 3, end_line: 5, snippet: { start_line: 3, text: 'class Cart {}', highlights: [] }, score: 1 }], total: 1, tookMs: 2, warnings: [] }),
    /1 results for "cart" \(best first\):\n\nsrc\/cart\.ts:3\n```\nclass Cart \{\}\n```/);
  const { selectionQuestion } = await import('../../client/ask-text');
  assert.equal(selectionQuestion('why?', 'src/a.ts', { start: 4, end: 6, text: 'x()' }), 'why?\n\n(about src/a.ts:4-6)\n```\nx()\n```');
});
