import * as vscode from 'vscode';
import type { DependentEntry, RadiusResult } from '../../protocol/lsp';
import type { Ctx } from '../ctx';
import { onIndexChanged } from './index-events';
import { byDepth, radiusSummary } from '../dependents-text';

export const DEPENDENTS_VIEW_ID = 'loupe.dependents';

type Node = { kind: 'depth'; depth: number; files: DependentEntry[] } | { kind: 'file'; entry: DependentEntry };

/**
 * The Dependents view: the blast radius of the active file (or of the file a command chose), by
 * depth, with entry points and tests marked. It follows the editor and refreshes when the index changes.
 */
export class DependentsTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<Node>;
  private result: RadiusResult | null = null;
  private target: string | null = null;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly ctx: Ctx) {
    this.view = vscode.window.createTreeView(DEPENDENTS_VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    this.subscriptions.push(this.view, this.changed);
    this.subscriptions.push(vscode.window.onDidChangeActiveTextEditor((e) => {
      if (e?.document.uri.scheme === 'file') void this.showFile(e.document.uri.toString());
    }));
    this.subscriptions.push(this.view.onDidChangeVisibility((e) => { if (e.visible) void this.refresh(); }));
    this.subscriptions.push(onIndexChanged(ctx, () => { if (this.view.visible) void this.refresh(); }));
  }

  /** Shows the dependents of `uri` (the active file when none). */
  async showFile(uri?: string): Promise<void> {
    this.target = uri ?? vscode.window.activeTextEditor?.document.uri.toString() ?? null;
    await this.refresh();
  }

  /** Reveals the view on `uri`. */
  async reveal(uri?: string): Promise<void> {
    await vscode.commands.executeCommand(`${DEPENDENTS_VIEW_ID}.focus`);
    await this.showFile(uri);
  }

  async refresh(): Promise<void> {
    if (!this.view.visible) return;
    this.target ??= vscode.window.activeTextEditor?.document.uri.toString() ?? null;
    const target = this.target;
    if (!target) {
      this.set(null, 'Open a file to see what depends on it.', '');
      return;
    }
    const run = (async () => {
      try {
        const result = await this.ctx.request('loupe/radius', { uri: target });
        if (target !== this.target) return;
        const name = result.path.split('/').pop();
        if (result.note) this.set(null, result.note, name ?? '');
        else if (!result.dependents.length) this.set(result, `No file depends on ${result.path}.`, name ?? '');
        else this.set(result, undefined, `${name} · ${radiusSummary(result)}`);
      } catch (error) {
        this.set(null, `Loupe: ${(error as Error).message}`, '');
      }
    })();
    await run;
  }

  private set(result: RadiusResult | null, message: string | undefined, description: string): void {
    this.result = result;
    this.view.message = message;
    this.view.description = description;
    this.changed.fire(undefined);
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'depth') {
      const item = new vscode.TreeItem(`Depth ${node.depth}`, node.depth <= 2 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
      item.description = `${node.files.length} ${node.files.length === 1 ? 'file' : 'files'}`;
      item.contextValue = 'loupe.depth';
      return item;
    }
    const { entry } = node;
    const uri = vscode.Uri.parse(entry.uri);
    const item = new vscode.TreeItem(uri, vscode.TreeItemCollapsibleState.None);
    item.label = entry.path.split('/').pop();
    item.description = [entry.path.split('/').slice(0, -1).join('/'), entry.isEntryPoint ? 'entry point' : '', entry.isTest ? 'test' : ''].filter(Boolean).join(' · ');
    item.iconPath = new vscode.ThemeIcon(entry.isTest ? 'beaker' : entry.isEntryPoint ? 'rocket' : 'file');
    item.tooltip = `${entry.path}\ndepth ${entry.depth}${entry.isEntryPoint ? ' · entry point' : ''}${entry.isTest ? ' · test' : ''}`;
    item.command = { command: 'vscode.open', title: 'Open', arguments: [uri] };
    item.contextValue = 'loupe.dependent';
    return item;
  }

  getChildren(node?: Node): Node[] {
    if (!this.result) return [];
    if (!node) return byDepth(this.result.dependents).map(([depth, files]) => ({ kind: 'depth', depth, files }));
    if (node.kind === 'depth') return node.files.map((entry) => ({ kind: 'file', entry }));
    return [];
  }

  dispose(): void {
    for (const s of this.subscriptions.splice(0)) s.dispose();
  }
}
