import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type * as vscode from 'vscode';

/** Where an on-demand install puts optional runtimes (onnxruntime-node): the server finds them through NODE_PATH. */
export function runtimeModules(context: vscode.ExtensionContext): string {
  return path.join(context.globalStorageUri.fsPath, 'runtime', 'node_modules');
}

/**
 * Forks the language server (dist/server.js over stdio) as vscode-languageclient would: on the extension
 * host's own Node (`ELECTRON_RUN_AS_NODE` in desktop VS Code), where better-sqlite3's Node-API binary
 * loads without a rebuild. Node's compile cache (NODE_COMPILE_CACHE) keeps the bundle's compiled code on
 * disk for the next start. Started by the extension's entry before anything else loads, so the server's
 * own loading overlaps the extension's (client.ts).
 */
export function forkServer(context: vscode.ExtensionContext, workspaceFolder: string | undefined): ChildProcess {
  const serverModule = path.join(context.extensionPath, 'dist', 'server.js');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ELECTRON_RUN_AS_NODE: '1',
    ELECTRON_NO_ASAR: '1',
    NODE_PATH: [runtimeModules(context), process.env.NODE_PATH].filter(Boolean).join(path.delimiter),
    NODE_COMPILE_CACHE: path.join(context.globalStorageUri.fsPath, 'compile-cache'),
  };
  // The extension host under a debugger: the server too (attach on port 6019).
  const debug = process.execArgv.some((a) => /^--(inspect|debug)(-brk)?(=|$)/.test(a));
  return fork(serverModule, ['--stdio', `--clientProcessId=${process.pid}`], {
    env, cwd: workspaceFolder, silent: true, execArgv: debug ? ['--nolazy', '--inspect=6019'] : [],
  });
}
