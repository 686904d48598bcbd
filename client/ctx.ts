import type { ChildProcess } from 'node:child_process';
import * as vscode from 'vscode';
import { LanguageClient, State, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import type { LoupeInitOptions, LoupeNotifications, LoupeRequests, LoupeStatus, ResearchChunk } from '../protocol/lsp';
import { currentSettings } from './settings';
import { forkServer } from './server-process';

/**
 * Owns everything the extension creates (as rust-analyzer's `Ctx` does): the language client, the
 * log channel, and every disposable, released together on deactivate.
 */
export class Ctx implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  client!: LanguageClient;
  status: LoupeStatus | null = null;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly statusListeners = new Set<(s: LoupeStatus | null) => void>();
  private readonly chunkListeners = new Set<(c: ResearchChunk) => void>();

  /** The server forked at activation, until the language client takes it; restarts fork anew. */
  private forked: ChildProcess | null;
  private server: ChildProcess | null = null;

  constructor(readonly extension: vscode.ExtensionContext, server: ChildProcess, private readonly ownerKey: Promise<string>) {
    this.log = vscode.window.createOutputChannel('Loupe', { log: true });
    this.push(this.log);
    this.forked = server;
    // A server the client never took goes with the extension (stop() ends the one it took).
    this.push({ dispose: () => { if (this.forked?.exitCode === null) this.forked.kill(); } });
  }

  /**
   * Stops the language client (shutdown, exit) and makes sure its server process ends: one that has
   * not exited 2 s later is killed, as vscode-languageclient does with processes it forks itself.
   */
  async stop(): Promise<void> {
    const server = this.server;
    await this.client?.stop().catch(() => {});
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => { server.kill(); resolve(); }, 2000);
      server.once('exit', () => { clearTimeout(timer); resolve(); });
    });
  }

  push(...items: vscode.Disposable[]): void {
    this.disposables.push(...items);
  }

  private startup: Promise<void> | null = null;

  /** Starts the language client once; requests made before it is up wait for it. */
  start(): Promise<void> {
    this.startup ??= this.startClient();
    return this.startup;
  }

  /** The owner's key once SecretStorage answered (a restart's initialize carries it from then on). */
  private key: string | undefined;
  private lensAsked = false;
  private lensShown = false;

  /** Hands the owner's key to the running server (again after a restart: the server ignores a key it has). */
  private sendKey(): void {
    if (this.key && this.client?.state === State.Running) void this.client.sendNotification('loupe/ownerKey', { key: this.key });
  }

  private async startClient(): Promise<void> {
    const asked = Date.now();
    // The key (SecretStorage: a round trip to the window, 6–8 s at high load) is not awaited: initialize
    // and the lenses go without it, and the server takes it when it arrives (loupe/ownerKey).
    void this.ownerKey.then((key) => {
      this.key = key;
      this.log.info(`Loupe: owner key ready ${Date.now() - asked} ms after the client started`);
      this.sendKey();
    }, (error: Error) => {
      this.log.error(`Loupe could not read or store its key in the editor's secret storage: ${error.message}`);
      void vscode.window.showErrorMessage(`Loupe could not read its key from the secret storage: ${error.message}`);
    });
    // The server process (dist/server.js over stdio): the one forked at activation, which has been loading
    // its bundle meanwhile; a restart (settings changed, a crash) forks a new one.
    const serverOptions: ServerOptions = async () => {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
      this.server = this.forked ?? forkServer(this.extension, folder?.scheme === 'file' ? folder.fsPath : undefined);
      this.forked = null;
      return this.server;
    };
    const dataDir = this.extension.globalStorageUri.fsPath;
    // A function, so a restart (settings changed) starts the server with the settings of that moment.
    const initializationOptions = (): LoupeInitOptions => ({ dataDir, ownerKey: this.key, settings: currentSettings() });
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.log,
      initializationOptions,
      middleware: {
        // Start-up timing in the log: when VS Code first asks for lenses and when they come back.
        provideCodeLenses: async (document, token, next) => {
          const first = !this.lensAsked;
          this.lensAsked = true;
          const at = Date.now();
          if (first) this.log.info(`Loupe: first CodeLens request from VS Code ${at - asked} ms after the client started (${vscode.workspace.asRelativePath(document.uri)})`);
          const lenses = await next(document, token);
          if (!this.lensShown && lenses?.length) {
            this.lensShown = true;
            this.log.info(`Loupe: first CodeLens answer with lenses ${Date.now() - asked} ms after the client started (${Date.now() - at} ms round trip)`);
          }
          return lenses;
        },
      },
      synchronize: {
        // Changes made outside the editor (git checkout, a build) reach the server as
        // workspace/didChangeWatchedFiles from VS Code's own watcher.
        fileEvents: vscode.workspace.createFileSystemWatcher('**/*'),
      },
    };
    this.client = new LanguageClient('loupe', 'Loupe', serverOptions, clientOptions);
    this.push({ dispose: () => void this.stop() });
    // A restart whose initialize went before the key arrived gets it once running.
    this.push(this.client.onDidChangeState((e) => { if (e.newState === State.Running) this.sendKey(); }));
    this.client.onNotification('loupe/statusChanged', (s: LoupeStatus) => this.setStatus(s));
    // One handler per method is all the client keeps: research chunks fan out from here (view, chat).
    this.client.onNotification('loupe/researchChunk', (c: ResearchChunk) => { for (const l of this.chunkListeners) l(c); });
    await this.client.start();
    this.log.info(`Loupe: language client started (initialize answered) ${Date.now() - asked} ms after the client started`);
    this.setStatus((await this.client.sendRequest('loupe/status')) as LoupeStatus);
  }

  /** Stops and starts the language server (same index, current settings); requests wait for it. */
  async restart(): Promise<void> {
    await this.start();
    const started = Date.now();
    this.setStatus(null);
    this.startup = this.client.restart().then(async () => {
      this.setStatus((await this.client.sendRequest('loupe/status')) as LoupeStatus);
      this.log.info(`language server restarted in ${Date.now() - started} ms`);
    });
    await this.startup;
  }

  async request<M extends keyof LoupeRequests>(method: M, params: LoupeRequests[M][0], token?: vscode.CancellationToken): Promise<LoupeRequests[M][1]> {
    await this.start();
    return (params === undefined ? this.client.sendRequest(method, token) : this.client.sendRequest(method, params, token)) as Promise<LoupeRequests[M][1]>;
  }

  onNotification<M extends keyof LoupeNotifications>(method: M, handler: (params: LoupeNotifications[M]) => void): vscode.Disposable {
    return this.client.onNotification(method, handler);
  }

  /** Streamed research pieces, for whoever started that stream (the view, the chat participant). */
  onResearchChunk(listener: (c: ResearchChunk) => void): vscode.Disposable {
    this.chunkListeners.add(listener);
    return { dispose: () => this.chunkListeners.delete(listener) };
  }

  /** Every status the server reports; null while it (re)starts. */
  onStatus(listener: (s: LoupeStatus | null) => void): vscode.Disposable {
    this.statusListeners.add(listener);
    if (this.status) listener(this.status);
    return { dispose: () => this.statusListeners.delete(listener) };
  }

  private setStatus(s: LoupeStatus | null): void {
    this.status = s;
    void vscode.commands.executeCommand('setContext', 'loupe.paused', s?.paused ?? false);
    void vscode.commands.executeCommand('setContext', 'loupe.running', s !== null);
    for (const l of this.statusListeners) l(s);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0).reverse()) {
      try { d.dispose(); } catch { /* keep disposing the rest */ }
    }
  }
}
