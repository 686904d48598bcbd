import fs from 'node:fs';
import path from 'node:path';

const SKIP = /(^|\/)(\.git|node_modules|\.hg|\.svn)(\/|$)/;

/**
 * Watches a folder recursively and reports changed repository-relative paths, debounced. Used by
 * the headless server; inside VS Code the editor's own file events drive updates instead.
 */
export function watchFolder(root: string, onPaths: (relPaths: string[]) => void, options: { debounceMs?: number; excludeDirs?: string[] } = {}): () => void {
  const pending = new Set<string>();
  const excluded = (options.excludeDirs ?? []).map((d) => path.relative(root, d)).filter((r) => r && !r.startsWith('..'));
  let timer: NodeJS.Timeout | null = null;
  const watcher = fs.watch(root, { recursive: true }, (_event, filename) => {
    if (!filename) return;
    const rel = filename.toString().split(path.sep).join('/');
    if (SKIP.test(rel) || excluded.some((e) => rel === e || rel.startsWith(`${e}/`))) return;
    pending.add(rel);
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      const paths = [...pending];
      pending.clear();
      onPaths(paths);
    }, options.debounceMs ?? 75);
  });
  watcher.on('error', () => { /* the folder went away: status reports it */ });
  return () => {
    if (timer) clearTimeout(timer);
    watcher.close();
  };
}
