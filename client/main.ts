import type { ChildProcess } from 'node:child_process';
import * as vscode from 'vscode';
import { Ctx } from './ctx';
import { registerStatusBar } from './status-bar';
import { registerCommands } from './commands';
import { SearchViewHost } from './views/search-view';
import { TeamServer } from './team/team-server';
import { DependentsTree } from './views/dependents-tree';
import { ChangeRadiusTree } from './views/change-radius-tree';
import { registerLanguageModelBridge } from './lm-bridge';
import { registerLiveSettings } from './live-settings';
import { registerLanguageModelTools } from './lm-tools';
import { registerChatParticipant } from './chat-participant';
import { registerOnnxRuntime } from './onnx-runtime';

let ctx: Ctx | null = null;

/**
 * Activation (after client/extension.ts forked `server`): everything the user sees is registered first
 * (status bar, views, commands), then the language client connects to the server; indexing runs in that
 * separate process, never in the extension host.
 */
export function activate(context: vscode.ExtensionContext, early: { server: ChildProcess; key: Promise<string> }, entered = Date.now()): void {
  const started = Date.now();
  ctx = new Ctx(context, early.server, early.key);
  ctx.log.info(`Loupe: server process forked, the rest of the extension loaded in ${started - entered} ms`);
  context.subscriptions.push(ctx);
  const team = new TeamServer(ctx);
  const views = { search: new SearchViewHost(ctx, team), dependents: new DependentsTree(ctx), changes: new ChangeRadiusTree(ctx) };
  ctx.push(team, views.search, views.dependents, views.changes);
  registerStatusBar(ctx);
  registerCommands(ctx, views);
  registerLiveSettings(ctx);
  // Tools and @loupe are registered at once (requests wait for the server), so chat lists them from the start.
  registerLanguageModelTools(ctx);
  registerChatParticipant(ctx);
  registerOnnxRuntime(ctx);
  // The language server starts in the background: activation returns as soon as the UI is wired.
  const c = ctx;
  void c.start().then(() => {
    c.log.info(`Loupe language server ready ${Date.now() - started} ms after activation; indexing runs in the server process`);
    // The bridge first: its models-changed notice reaches the server before the view asks for the list again.
    registerLanguageModelBridge(c);
    views.search.listen();
    // Without SMTP, sign-up codes for the local sidecar land in the outbox: show them where the user is.
    c.push(c.onNotification('loupe/mail', (m) => {
      if (m.via === 'outbox') void vscode.window.showInformationMessage(`Loupe mail to ${m.to}: ${m.subject}`);
    }));
  }, (error: Error) => {
    c.log.error(`Loupe could not start its language server: ${error.message}`);
    void vscode.window.showErrorMessage(`Loupe could not start: ${error.message}`, 'Show logs').then((choice) => choice && c.log.show());
  });
  ctx.log.info(`Loupe activated in ${Date.now() - started} ms`);
}

export function deactivate(): Thenable<void> | undefined {
  const stopping = ctx?.stop();
  ctx?.dispose();
  ctx = null;
  return stopping;
}
