/**
 * The extension's entry (dist/client.js), kept small: it forks the language server first, so the server
 * loads its bundle while the extension host loads the rest of the extension (dist/client-main.js, with
 * vscode-languageclient) and the other extensions that activate with it. See client/main.ts.
 */
import * as vscode from 'vscode';
import { forkServer } from './server-process';
import { ownerKey } from './owner-key';

type Main = typeof import('./main');
let main: Main | null = null;

export function activate(context: vscode.ExtensionContext): void {
  const activated = Date.now();
  // The workspace folder as the server's working directory, as vscode-languageclient sets it.
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const server = forkServer(context, folder?.scheme === 'file' ? folder.fsPath : undefined);
  // The owner's key (SecretStorage: a round trip to the window, 7.7 s once at load 19 in code-server) is
  // asked for now too, while the rest loads; initialize waits for it.
  const key = ownerKey(context.secrets);
  key.catch(() => {}); // a failure is reported where it is awaited (Ctx.start)
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a separate bundle (esbuild.mjs), loaded after the fork
  main = require('./client-main.js') as Main;
  main.activate(context, { server, key }, activated);
}

export function deactivate(): Thenable<void> | undefined {
  return main?.deactivate();
}
