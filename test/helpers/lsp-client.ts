/**
 * Starts the real language server (dist/server.js) as a child process over stdio and talks LSP to
 * it with vscode-jsonrpc, as an editor would: the protocol boundary tested without VS Code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import type { LoupeInitOptions, LoupeStatus } from '../../protocol/lsp';
import { DEFAULT_SETTINGS, type LoupeSettings } from '../../protocol/settings';

export const SERVER_JS = path.join(__dirname, '..', '..', 'dist', 'server.js');

export interface TestLspClient {
  connection: MessageConnection;
  child: ChildProcess;
  logs: string[];
  statuses: LoupeStatus[];
  /** How many times the server asked the editor to refresh its lenses (workspace/codeLens/refresh). */
  lensRefreshes(): number;
  uri(rel: string): string;
  /** Resolves when every repository of the workspace is indexed. */
  ready(timeoutMs?: number): Promise<LoupeStatus>;
  open(rel: string, text: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startLspClient(
  folder: string, dataDir: string, ownerKey: string, settings: Partial<LoupeSettings> = {}, env: NodeJS.ProcessEnv = process.env,
  /** Another build of the server (the one inside an installed .vsix). */
  serverJs = SERVER_JS,
): Promise<TestLspClient> {
  const child = spawn(process.execPath, [serverJs, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'], env });
  const connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  const logs: string[] = [];
  const statuses: LoupeStatus[] = [];
  const waiters: (() => void)[] = [];
  connection.onNotification('window/logMessage', (p: { message: string }) => { logs.push(p.message); });
  connection.onNotification('loupe/statusChanged', (s: LoupeStatus) => {
    statuses.push(s);
    waiters.splice(0).forEach((w) => w());
  });
  let refreshes = 0;
  connection.onRequest('workspace/codeLens/refresh', () => { refreshes++; return null; });
  connection.onRequest('loupe/lm/models', () => []);
  child.stderr!.on('data', (d) => logs.push(String(d)));
  connection.listen();
  const uri = (rel: string) => pathToFileURL(path.join(folder, rel)).toString();
  const init: LoupeInitOptions = { dataDir, ownerKey, settings: { ...DEFAULT_SETTINGS, sidecar: { enabled: false, port: 0 }, ...settings } };
  // A server that never answers initialize must not outlive the test.
  const initTimer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    await connection.sendRequest('initialize', {
      processId: process.pid, rootUri: pathToFileURL(folder).toString(), capabilities: { workspace: { codeLens: { refreshSupport: true } } },
      workspaceFolders: [{ uri: pathToFileURL(folder).toString(), name: path.basename(folder) }],
      initializationOptions: init,
    });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    clearTimeout(initTimer);
  }
  await connection.sendNotification('initialized', {});
  const isReady = (s: LoupeStatus | undefined) => !!s && s.repos.length > 0 && s.repos.every((r) => r.phase === 'ready');
  return {
    connection, child, logs, statuses, uri,
    lensRefreshes: () => refreshes,
    async ready(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const now = (await connection.sendRequest('loupe/status')) as LoupeStatus;
        if (isReady(now)) return now;
        if (Date.now() > deadline) throw new Error(`not indexed in ${timeoutMs} ms: ${JSON.stringify(now)}\n${logs.join('\n')}`);
        await new Promise<void>((resolve) => { waiters.push(resolve); setTimeout(resolve, 200); });
      }
    },
    async open(rel, text) {
      await connection.sendNotification('textDocument/didOpen', { textDocument: { uri: uri(rel), languageId: 'typescript', version: 1, text } });
    },
    async stop() {
      try {
        await Promise.race([connection.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 5000))]);
        await connection.sendNotification('exit');
      } catch { /* already gone */ }
      connection.dispose();
      child.kill();
    },
  };
}
