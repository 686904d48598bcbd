/**
 * A grep worker: scans files (read here, off the main thread) or given texts with one matcher.
 * It runs user regular expressions, so the pool kills it when a scan overruns its time budget.
 */
import { parentPort } from 'node:worker_threads';
import fs from 'node:fs';
import path from 'node:path';
import { compileMatcher, type GrepLine, type GrepMatcher } from './grep-scan';

export interface GrepTask {
  key: number;
  path?: string;
  /** The repository folder `path` must stay inside once symlinks are resolved. */
  root?: string;
  text?: string;
}
export interface GrepWorkerRequest { id: number; matcher: GrepMatcher; tasks: GrepTask[]; maxLinesPerFile: number; maxLines: number }
export interface GrepWorkerResponse { id: number; results: { key: number; lines: GrepLine[] }[]; error?: string }

const realRoots = new Map<string, string | null>();

function insideRoot(root: string, file: string): boolean {
  let realRoot = realRoots.get(root);
  if (realRoot === undefined) {
    try { realRoot = fs.realpathSync(root); } catch { realRoot = null; }
    realRoots.set(root, realRoot);
  }
  if (!realRoot) return false;
  let real: string;
  try { real = fs.realpathSync(file); } catch { return false; }
  const rel = path.relative(realRoot, real);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

let cached: { json: string; scan: ReturnType<typeof compileMatcher> } | null = null;

parentPort?.on('message', (req: GrepWorkerRequest) => {
  try {
    const json = JSON.stringify(req.matcher);
    if (!cached || cached.json !== json) cached = { json, scan: compileMatcher(req.matcher) };
    const results: GrepWorkerResponse['results'] = [];
    let found = 0;
    for (const task of req.tasks) {
      // The search keeps at most maxLines lines in path order; tasks come in path order, so later ones cannot matter.
      if (found >= req.maxLines) break;
      let text = task.text;
      if (text === undefined) {
        // The file may have become a symlink out of the repository since it was indexed (a fetched
        // commit, a local edit): its target is never read.
        if (task.root && !insideRoot(task.root, task.path!)) continue;
        try { text = fs.readFileSync(task.path!, 'utf8'); } catch { continue; } // gone since indexing
      }
      const lines = cached.scan.scan(text, req.maxLinesPerFile);
      if (lines.length) { results.push({ key: task.key, lines }); found += lines.length; }
    }
    parentPort!.postMessage({ id: req.id, results } satisfies GrepWorkerResponse);
  } catch (error) {
    parentPort!.postMessage({ id: req.id, results: [], error: (error as Error).message } satisfies GrepWorkerResponse);
  }
});
