import * as vscode from 'vscode';
import type { RadiusResult } from '../../protocol/lsp';
import type { HostMessage, PanelTab, WebviewMessage } from '../../protocol/webview';
import type { Ctx } from '../ctx';
import { panelHtml } from './panel-html';

/**
 * Hosts the search and research panel. It only relays: every result comes from a `loupe/…` request
 * to the language server, which runs the same engine operations as the HTTP API.
 */
export class PanelHost implements vscode.Disposable {
  private panel: vscode.WebviewPanel | null = null;
  private ready = false;
  private queued: HostMessage[] = [];
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly ctx: Ctx) {}

  /** Starts relaying server notifications; called once the language client runs. */
  listen(): void {
    this.subscriptions.push(this.ctx.onNotification('loupe/researchChunk', (chunk) => this.post({ type: 'researchChunk', chunk })));
  }

  show(tab: PanelTab, query?: string): void {
    this.open();
    this.post({ type: 'focus', tab, query });
  }

  showRadius(result: RadiusResult): void {
    this.open();
    this.post({ type: 'radiusTree', result });
    this.post({ type: 'focus', tab: 'radius' });
  }

  private open(): void {
    if (this.panel) {
      this.panel.reveal(undefined, true);
      return;
    }
    const root = this.ctx.extension.extensionUri;
    const panel = vscode.window.createWebviewPanel('loupe.panel', 'Loupe', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, {
      enableScripts: true,
      // Research answers stream while the panel may be in a background tab.
      retainContextWhenHidden: true,
      localResourceRoots: [vscode.Uri.joinPath(root, 'dist'), vscode.Uri.joinPath(root, 'media')],
    });
    panel.iconPath = vscode.Uri.joinPath(root, 'media', 'loupe.svg');
    panel.webview.html = panelHtml(panel.webview, root);
    panel.webview.onDidReceiveMessage((m: WebviewMessage) => void this.receive(m), undefined, this.subscriptions);
    panel.onDidDispose(() => {
      this.panel = null;
      this.ready = false;
      this.queued = [];
    }, undefined, this.subscriptions);
    this.panel = panel;
  }

  private post(message: HostMessage): void {
    if (!this.panel) return;
    if (!this.ready) {
      this.queued.push(message);
      return;
    }
    void this.panel.webview.postMessage(message);
  }

  private async receive(message: WebviewMessage): Promise<void> {
    try {
      switch (message.type) {
        case 'ready': {
          this.ready = true;
          const queued = this.queued.splice(0);
          if (!queued.some((m) => m.type === 'focus')) queued.unshift({ type: 'init', tab: 'search' });
          for (const m of queued) void this.panel?.webview.postMessage(m);
          void this.sendModels();
          void this.sendHistory();
          return;
        }
        case 'search': {
          const active = vscode.window.activeTextEditor?.document.uri.toString();
          try {
            const result = await this.ctx.request('loupe/search', { ...message.params, activeUri: message.params.activeUri ?? active });
            this.post({ type: 'searchResult', requestId: message.requestId, result });
          } catch (error) {
            this.post({ type: 'searchError', requestId: message.requestId, message: (error as Error).message });
          }
          void this.sendHistory();
          return;
        }
        case 'research': {
          const active = vscode.window.activeTextEditor?.document.uri.toString();
          try {
            await this.ctx.request('loupe/research', { ...message.params, activeUri: active });
          } catch (error) {
            this.post({ type: 'researchChunk', chunk: { streamId: message.params.streamId, type: 'error', message: (error as Error).message } });
          }
          void this.sendHistory();
          return;
        }
        case 'cancelResearch':
          await this.ctx.request('loupe/cancelResearch', { streamId: message.streamId });
          return;
        case 'open': {
          const line = Math.max(0, message.line - 1);
          await vscode.window.showTextDocument(vscode.Uri.parse(message.uri), {
            viewColumn: vscode.ViewColumn.One, selection: new vscode.Range(line, 0, line, 0), preview: true,
          });
          return;
        }
        case 'loadHistory':
          return this.sendHistory();
        case 'loadModels':
          return this.sendModels();
      }
    } catch (error) {
      this.ctx.log.error(`panel: ${message.type} failed: ${(error as Error).message}`);
    }
  }

  private async sendModels(): Promise<void> {
    try {
      this.post({ type: 'models', models: await this.ctx.request('loupe/models', undefined) });
    } catch (error) {
      this.ctx.log.warn(`panel: models: ${(error as Error).message}`);
    }
  }

  private async sendHistory(): Promise<void> {
    try {
      this.post({ type: 'history', entries: await this.ctx.request('loupe/history', { limit: 50 }) });
    } catch (error) {
      this.ctx.log.warn(`panel: history: ${(error as Error).message}`);
    }
  }

  dispose(): void {
    this.panel?.dispose();
    for (const s of this.subscriptions.splice(0)) s.dispose();
  }
}
