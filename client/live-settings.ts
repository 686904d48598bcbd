import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import { currentSettings } from './settings';

/**
 * `loupe.*` changes apply without reloading the window: the server applies what it can at once
 * (lens thresholds); for what the engine is built with (embeddings, chat models, the sidecar,
 * ignore patterns) the client restarts the language server, a warm start from the same index.
 */
export function registerLiveSettings(ctx: Ctx): void {
  let applying = Promise.resolve();
  ctx.push(vscode.workspace.onDidChangeConfiguration((e) => {
    if (!e.affectsConfiguration('loupe')) return;
    applying = applying.then(async () => {
      try {
        const { applied, restart } = await ctx.request('loupe/applySettings', currentSettings());
        if (applied.length) ctx.log.info(`settings applied: ${applied.join(', ')}`);
        if (restart.length) {
          ctx.log.info(`settings ${restart.join(', ')} changed: restarting the language server`);
          await ctx.restart();
          void vscode.window.setStatusBarMessage(`$(check) Loupe: ${restart.join(', ')} settings applied`, 4000);
        }
      } catch (error) {
        ctx.log.error(`settings could not be applied: ${(error as Error).message}`);
      }
    });
  }));
}
