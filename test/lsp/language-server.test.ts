import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { copyFixture, tempDir } from '../helpers/engine';
import { startLspClient, type TestLspClient } from '../helpers/lsp-client';
import type { RadiusResult, SymbolUsersResult } from '../../protocol/lsp';

// The real server process over stdio, on the e2e fixture: what the lens and hover say must follow
// the import graph, and edits must move the numbers without a save.
let folder: string;
let lsp: TestLspClient;

before(async () => {
  assert.ok(fs.existsSync(path.join(__dirname, '..', '..', 'dist', 'server.js')), 'run `npm run build` first');
  folder = copyFixture('e2e-app');
  lsp = await startLspClient(folder, tempDir('loupe-lsp-data-'), randomUUID());
  await lsp.ready();
});

after(async () => lsp?.stop());

type Lens = { range: { start: { line: number } }; command: { title: string; command: string; arguments: unknown[] } };
const lenses = (rel: string) => lsp.connection.sendRequest('textDocument/codeLens', { textDocument: { uri: lsp.uri(rel) } }) as Promise<Lens[]>;

test('the first lens after a start comes from the index at once: the file\'s radius; "used in N files" follows after a lens refresh', async () => {
  // Nothing has parsed an importer in this server yet: the first answer does not wait for TypeScript to load.
  const refreshes = lsp.lensRefreshes();
  const found = await lenses('src/util/format.ts');
  assert.equal(found.length, 1, JSON.stringify(found));
  assert.equal(found[0].range.start.line, 0);
  assert.equal(found[0].command.title, '5 dependents · 1 entry point · 1 test');
  assert.equal(found[0].command.command, 'loupe.showDependents');
  // The importers are parsed in the background; then the editor is asked for the lenses again.
  const deadline = Date.now() + 20_000;
  while (lsp.lensRefreshes() === refreshes && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(lsp.lensRefreshes() > refreshes, 'the server asked the editor to refresh its lenses');
  let again = await lenses('src/util/format.ts');
  while (!again.some((l) => /^used in/.test(l.command.title)) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    again = await lenses('src/util/format.ts');
  }
  assert.equal(again.filter((l) => /^used in/.test(l.command.title)).length, 2, JSON.stringify(again));
});

test('exported symbols get "used in N files"; unused ones and zero counts get no lens', async () => {
  const found = await lenses('src/util/format.ts');
  const byLine = new Map(found.map((l) => [l.range.start.line, l.command.title]));
  assert.equal(byLine.get(3), 'used in 2 files'); // formatPrice: cart.ts and the spec
  assert.equal(byLine.get(8), 'used in 1 file'); // formatDate: report.ts
  assert.deepEqual(await lenses('src/index.ts'), []); // nobody imports the entry point
});

test('loupe/radius lists dependents with depth; loupe/symbolUsers the importing lines', async () => {
  const radius = (await lsp.connection.sendRequest('loupe/radius', { uri: lsp.uri('src/util/format.ts') })) as RadiusResult;
  const depth = Object.fromEntries(radius.dependents.map((d) => [d.path, d.depth]));
  assert.deepEqual(depth, { 'src/cart/cart.ts': 1, 'src/report.ts': 1, 'test/format.spec.ts': 1, 'src/cart/checkout.ts': 2, 'src/index.ts': 2 });
  assert.ok(radius.dependents.find((d) => d.path === 'test/format.spec.ts')?.isTest);
  const users = (await lsp.connection.sendRequest('loupe/symbolUsers', { uri: lsp.uri('src/util/format.ts'), symbol: 'formatPrice' })) as SymbolUsersResult;
  assert.deepEqual(users.files.map((f) => f.path), ['src/cart/cart.ts', 'test/format.spec.ts']);
});

test('hover on an import specifier shows the target file\'s compact doc: link and radius, summary, short export list, no headings', async () => {
  const text = fs.readFileSync(path.join(folder, 'src/cart/cart.ts'), 'utf8');
  await lsp.open('src/cart/cart.ts', text);
  const hover = await lsp.connection.sendRequest('textDocument/hover', {
    textDocument: { uri: lsp.uri('src/cart/cart.ts') }, position: { line: 0, character: 32 },
  }) as { contents: { value: string } } | null;
  assert.ok(hover, 'a hover');
  assert.match(hover.contents.value, /^\[src\/util\/format\.ts\]\(file:\/\/.*format\.ts\) · 5 dependents · 1 entry point · 1 test\n/);
  assert.match(hover.contents.value, /Exports `formatPrice`, `formatDate`$/);
  assert.doesNotMatch(hover.contents.value, /^#/m, 'no headings');
});

test('hover on an imported symbol adds what Loupe knows: its users (tests last), the declaring file\'s radius and summary; not a second signature', async () => {
  const hover = await lsp.connection.sendRequest('textDocument/hover', {
    textDocument: { uri: lsp.uri('src/cart/cart.ts') }, position: { line: 0, character: 12 },
  }) as { contents: { value: string } } | null;
  assert.ok(hover);
  const text = hover.contents.value;
  assert.match(text, /`formatPrice` is used in \*\*2 files\*\*: \[cart\.ts\]\([^)]*cart\.ts#L\d+\); 1 test: \[format\.spec\.ts\]/);
  assert.match(text, /Declared in \[src\/util\/format\.ts:4\]\([^)]*#L4\) · 5 dependents · 1 entry point · 1 test/);
  assert.match(text, /format\.ts: Formatting helpers for prices and dates shown to shoppers\.$/);
  assert.doesNotMatch(text, /cents: number/, 'the signature is the language\'s own hover');
  assert.doesNotMatch(text, /Formats an amount in cents/, 'so is the doc comment');
});

test('a name inside a comment, a string, a member name or a local gets no hover', async () => {
  const at = (line: number, character: number) => lsp.connection.sendRequest('textDocument/hover', {
    textDocument: { uri: lsp.uri('src/cart/cart.ts') }, position: { line, character },
  }) as Promise<{ contents: { value: string } } | null>;
  const line = fs.readFileSync(path.join(folder, 'src/cart/cart.ts'), 'utf8').split('\n')[17];
  assert.equal(await at(17, line.indexOf('// formatPrice') + 5), null, 'formatPrice in a comment');
  assert.notEqual(await at(17, line.indexOf('formatPrice(') + 2), null, 'the same name in code');
  assert.equal(await at(13, 20), null, '`lines` of this.lines is a member');
  assert.equal(await at(13, 32), null, '`sum`, a parameter');
});

test('an unsaved edit changes the lens: removing report.ts\'s import drops a dependent', async () => {
  const rel = 'src/report.ts';
  const original = fs.readFileSync(path.join(folder, rel), 'utf8');
  await lsp.open(rel, original);
  const edited = original.replace("import { formatDate } from './util/format';\n", '');
  await lsp.connection.sendNotification('textDocument/didChange', {
    textDocument: { uri: lsp.uri(rel), version: 2 }, contentChanges: [{ text: edited }],
  });
  const deadline = Date.now() + 10_000;
  let title = '';
  while (Date.now() < deadline) {
    title = (await lenses('src/util/format.ts')).find((l) => l.range.start.line === 0)?.command.title ?? '';
    if (title.startsWith('4 dependents')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(title, '4 dependents · 1 entry point · 1 test');
  assert.equal(fs.readFileSync(path.join(folder, rel), 'utf8'), original, 'the file on disk is untouched');
});
