import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import { progressPercent, statusText } from './status-text';

/** The status bar item (progress, then state; click opens the menu) and the first-index notification. */
export function registerStatusBar(ctx: Ctx): void {
  const item = vscode.window.createStatusBarItem('loupe.status', vscode.StatusBarAlignment.Left, 10);
  item.name = 'Loupe';
  item.command = 'loupe.menu';
  const render = () => {
    const t = statusText(ctx.status);
    item.text = t.text;
    item.tooltip = t.tooltip;
  };
  render();
  item.show();
  ctx.push(item);

  let notifying = false;
  let dismissed = false;
  ctx.push(ctx.onStatus((status) => {
    render();
    if (status?.firstIndex && !notifying && !dismissed) {
      notifying = true;
      void Promise.resolve(showFirstIndexProgress(ctx, () => { dismissed = true; })).finally(() => { notifying = false; });
    }
  }));
}

/**
 * First indexing of a workspace: a notification with the progress. Its close button only hides it:
 * indexing goes on in the background (the status bar shows it); pausing is in the status bar menu.
 */
function showFirstIndexProgress(ctx: Ctx, onDismiss: () => void): Thenable<void> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Loupe: indexing the workspace', cancellable: true },
    (progress, token) => new Promise<void>((resolve) => {
      let reported = 0;
      // Filled as they are made: onStatus may call back (and finish) before it returns.
      const subscriptions: vscode.Disposable[] = [];
      let finished = false;
      function finish() {
        if (finished) return;
        finished = true;
        subscriptions.forEach((d) => d.dispose());
        resolve();
      }
      subscriptions.push(token.onCancellationRequested(() => {
        onDismiss();
        void vscode.window.showInformationMessage('Loupe: indexing continues in the background (see the status bar). To pause it, use "Pause indexing" in the Loupe status bar menu.');
        finish();
      }));
      const sub = ctx.onStatus((s) => {
        if (!s) return;
        const percent = progressPercent(s);
        const done = s.repos.reduce((n, r) => n + r.filesDone, 0);
        const total = s.repos.reduce((n, r) => n + r.filesTotal, 0);
        progress.report({ increment: Math.max(0, percent - reported), message: total ? `${done}/${total} files` : 'listing files…' });
        reported = Math.max(reported, percent);
        if (!s.firstIndex || s.paused) finish();
      });
      if (finished) sub.dispose(); // the current status already said indexing is over
      else subscriptions.push(sub);
    }),
  );
}
