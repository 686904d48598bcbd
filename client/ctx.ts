import path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import type { LoupeInitOptions, LoupeNotifications, LoupeRequests, LoupeStatus, ResearchChunk } from '../protocol/lsp';
import { ownerKey } from './owner-key';
import { currentSettings } from './settings';
import { runtimeModules } from './onnx-runtime';

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

  constructor(readonly extension: vscode.ExtensionContext) {
    this.log = vscode.window.createOutputChannel('Loupe', { log: true });
    this.push(this.log);
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

  private async startClient(): Promise<void> {
    const key = await ownerKey(this.extension.secrets);
    const serverModule = vscode.Uri.joinPath(this.extension.extensionUri, 'dist', 'server.js').fsPath;
    // The server runs on VS Code's own Node runtime (forked over IPC); better-sqlite3's Node-API
    // binary loads there without a rebuild.
    // Node's compile cache (Node 22.1+) keeps the server bundle's and TypeScript's compiled code on
    // disk: the second start of the server parses ~4 MB of JavaScript about twice as fast.
    // Optional runtimes installed on demand (the ONNX embedding provider's) resolve from NODE_PATH.
    const nodePath = [runtimeModules(this.extension), process.env.NODE_PATH].filter(Boolean).join(path.delimiter);
    const env = { ...process.env, NODE_PATH: nodePath, NODE_COMPILE_CACHE: vscode.Uri.joinPath(this.extension.globalStorageUri, 'compile-cache').fsPath };
    const serverOptions: ServerOptions = {
      run: { module: serverModule, transport: TransportKind.ipc, options: { env } },
      debug: { module: serverModule, transport: TransportKind.ipc, options: { env, execArgv: ['--nolazy', '--inspect=6019'] } },
    };
    const dataDir = this.extension.globalStorageUri.fsPath;
    // A function, so a restart (settings changed) starts the server with the settings of that moment.
    const initializationOptions = (): LoupeInitOptions => ({ dataDir, ownerKey: key, settings: currentSettings() });
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.log,
      initializationOptions,
      synchronize: {
        // Changes made outside the editor (git checkout, a build) reach the server as
        // workspace/didChangeWatchedFiles from VS Code's own watcher.
        fileEvents: vscode.workspace.createFileSystemWatcher('**/*'),
      },
    };
    this.client = new LanguageClient('loupe', 'Loupe', serverOptions, clientOptions);
    this.push({ dispose: () => void this.client.stop() });
    this.client.onNotification('loupe/statusChanged', (s: LoupeStatus) => this.setStatus(s));
    // One handler per method is all the client keeps: research chunks fan out from here (view, chat).
    this.client.onNotification('loupe/researchChunk', (c: ResearchChunk) => { for (const l of this.chunkListeners) l(c); });
    await this.client.start();
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
