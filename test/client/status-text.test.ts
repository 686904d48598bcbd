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
