import type { Logger } from '../../../engine/log';
import type { Session } from '../session';

/**
 * Says in the log when a folder's indexing finished and how long it took, so "is it done?" has an
 * answer there (the status bar shows the same as a state).
 */
export function logIndexRuns(session: Session, log: Logger): void {
  const editor = session.ops.editor;
  editor.onIndexRun({ finished: ({ repoId, result }) => {
    const repo = editor.repo(repoId);
    const files = editor.fileCount(repoId);
    const changes = result.added || result.changed || result.removed
      ? ` (${result.added} added, ${result.changed} changed, ${result.removed} removed)` : ' (no change)';
    log.info(`indexed ${repo?.name ?? repoId}: ${files} files in ${result.durationMs} ms${changes}`);
  } });
}
