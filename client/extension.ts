import * as vscode from 'vscode';

/** Activation: the language client and the extension's features are wired here (issue 7). */
export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Loupe', { log: true });
  context.subscriptions.push(log);
  log.info('Loupe activated');
}

export function deactivate(): void {}
