import * as vscode from 'vscode';
import type { HistoryEntry, ResearchParams } from '../../protocol/lsp';
import type { HostMessage, PanelTab, WebviewMessage } from '../../protocol/webview';
import type { Ctx } from '../ctx';
import { mergeSearch, type Outcome } from '../team/merge';
import type { TeamServer } from '../team/team-server';
import { viewHtml } from './view-html';

export const SEARCH_VIEW_ID = 'loupe.search';
const HISTORY_CLEARED_AT = 'loupe.historyClearedAt';

/**
 * The search and research view: a `WebviewView` in Loupe's sidebar container (drag it to the
 * secondary sidebar or the panel like any view). It only relays: every result comes from a
 * `loupe/…` request to the language server, which runs the same engine operations as the HTTP API, and a
 * search also goes to the team server when `loupe.server.url` names one (each hit labelled with its source).
 * The webview keeps its own state (`setState`), so closing or moving the view loses nothing.
 */
export class SearchViewHost implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | null = null;
  private ready = false;
  /** The view's model list needs sending (none sent yet, the last attempt failed, or the server restarted). */
  private modelsStale = true;
  private queued: HostMessage[] = [];
  /** The team server's side of each research stream this view started (the panel's Stop ends both sides). */
  private readonly teamStreams = new Map<string, AbortController>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly ctx: Ctx, private readonly team: TeamServer) {
    this.subscriptions.push(vscode.window.registerWebviewViewProvider(SEARCH_VIEW_ID, this, {
      // Research answers stream while the view may be hidden behind another one.
      webviewOptions: { retainContextWhenHidden: true },
    }));
  }

  /**
   * Once the language server is up: relays the research pieces of the streams this view started, and
   * sends the model list again when the server (re)starts, when a send failed, and when VS Code's
   * language models change.
   */
  listen(): void {
    this.subscriptions.push(this.ctx.onResearchChunk((chunk) => { if (chunk.streamId.startsWith('s')) this.post({ type: 'researchChunk', chunk }); }));
    this.subscriptions.push(this.ctx.onStatus((status) => {
      if (!status) this.modelsStale = true;
      else if (this.modelsStale && this.ready) void this.sendModels();
    }));
    this.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('loupe.server')) this.post({ type: 'teamServer', source: this.team.source() });
    }));
    if (vscode.lm?.onDidChangeChatModels) this.subscriptions.push(vscode.lm.onDidChangeChatModels(() => void this.sendModels()));
  }

  /** Reveals the view on a tab; with a query, runs it there. */
  async show(tab: PanelTab, query?: string): Promise<void> {
    this.queueOrPost({ type: 'focus', tab, query });
    await vscode.commands.executeCommand(`${SEARCH_VIEW_ID}.focus`);
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    const root = this.ctx.extension.extensionUri;
    view.webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(root, 'dist'), vscode.Uri.joinPath(root, 'media')],
    };
    view.webview.html = viewHtml(view.webview, root);
    this.view = view;
    this.ready = false;
    view.webview.onDidReceiveMessage((m: WebviewMessage) => void this.receive(m), undefined, this.subscriptions);
    view.onDidDispose(() => {
      if (this.view === view) { this.view = null; this.ready = false; }
    }, undefined, this.subscriptions);
  }

  private queueOrPost(message: HostMessage): void {
    if (this.view && this.ready) void this.view.webview.postMessage(message);
    else this.queued.push(message);
  }

  private post(message: HostMessage): void {
    if (this.view && this.ready) void this.view.webview.postMessage(message);
  }

  private async receive(message: WebviewMessage): Promise<void> {
    try {
      switch (message.type) {
        case 'ready': {
          this.ready = true;
          this.post({ type: 'teamServer', source: this.team.source() });
          for (const m of this.queued.splice(0)) this.post(m);
          void this.sendModels();
          return;
        }
        case 'search': {
          const active = vscode.window.activeTextEditor?.document.uri.toString();
          const params = { ...message.params, activeUri: message.params.activeUri ?? active };
          // Both sources at once; one that fails is a message beside the other's hits. The local hits show as soon
          // as they come; the team server's join them (a slow team server does not hold the local ones back).
          const teamSource = this.team.source();
          let teamAnswered = false;
          const teamSearch = teamSource ? this.team.search(params).finally(() => { teamAnswered = true; }) : Promise.resolve(null);
          const local = await this.ctx.request('loupe/search', params).then(
            (value): Outcome<typeof value> => ({ ok: true, value }),
            (error: Error): Outcome<never> => ({ ok: false, message: error.message }),
          );
          if (teamSource && !teamAnswered) this.post({ type: 'searchResult', requestId: message.requestId, result: { ...mergeSearch(local, null), pending: [teamSource] } });
          const team = await teamSearch;
          if (!team && !local.ok) this.post({ type: 'searchError', requestId: message.requestId, message: local.message });
          else this.post({ type: 'searchResult', requestId: message.requestId, result: mergeSearch(local, team) });
          return;
        }
        case 'research': {
          // With a team server, research asks where the user chose (both by default): each source answers on its
          // own stream of chunks, the team server's tagged with its source; one that fails is one sentence in its
          // part of the turn, and the other's answer still shows.
          const { where = 'local', teamConversationId, ...params } = message.params;
          const team = where !== 'local' ? this.askTeam(params.streamId, params.question, teamConversationId) : null;
          if (where !== 'team') await this.askLocal(params);
          await team;
          return;
        }
        case 'cancelResearch':
          this.teamStreams.get(message.streamId)?.abort();
          await this.ctx.request('loupe/cancelResearch', { streamId: message.streamId });
          return;
        case 'open': {
          const line = Math.max(0, message.line - 1);
          await vscode.window.showTextDocument(vscode.Uri.parse(message.uri), {
            selection: new vscode.Range(line, 0, line, 0), preview: true,
          });
          return;
        }
        case 'loadHistory':
          return this.sendHistory();
        case 'loadModels':
          return this.sendModels();
        case 'openConversation':
          this.post({ type: 'conversation', conversation: await this.ctx.request('loupe/conversation', { threadId: message.threadId }) });
          return;
        case 'clearHistory':
          await this.ctx.extension.globalState.update(HISTORY_CLEARED_AT, new Date().toISOString());
          return this.sendHistory();
      }
    } catch (error) {
      this.ctx.log.error(`search view: ${message.type} failed: ${(error as Error).message}`);
    }
  }

  private async askLocal(params: Omit<ResearchParams, 'activeUri'>): Promise<void> {
    const active = vscode.window.activeTextEditor?.document.uri.toString();
    try {
      await this.ctx.request('loupe/research', { ...params, activeUri: active });
    } catch (error) {
      this.post({ type: 'researchChunk', chunk: { streamId: params.streamId, type: 'error', message: (error as Error).message } });
    }
  }

  /**
   * The team server's answer (its default model: the model list is this window's), relayed as it streams. The panel
   * offers the team server only while one is set; one unset since is said as the team part's error.
   */
  private async askTeam(streamId: string, question: string, conversationId: string | undefined): Promise<void> {
    if (!this.team.source()) {
      this.post({ type: 'researchChunk', chunk: { streamId, type: 'error', message: 'no team server is set (loupe.server.url)' }, source: { kind: 'team', label: 'team server' } });
      return;
    }
    const controller = new AbortController();
    this.teamStreams.set(streamId, controller);
    try {
      await this.team.research({ streamId, question, conversationId }, (chunk, source) => this.post({ type: 'researchChunk', chunk, source }), controller.signal);
    } finally {
      this.teamStreams.delete(streamId);
    }
  }

  private async sendModels(): Promise<void> {
    try {
      this.modelsStale = false;
      this.post({ type: 'models', models: await this.ctx.request('loupe/models', undefined) });
    } catch (error) {
      this.modelsStale = true; // sent again with the next status
      this.ctx.log.warn(`search view: models: ${(error as Error).message}`);
    }
  }

  private async sendHistory(): Promise<void> {
    try {
      const clearedAt = this.ctx.extension.globalState.get<string>(HISTORY_CLEARED_AT) ?? '';
      const entries: HistoryEntry[] = (await this.ctx.request('loupe/history', { limit: 200 })).filter((e) => e.at > clearedAt);
      this.post({ type: 'history', entries });
    } catch (error) {
      this.ctx.log.warn(`search view: history: ${(error as Error).message}`);
    }
  }

  dispose(): void {
    for (const s of this.subscriptions.splice(0)) s.dispose();
  }
}
