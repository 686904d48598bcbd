import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import type { SearchViewHost } from './views/search-view';
import type { DependentsTree } from './views/dependents-tree';
import type { ChangeRadiusTree } from './views/change-radius-tree';
import { dependentItems } from './dependents-text';
import { selectionQuestion } from './ask-text';

export interface Views { search: SearchViewHost; dependents: DependentsTree; changes: ChangeRadiusTree }

/** Commands: the status bar menu, the lens clicks, the views. Declared in package.json `contributes.commands`. */
export function registerCommands(ctx: Ctx, views: Views): void {
  const reg = (id: string, fn: (...args: never[]) => unknown) => ctx.push(vscode.commands.registerCommand(id, fn as (...args: unknown[]) => unknown));
  const activeUri = () => vscode.window.activeTextEditor?.document.uri;
  const uriArg = (arg: unknown): string | undefined => (arg instanceof vscode.Uri ? arg.toString() : typeof arg === 'string' ? arg : activeUri()?.toString());

  reg('loupe.menu', async () => {
    const paused = ctx.status?.paused ?? false;
    const sidecar = await ctx.request('loupe/sidecar', undefined);
    type Item = vscode.QuickPickItem & { run: () => unknown };
    const items: Item[] = [
      paused
        ? { label: '$(debug-start) Resume indexing', run: () => ctx.request('loupe/resume', undefined) }
        : { label: '$(debug-pause) Pause indexing', run: () => ctx.request('loupe/pause', undefined) },
      { label: '$(refresh) Reindex workspace', run: () => ctx.request('loupe/reindex', undefined) },
      { label: '$(search) Search and research', run: () => views.search.show('search') },
      { label: '$(git-compare) Radius of my change', run: () => views.changes.reveal() },
      {
        label: '$(link) Copy sidecar URL', description: sidecar.url ?? sidecar.error ?? 'the sidecar is off',
        run: async () => {
          if (!sidecar.url) return vscode.window.showWarningMessage(`Loupe: no sidecar URL (${sidecar.error ?? 'the sidecar is off (loupe.sidecar.enabled)'})`);
          await vscode.env.clipboard.writeText(sidecar.url);
          return vscode.window.showInformationMessage(`Loupe: copied ${sidecar.url}`);
        },
      },
      {
        label: '$(key) Copy API key', description: 'for X-API-Key',
        run: async () => {
          await vscode.env.clipboard.writeText((await ctx.extension.secrets.get('loupe.ownerKey')) ?? '');
          return vscode.window.showInformationMessage('Loupe: API key copied to the clipboard');
        },
      },
      {
        label: '$(book) Open API docs', description: sidecar.docsUrl ?? undefined,
        run: () => sidecar.docsUrl ? vscode.env.openExternal(vscode.Uri.parse(sidecar.docsUrl)) : vscode.window.showWarningMessage('Loupe: the sidecar is not running'),
      },
      { label: '$(output) Show logs', run: () => ctx.log.show() },
    ];
    const picked = await vscode.window.showQuickPick(items, { title: 'Loupe', placeHolder: 'Loupe actions' });
    await picked?.run();
  });

  reg('loupe.pause', () => ctx.request('loupe/pause', undefined));
  reg('loupe.resume', () => ctx.request('loupe/resume', undefined));
  reg('loupe.reindex', () => ctx.request('loupe/reindex', undefined));
  reg('loupe.openPanel', () => views.search.show('search'));
  reg('loupe.research', () => views.search.show('research'));
  reg('loupe.showLogs', () => ctx.log.show());

  // File lens click, editor and Explorer menus: the dependents with their depth; one of them opens,
  // or the Dependents view shows them all. No dependents: a message, not an empty list.
  reg('loupe.showDependents', async (arg?: unknown) => {
    const target = uriArg(arg);
    if (!target) return;
    const radius = await ctx.request('loupe/radius', { uri: target });
    if (radius.note) return vscode.window.showInformationMessage(`Loupe: ${radius.note}`);
    if (!radius.dependents.length) return vscode.window.showInformationMessage(`Loupe: no file depends on ${radius.path}.`);
    const treeItem = { label: '$(list-tree) Show them in the Dependents view', detail: '', uri: '', alwaysShow: true };
    const picked = await vscode.window.showQuickPick([treeItem, ...dependentItems(radius)], {
      title: `${radius.dependents.length} ${radius.dependents.length === 1 ? 'file depends' : 'files depend'} on ${radius.path}`, matchOnDescription: true,
    });
    if (!picked) return;
    if (picked === treeItem) return views.dependents.reveal(target);
    await vscode.window.showTextDocument(vscode.Uri.parse(picked.uri));
  });

  reg('loupe.showRadiusTree', (arg?: unknown) => views.dependents.reveal(uriArg(arg)));
  reg('loupe.showChangeRadius', () => views.changes.reveal());
  reg('loupe.changeRadius.workingTree', () => views.changes.reveal('workingTree'));
  reg('loupe.changeRadius.branch', () => views.changes.reveal('branch'));
  reg('loupe.changeRadius.refresh', () => views.changes.refresh());

  // Editor: the selection (or the line) with a question; Explorer: the file with a question.
  reg('loupe.askAboutSelection', async (arg?: unknown) => {
    const editor = vscode.window.activeTextEditor;
    const fromExplorer = arg instanceof vscode.Uri && arg.toString() !== editor?.document.uri.toString();
    const uri = fromExplorer ? arg : editor?.document.uri;
    if (!uri) return;
    const question = await vscode.window.showInputBox({
      title: 'Loupe: Ask about selection', prompt: fromExplorer ? `A question about ${vscode.workspace.asRelativePath(uri)}` : 'A question about the selected code',
      placeHolder: 'What does this do, and who relies on it?', ignoreFocusOut: true,
    });
    if (!question?.trim()) return;
    const range = !fromExplorer && editor ? (editor.selection.isEmpty ? editor.document.lineAt(editor.selection.active.line).range : editor.selection) : null;
    const text = fromExplorer || !editor || !range ? null : editor.document.getText(range);
    await views.search.show('research', selectionQuestion(question.trim(), vscode.workspace.asRelativePath(uri), range ? { start: range.start.line + 1, end: range.end.line + 1, text: text ?? '' } : null));
  });

  // Symbol lens click: peek the places that use it, as "Find All References" does.
  reg('loupe.showSymbolUsers', async (uri: string, symbol: string, line: number) => {
    const users = await ctx.request('loupe/symbolUsers', { uri, symbol });
    const locations = users.files.map((f) => new vscode.Location(vscode.Uri.parse(f.uri), new vscode.Position(Math.max(0, f.line - 1), 0)));
    await vscode.commands.executeCommand('editor.action.peekLocations', vscode.Uri.parse(uri), new vscode.Position(line, 0), locations, 'peek');
  });
}
