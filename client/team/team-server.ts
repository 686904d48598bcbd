/**
 * The team server beside the local index: `loupe.server.url` (an application setting: a workspace's own
 * settings cannot point it elsewhere) names it, its API key lives in VS Code's SecretStorage under that
 * server's URL (never in settings.json; "Loupe: Set Team Server API Key" / "Clear …"), the panel's search asks
 * it beside the language server (client/views/search-view.ts), and its files open as read-only `loupe-team:`
 * documents whose text is read through its API. The HTTP client (undici) loads only once a server is set.
 */
import * as vscode from 'vscode';
import type { ResearchChunk, SearchParams, SearchResult } from '../../protocol/lsp';
import type { HitSource } from '../../protocol/webview';
import type { Ctx } from '../ctx';
import { configuredSource, parseServerUrl, TEAM_SCHEME, teamDocument, teamResearchChunks, type Outcome } from './merge';
import type { TeamClient, TeamResearchRequest } from './team-client';

const SECRET_PREFIX = 'loupe.server.apiKey:';

export class TeamServer implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly subscriptions: vscode.Disposable[] = [];
  private current: Promise<{ client: TeamClient } | { error: string; source: HitSource } | null> | null = null;

  constructor(private readonly ctx: Ctx) {
    this.subscriptions.push(
      vscode.workspace.registerTextDocumentContentProvider(TEAM_SCHEME, this),
      vscode.commands.registerCommand('loupe.server.setApiKey', () => this.setKey()),
      vscode.commands.registerCommand('loupe.server.clearApiKey', () => this.clearKey()),
      vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('loupe.server')) this.reset('loupe.server.url changed'); }),
      ctx.extension.secrets.onDidChange((e) => { if (e.key.startsWith(SECRET_PREFIX)) this.reset('its API key changed'); }),
    );
  }

  /** The team server the panel asks beside the local index, if one is set (without loading anything). */
  source(): HitSource | null {
    return configuredSource(this.url());
  }

  /** The configured URL as written (empty: no team server). */
  private url(): string {
    return vscode.workspace.getConfiguration('loupe').get<string>('server.url') ?? '';
  }

  private parsed(): { url: URL } | { error: string } | null {
    return parseServerUrl(this.url());
  }

  /** The secret's name: the key belongs to one server, and is never sent to another that the setting names later. */
  private static secretName(url: URL): string {
    return `${SECRET_PREFIX}${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  }

  private reset(why: string): void {
    const old = this.current;
    this.current = null;
    void old?.then((c) => (c && 'client' in c ? c.client.close() : undefined));
    this.ctx.log.info(`team server: ${why}; ${this.url() ? `now ${this.url()}` : 'none set'}`);
  }

  /** The client for the configured server with its key, or why there is none; null when no server is set. */
  private client(): Promise<{ client: TeamClient } | { error: string; source: HitSource } | null> {
    this.current ??= (async () => {
      const parsed = this.parsed();
      if (!parsed) return null;
      const { TeamClient } = await import('./team-client');
      if ('error' in parsed) return { error: parsed.error, source: { kind: 'team', label: this.url().trim() || 'team server' } };
      const key = await this.ctx.extension.secrets.get(TeamServer.secretName(parsed.url));
      return { client: new TeamClient(parsed.url, key) };
    })();
    return this.current;
  }

  /** The team server's answer for the panel (never rejects: a failure is the outcome's message); null without a server. */
  async search(params: SearchParams): Promise<{ source: HitSource; outcome: Outcome<SearchResult> } | null> {
    const c = await this.client().catch((error: Error) => ({ error: error.message, source: { kind: 'team', label: 'team server' } as HitSource }));
    if (!c) return null;
    if ('error' in c) return { source: c.source, outcome: { ok: false, message: c.error } };
    try {
      return { source: c.client.source, outcome: { ok: true, value: await c.client.search(params) } };
    } catch (error) {
      this.ctx.log.warn(`team server: search failed: ${(error as Error).message}`);
      return { source: c.client.source, outcome: { ok: false, message: (error as Error).message } };
    }
  }

  /**
   * Research over the team server's repositories, streamed to `send` as the panel's chunks (the same shapes as the
   * local answer's): a status, the answer's text as it comes, citations that open read-only, then `done` with the
   * team server's conversation id (a follow-up continues it there). Never rejects: a failure is one `error` chunk
   * with one sentence; `signal` (the panel's Stop) ends it as "stopped". Nothing is sent without a server set.
   */
  async research(req: TeamResearchRequest & { streamId: string }, send: (chunk: ResearchChunk, source: HitSource) => void, signal: AbortSignal): Promise<void> {
    const c = await this.client().catch((error: Error) => ({ error: error.message, source: { kind: 'team', label: 'team server' } as HitSource }));
    if (!c) return;
    const { streamId } = req;
    if ('error' in c) return send({ streamId, type: 'error', message: c.error }, c.source);
    const source = c.client.source;
    send({ streamId, type: 'status', message: `Searching the repositories on ${source.label}…` }, source);
    let conversationId: string | null = null;
    try {
      for await (const event of c.client.research(req, signal)) {
        for (const chunk of teamResearchChunks(event, streamId, source)) send(chunk, source);
        if (event.type === 'done') conversationId = event.conversation_id;
      }
      send({ streamId, type: 'done', conversationId }, source);
    } catch (error) {
      const stopped = (error as Error).name === 'AbortError' || signal.aborted;
      if (!stopped) this.ctx.log.warn(`team server: research failed: ${(error as Error).message}`);
      send({ streamId, type: 'error', message: stopped ? 'stopped' : (error as Error).message }, source);
    }
  }

  /** A `loupe-team:` document's text, read through the team server's API (the editor shows it read-only). */
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const doc = teamDocument(uri);
    if (!doc) throw new Error(`Loupe: ${uri.toString()} names no team server file`);
    const c = await this.client();
    if (!c) throw new Error(`Loupe: no team server is set (loupe.server.url) to read ${doc.filePath} from ${doc.host}`);
    if ('error' in c) throw new Error(`Loupe: ${c.error}`);
    if (c.client.host !== doc.host) throw new Error(`Loupe: ${doc.filePath} is from ${doc.host}, and the team server is now ${c.client.host} (loupe.server.url)`);
    try {
      const file = await c.client.fileContent(doc.repoId, doc.filePath);
      this.ctx.log.info(`team server: opened ${file.file_path} (${file.total_lines} lines) from ${doc.host}`);
      return file.content;
    } catch (error) {
      const message = (error as Error).message;
      this.ctx.log.warn(`team server: reading ${doc.filePath}: ${message}`);
      void vscode.window.showErrorMessage(`Loupe: could not open ${doc.filePath} from the team server: ${message}`);
      throw error;
    }
  }

  private async setKey(): Promise<void> {
    const parsed = this.parsed();
    if (!parsed || 'error' in parsed) {
      const choice = await vscode.window.showWarningMessage(
        parsed ? `Loupe: ${parsed.error}` : 'Loupe: set loupe.server.url (the team server\'s URL) first; the key is kept for that server.', 'Open Settings');
      if (choice) await vscode.commands.executeCommand('workbench.action.openSettings', 'loupe.server.url');
      return;
    }
    const key = await vscode.window.showInputBox({
      title: 'Loupe: Team Server API Key', prompt: `The API key for ${parsed.url.origin}${parsed.url.pathname.replace(/\/+$/, '')} (kept in the secret storage, never in settings)`,
      password: true, ignoreFocusOut: true, placeHolder: 'X-API-Key of your account on the team server',
      validateInput: (v) => (v.trim() && /\s/.test(v.trim()) ? 'An API key has no spaces' : undefined),
    });
    if (key === undefined) return;
    if (!key.trim()) return this.clearKey();
    await this.ctx.extension.secrets.store(TeamServer.secretName(parsed.url), key.trim());
    this.reset('its API key was set');
    void vscode.window.showInformationMessage(`Loupe: API key for ${parsed.url.host} saved in the secret storage`);
  }

  private async clearKey(): Promise<void> {
    const parsed = this.parsed();
    if (!parsed || 'error' in parsed) return;
    await this.ctx.extension.secrets.delete(TeamServer.secretName(parsed.url));
    this.reset('its API key was cleared');
    void vscode.window.showInformationMessage(`Loupe: API key for ${parsed.url.host} removed`);
  }

  dispose(): void {
    for (const s of this.subscriptions.splice(0)) s.dispose();
    void this.current?.then((c) => (c && 'client' in c ? c.client.close() : undefined));
  }
}
