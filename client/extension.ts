import * as vscode from 'vscode';
import { Ctx } from './ctx';
import { registerStatusBar } from './status-bar';
import { registerCommands } from './commands';
import { PanelHost } from './panel/panel-host';
import { registerLanguageModelBridge } from './lm-bridge';

let ctx: Ctx | null = null;

/**
 * Activation: everything the user sees is registered first (status bar, commands), then the
 * language server starts; indexing runs in that separate process, never in the extension host.
 */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const started = Date.now();
  ctx = new Ctx(context);
  context.subscriptions.push(ctx);
  const panel = new PanelHost(ctx);
  ctx.push(panel);
  registerStatusBar(ctx);
  registerCommands(ctx, panel);
  try {
    await ctx.start();
  } catch (error) {
    ctx.log.error(`Loupe could not start its language server: ${(error as Error).message}`);
    void vscode.window.showErrorMessage(`Loupe could not start: ${(error as Error).message}`, 'Show logs')
      .then((choice) => choice && ctx?.log.show());
    return;
  }
  panel.listen();
  registerLanguageModelBridge(ctx);
  // Without SMTP, sign-up codes for the local sidecar land in the outbox: show them where the user is.
  ctx.push(ctx.onNotification('loupe/mail', (m) => {
    if (m.via === 'outbox') void vscode.window.showInformationMessage(`Loupe mail to ${m.to}: ${m.subject}`);
  }));
  ctx.push(vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('loupe')) {
      void vscode.window.showInformationMessage('Loupe settings changed: reload the window to apply them.', 'Reload')
        .then((choice) => choice && vscode.commands.executeCommand('workbench.action.reloadWindow'));
    }
  }));
  ctx.log.info(`Loupe activated in ${Date.now() - started} ms (language server started, indexing in the background)`);
}

export function deactivate(): Thenable<void> | undefined {
  const stopping = ctx?.client?.stop();
  ctx?.dispose();
  ctx = null;
  return stopping;
}
