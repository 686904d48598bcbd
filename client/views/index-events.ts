import type * as vscode from 'vscode';
import type { Ctx } from '../ctx';

/**
 * Calls `listener` when a repository's indexing phase changes (a run finished, the server restarted),
 * not on every progress tick: views that ask the server again should not do so four times a second.
 */
export function onIndexChanged(ctx: Ctx, listener: () => void): vscode.Disposable {
  let last = '';
  return ctx.onStatus((status) => {
    const key = status ? status.repos.map((r) => `${r.repoId}:${r.phase}`).join(',') : 'down';
    if (key === last) return;
    last = key;
    listener();
  });
}
