import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configuredSource, interleave, LOCAL_SOURCE, mergeSearch, parseServerUrl, teamDocument, teamDocumentUri, teamHit, teamSource } from '../../client/team/merge';
import { displayOrder, groupHits } from '../../webview/highlight';
import type { SearchHit, SearchResult } from '../../protocol/lsp';
import type { SearchHit as ApiSearchHit } from '../../protocol/api/search';

const REPO = '0b6b8a52-6c1e-4a4e-9a57-1d2e0c8f4f11';
const team = teamSource(new URL('https://loupe.example.com:8443/api'));

function apiHit(file: string, score: number, extra: Partial<ApiSearchHit> = {}): ApiSearchHit {
  return { type: 'code', repo_id: REPO, repo_name: 'billing', file_path: file, score, start_line: 10, ...extra };
}

function localHit(file: string, score: number): SearchHit {
  return { type: 'code', repo_id: 'local-repo', repo_name: 'app', file_path: file, score, start_line: 1, uri: `file:///w/${file}`, line: 1 };
}

const result = (hits: SearchHit[], total = hits.length, warnings: string[] = []): SearchResult => ({ hits, total, tookMs: 7, warnings });

test('a team server is labelled with its host; local hits with "local"', () => {
  assert.deepEqual(team, { kind: 'team', label: 'loupe.example.com:8443' });
  assert.deepEqual(LOCAL_SOURCE, { kind: 'local', label: 'local' });
  const merged = mergeSearch({ ok: true, value: result([localHit('a.ts', 1)]) }, { source: team, outcome: { ok: true, value: result([teamHit(apiHit('b.ts', 1), team)]) } });
  assert.deepEqual(merged.hits.map((h) => [h.file_path, h.source.label]), [['a.ts', 'local'], ['b.ts', 'loupe.example.com:8443']]);
  assert.deepEqual(merged.sources.map((s) => [s.source.label, s.total]), [['local', 1], ['loupe.example.com:8443', 1]]);
});

test('a team hit opens as a loupe-team: document naming its server, repository and path, read back exactly', () => {
  const hit = teamHit(apiHit('src/a b/100%#?.ts', 0.5, { repo_name: 'org/billing', snippet: { start_line: 10, text: 'x\ny', highlights: [{ line: 11, start: 0, end: 1 }] } }), team);
  assert.equal(hit.line, 11, 'the first highlighted line');
  assert.ok(hit.uri!.startsWith('loupe-team://loupe.example.com:8443/org-billing/src/a%20b/100%25%23%3F.ts?repo='), hit.uri!);
  // As vscode.Uri hands the parts to the content provider: decoded path and query.
  const url = new URL(hit.uri!.replace(/^loupe-team:/, 'http:'));
  const doc = teamDocument({ authority: url.host, path: decodeURIComponent(url.pathname), query: decodeURIComponent(url.search.slice(1)) });
  assert.deepEqual(doc, { host: 'loupe.example.com:8443', repoId: REPO, filePath: 'src/a b/100%#?.ts' });
  // A repository hit has no file to open; a hit without a snippet lands where it starts.
  assert.equal(teamHit(apiHit('x', 1, { type: 'repo', file_path: null }), team).uri, null);
  assert.equal(teamHit(apiHit('x.ts', 1), team).line, 10);
  assert.equal(teamDocument({ authority: 'h', path: '/repo', query: 'repo=x' }), null, 'no file path');
  assert.equal(teamDocumentUri('h:1', { repo_id: 'r', repo_name: '', file_path: 'a.ts' }), 'loupe-team://h:1/repository/a.ts?repo=r');
});

test('two answers interleave by score, each keeping its own order; a tie goes to the local index', () => {
  const first = [{ id: 'l1', score: 1 }, { id: 'l2', score: 0.4 }, { id: 'l3', score: 0.9 }];
  const second = [{ id: 't1', score: 1 }, { id: 't2', score: 0.8 }, { id: 't3', score: 0.1 }];
  assert.deepEqual(interleave(first, second).map((h) => h.id), ['l1', 't1', 't2', 'l2', 'l3', 't3']);
  assert.deepEqual(interleave([], second).map((h) => h.id), ['t1', 't2', 't3']);
  assert.deepEqual(interleave(first, []).map((h) => h.id), ['l1', 'l2', 'l3']);
  // Whichever answer came back first, the same list.
  const a = mergeSearch({ ok: true, value: result([localHit('a.ts', 1), localHit('b.ts', 0.5)]) },
    { source: team, outcome: { ok: true, value: result([teamHit(apiHit('c.ts', 1), team), teamHit(apiHit('d.ts', 0.7), team)]) } });
  assert.deepEqual(a.hits.map((h) => h.file_path), ['a.ts', 'c.ts', 'd.ts', 'b.ts']);
});

