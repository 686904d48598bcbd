import * as vscode from 'vscode';
import type { ChangeBase, ChangeRadiusResult, ChangedFile, DependentEntry } from '../../protocol/lsp';
import type { Ctx } from '../ctx';
import { onIndexChanged } from './index-events';
import { byDepth } from '../dependents-text';
import { changeSummary } from './change-text';

export const CHANGES_VIEW_ID = 'loupe.changes';

type Entry = DependentEntry & { repoName: string };
type Node =
  | { kind: 'group'; id: 'changed' | 'tests' | 'affected'; label: string; count: number }
  | { kind: 'depth'; depth: number; files: Entry[] }
  | { kind: 'changed'; file: ChangedFile }
  | { kind: 'file'; entry: Entry };

const STATUS_ICON: Record<ChangedFile['status'], string> = { added: 'diff-added', untracked: 'diff-added', modified: 'diff-modified', deleted: 'diff-removed', renamed: 'diff-renamed' };

/**
 * "Radius of My Change": the files the working tree changes (or the branch, against its base), the
 * tests to run first, and every file they affect by depth. Refreshes on save and when the index changes.
 */
export class ChangeRadiusTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<Node>;
  private result: ChangeRadiusResult | null = null;
  private against: ChangeBase = 'workingTree';
  private readonly subscriptions: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly ctx: Ctx) {
    this.view = vscode.window.createTreeView(CHANGES_VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    this.subscriptions.push(this.view, this.changed);
    this.subscriptions.push(this.view.onDidChangeVisibility((e) => { if (e.visible) void this.refresh(); }));
    this.subscriptions.push(vscode.workspace.onDidSaveTextDocument(() => this.refreshSoon()));
    this.subscriptions.push(onIndexChanged(ctx, () => this.refreshSoon()));
    void vscode.commands.executeCommand('setContext', 'loupe.changeRadius.against', this.against);
  }

  async reveal(against?: ChangeBase): Promise<void> {
    if (against) {
      this.against = against;
      void vscode.commands.executeCommand('setContext', 'loupe.changeRadius.against', against);
    }
    await vscode.commands.executeCommand(`${CHANGES_VIEW_ID}.focus`);
    await this.refresh();
  }

  private refreshSoon(): void {
    if (!this.view.visible) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = null; void this.refresh(); }, 500);
  }

  async refresh(): Promise<void> {
    if (!this.view.visible) return;
    try {
      const result = await this.ctx.request('loupe/changeRadius', { against: this.against });
      this.result = result;
      this.view.description = `${this.against === 'branch' ? 'branch' : 'working tree'} vs ${result.base ?? '—'}`;
      this.view.message = result.changed.length ? changeSummary(result) : [`No changes ${this.against === 'branch' ? 'on this branch' : 'in the working tree'}.`, ...result.notes].join(' ');
    } catch (error) {
      this.result = null;
      this.view.message = `Loupe: ${(error as Error).message}`;
    }
    this.changed.fire(undefined);
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case 'group': {
        const item = new vscode.TreeItem(node.label, node.id === 'affected' ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded);
        item.description = String(node.count);
        item.iconPath = new vscode.ThemeIcon(node.id === 'changed' ? 'git-compare' : node.id === 'tests' ? 'beaker' : 'references');
        item.id = `group:${node.id}`;
        return item;
      }
      case 'depth': {
        const item = new vscode.TreeItem(`Depth ${node.depth}`, vscode.TreeItemCollapsibleState.Collapsed);
        item.description = `${node.files.length} ${node.files.length === 1 ? 'file' : 'files'}`;
        return item;
      }
      case 'changed': {
        const { file } = node;
        const item = this.fileItem(file.uri, file.path, file.repoName);
        item.description = [item.description, file.status, file.status !== 'deleted' ? `${file.dependents} dependents` : ''].filter(Boolean).join(' · ');
        item.iconPath = new vscode.ThemeIcon(STATUS_ICON[file.status]);
        if (file.status === 'deleted') item.command = undefined;
        return item;
      }
      case 'file': {
        const { entry } = node;
        const item = this.fileItem(entry.uri, entry.path, entry.repoName);
        item.description = [item.description, entry.depth ? `depth ${entry.depth}` : 'changed', entry.isEntryPoint ? 'entry point' : ''].filter(Boolean).join(' · ');
        item.iconPath = new vscode.ThemeIcon(entry.isTest ? 'beaker' : entry.isEntryPoint ? 'rocket' : 'file');
        return item;
      }
    }
  }

  private fileItem(uri: string, path: string, repoName: string): vscode.TreeItem {
    const item = new vscode.TreeItem(vscode.Uri.parse(uri), vscode.TreeItemCollapsibleState.None);
    item.label = path.split('/').pop();
    const dir = path.split('/').slice(0, -1).join('/');
    item.description = (vscode.workspace.workspaceFolders?.length ?? 0) > 1 ? `${repoName}/${dir}` : dir;
    item.tooltip = path;
    item.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.parse(uri)] };
    return item;
  }

  getChildren(node?: Node): Node[] {
    const r = this.result;
    if (!r || !r.changed.length) return [];
    if (!node) {
      return [
        { kind: 'group', id: 'changed', label: 'Changed files', count: r.changed.length },
        { kind: 'group', id: 'tests', label: 'Tests to run first', count: r.tests.length },
        { kind: 'group', id: 'affected', label: 'Affected files', count: r.dependents.length },
      ];
    }
    if (node.kind === 'group') {
      if (node.id === 'changed') return r.changed.map((file) => ({ kind: 'changed', file }));
      if (node.id === 'tests') return r.tests.map((entry) => ({ kind: 'file', entry }));
      return byDepth(r.dependents).map(([depth, files]) => ({ kind: 'depth', depth, files: files as Entry[] }));
    }
    if (node.kind === 'depth') return node.files.map((entry) => ({ kind: 'file', entry }));
    return [];
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const s of this.subscriptions.splice(0)) s.dispose();
  }
}
