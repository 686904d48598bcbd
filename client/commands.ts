import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import type { PanelHost } from './panel/panel-host';
import { dependentItems } from './dependents-text';

/** Commands: the status bar menu, the lens clicks, the panel. Declared in package.json `contributes.commands`. */
export function registerCommands(ctx: Ctx, panel: PanelHost): void {
  const reg = (id: string, fn: (...args: never[]) => unknown) => ctx.push(vscode.commands.registerCommand(id, fn as (...args: unknown[]) => unknown));

  reg('loupe.menu', async () => {
    const paused = ctx.status?.paused ?? false;
    const sidecar = await ctx.request('loupe/sidecar', undefined);
    type Item = vscode.QuickPickItem & { run: () => unknown };
    const items: Item[] = [
      paused
        ? { label: '$(debug-start) Resume indexing', run: () => ctx.request('loupe/resume', undefined) }
        : { label: '$(debug-pause) Pause indexing', run: () => ctx.request('loupe/pause', undefined) },
      { label: '$(refresh) Reindex workspace', run: () => ctx.request('loupe/reindex', undefined) },
      { label: '$(search) Open search and research panel', run: () => panel.show('search') },
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
  reg('loupe.openPanel', () => panel.show('search'));
  reg('loupe.research', () => panel.show('research'));
  reg('loupe.showLogs', () => ctx.log.show());

  // File lens click: the dependents with their depth; one of them opens, or the whole tree goes to the panel.
  reg('loupe.showDependents', async (uri?: string) => {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri.toString();
    if (!target) return;
    const radius = await ctx.request('loupe/radius', { uri: target });
    if (radius.note) return vscode.window.showInformationMessage(`Loupe: ${radius.note}`);
    const treeItem = { label: '$(list-tree) Show the whole radius tree in the panel', detail: '', uri: '', alwaysShow: true };
    const picked = await vscode.window.showQuickPick([treeItem, ...dependentItems(radius)], {
      title: `${radius.dependents.length} files depend on ${radius.path}`, matchOnDescription: true,
    });
    if (!picked) return;
    if (picked === treeItem) return panel.showRadius(radius);
    await vscode.window.showTextDocument(vscode.Uri.parse(picked.uri));
  });

  reg('loupe.showRadiusTree', async (uri?: string) => {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri.toString();
    if (target) panel.showRadius(await ctx.request('loupe/radius', { uri: target }));
  });

  // Symbol lens click: peek the places that use it, as "Find All References" does.
  reg('loupe.showSymbolUsers', async (uri: string, symbol: string, line: number) => {
    const users = await ctx.request('loupe/symbolUsers', { uri, symbol });
    const locations = users.files.map((f) => new vscode.Location(vscode.Uri.parse(f.uri), new vscode.Position(Math.max(0, f.line - 1), 0)));
    await vscode.commands.executeCommand('editor.action.peekLocations', vscode.Uri.parse(uri), new vscode.Position(line, 0), locations, 'peek');
  });
}
