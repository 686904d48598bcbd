/// <reference types="mocha" />
/**
 * Inside the extension host, against the real `vscode` API, on the e2e-app fixture (opened as the
 * workspace): activation, commands, CodeLens and hover providers, views, and the language model tools.
 */
import assert from 'node:assert/strict';
import * as vscode from 'vscode';

const root = () => vscode.workspace.workspaceFolders![0].uri;
const file = (rel: string) => vscode.Uri.joinPath(root(), rel);
/** The providers run on an open document (the workbench has no model of an unopened file: "Illegal argument"). */
async function lensesOf(rel: string): Promise<vscode.CodeLens[]> {
  const doc = await vscode.workspace.openTextDocument(file(rel));
  return vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
}

/** Polls `probe` until it returns a value; `seen` says what it saw last, for the failure message. */
async function until<T>(what: string, probe: (seen: (s: unknown) => void) => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = 'nothing';
  for (;;) {
    const value = await probe((s) => { last = s; }).catch((error: Error) => { last = error.message; return undefined; });
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const toolText = (result: vscode.LanguageModelToolResult) =>
  result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');

describe('Loupe in the extension host', () => {
  before(async () => {
    const extension = vscode.extensions.getExtension('loupe.loupe');
    assert.ok(extension, 'the extension is installed');
    await extension.activate();
    // The index is ready when the file lens shows the known radius.
    await until('the index', async (seen) => {
      const lenses = await lensesOf('src/util/format.ts');
      seen(lenses?.map((l) => l.command?.title ?? '(unresolved)'));
      return lenses?.some((l) => l.command?.title === '5 dependents · 1 entry point · 1 test') ? true : undefined;
    });
  });

  it('registers every command it contributes', async () => {
    const manifest = vscode.extensions.getExtension('loupe.loupe')!.packageJSON as { contributes: { commands: { command: string }[] } };
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = manifest.contributes.commands.map((c) => c.command).filter((c) => !registered.has(c));
    assert.deepEqual(missing, []);
  });

  it('CodeLens: the file radius and "used in N files" on exports', async () => {
    const lenses = await lensesOf('src/util/format.ts');
    const titles = lenses.map((l) => `${l.range.start.line}:${l.command?.title}`);
    assert.ok(titles.includes('0:5 dependents · 1 entry point · 1 test'), titles.join(', '));
    assert.ok(titles.includes('3:used in 2 files'), titles.join(', '));
  });

  it('hover: an imported name gets its users and radius; a word in a comment gets nothing from Loupe', async () => {
    const doc = await vscode.workspace.openTextDocument(file('src/cart/cart.ts'));
    const text = (hovers: vscode.Hover[]) => hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))).join('\n');
    const onName = await until('a hover', async () => {
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(0, 12));
      return /is used in/.test(text(hovers)) ? text(hovers) : undefined;
    });
    assert.match(onName, /`formatPrice` is used in \*\*2 files\*\*/);
    const line = doc.lineAt(17).text;
    const inComment = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(17, line.indexOf('// formatPrice') + 6));
    assert.doesNotMatch(text(inComment), /is used in/);
  });

  it('views: the Dependents view and the radius of my change open from their commands', async () => {
    await vscode.commands.executeCommand('loupe.showRadiusTree', file('src/util/format.ts'));
    await vscode.commands.executeCommand('loupe.showChangeRadius');
    await vscode.commands.executeCommand('loupe.openPanel');
  });

  it('language model tools: declared with schemas, and each answers from the index', async () => {
    const names = vscode.lm.tools.filter((t) => t.name.startsWith('loupe_')).map((t) => t.name).sort();
    assert.deepEqual(names, ['loupe_blastRadius', 'loupe_blueprint', 'loupe_fileDocs', 'loupe_search']);
    for (const tool of vscode.lm.tools.filter((t) => t.name.startsWith('loupe_'))) assert.equal((tool.inputSchema as { type: string }).type, 'object');
    const invoke = async (name: string, input: object) => toolText(await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }));
    assert.match(await invoke('loupe_search', { query: 'formatPrice' }), /src\/util\/format\.ts:\d+/);
    assert.match(await invoke('loupe_search', { query: '/format(Price|Date)\\(/', mode: 'grep_code' }), /src\/report\.ts:\d+/);
    assert.match(await invoke('loupe_blastRadius', { files: ['src/util/format.ts'] }), /^src\/util\/format\.ts: 5 dependents · 1 entry point · 1 test\.\nDepth 1 \(3\): src\/cart\/cart\.ts, src\/report\.ts, test\/format\.spec\.ts \[test\]\nDepth 2 \(2\)/);
    assert.match(await invoke('loupe_fileDocs', { file: 'src/util/format.ts' }), /formatPrice/);
    assert.match(await invoke('loupe_blueprint', {}), /e2e-app/);
  });
});