test('an unreachable team server is a message and the local hits still show; a failed local index, the team hits', () => {
  const down = mergeSearch({ ok: true, value: result([localHit('a.ts', 1)], 1, ['w']) }, { source: team, outcome: { ok: false, message: 'cannot reach the team server' } });
  assert.deepEqual(down.hits.map((h) => h.file_path), ['a.ts']);
  assert.deepEqual(down.errors, [{ source: team, message: 'cannot reach the team server' }]);
  assert.equal(down.total, 1);
  assert.deepEqual(down.warnings, ['local: w'], 'with two sources a warning says whose it is');
  const both = mergeSearch({ ok: true, value: result([], 0, ['no model yet', 'w']) }, { source: team, outcome: { ok: true, value: result([], 0, ['no model yet']) } });
  assert.deepEqual(both.warnings, ['local and loupe.example.com:8443: no model yet', 'local: w'], 'the same warning from both, once');
  const localDown = mergeSearch({ ok: false, message: 'server restarting' }, { source: team, outcome: { ok: true, value: result([teamHit(apiHit('c.ts', 1), team)], 40) } });
  assert.deepEqual(localDown.hits.map((h) => h.source.kind), ['team']);
  assert.deepEqual(localDown.errors.map((e) => e.source.kind), ['local']);
  assert.equal(localDown.total, 40);
  // No team server: the local answer as it was, its hits labelled local, its warnings as they were.
  const alone = mergeSearch({ ok: true, value: result([localHit('a.ts', 1)], 1, ['w']) }, null);
  assert.deepEqual(alone.warnings, ['w']);
  assert.deepEqual(alone.sources.map((s) => s.source.kind), ['local']);
  assert.deepEqual(alone.errors, []);
});

test('a repository of the same name in both places is two groups, each with its source; rows are drawn in that order', () => {
  const l = (file: string, score: number) => ({ ...localHit(file, score), repo_name: 'billing', source: LOCAL_SOURCE });
  const t = (file: string, score: number) => teamHit(apiHit(file, score), team);
  const merged = mergeSearch({ ok: true, value: result([l('a.ts', 1), l('b.ts', 0.2)]) }, { source: team, outcome: { ok: true, value: result([t('a.ts', 0.9)]) } });
  const groups = groupHits(merged.hits);
  assert.deepEqual(groups.map((g) => [g.source?.label, g.repo, g.files.map((f) => f.path)]),
    [['local', 'billing', ['a.ts']], ['loupe.example.com:8443', 'billing', ['a.ts']], ['local', 'billing', ['b.ts']]]);
  assert.deepEqual(displayOrder(merged.hits).map((h) => `${h.source.kind}:${h.file_path}`), ['local:a.ts', 'team:a.ts', 'local:b.ts']);
});

test('loupe.server.url: an http(s) base URL; anything else says what is wrong', () => {
  assert.equal(parseServerUrl('  '), null);
  assert.equal((parseServerUrl('https://loupe.example.com/') as { url: URL }).url.host, 'loupe.example.com');
  assert.equal((parseServerUrl('http://127.0.0.1:7345/team/') as { url: URL }).url.pathname, '/team/');
  assert.match((parseServerUrl('loupe.example.com') as { error: string }).error, /not a URL/);
  assert.match((parseServerUrl('ftp://loupe.example.com') as { error: string }).error, /http:\/\/ or https:\/\//);
  assert.match((parseServerUrl('https://me:secret@loupe.example.com') as { error: string }).error, /must not hold credentials.*secret storage/);
  assert.match((parseServerUrl('https://loupe.example.com/?key=1') as { error: string }).error, /without \?query/);
  // What the panel labels while the team server is asked: its host, or the setting as written when it is no URL.
  assert.deepEqual(configuredSource('http://127.0.0.1:7345/'), { kind: 'team', label: '127.0.0.1:7345' });
  assert.deepEqual(configuredSource(' loupe '), { kind: 'team', label: 'loupe' });
  assert.equal(configuredSource(''), null);
});
