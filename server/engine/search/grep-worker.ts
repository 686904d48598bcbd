/**
 * A grep worker: scans files (read here, off the main thread) or given texts with one matcher.
 * It runs user regular expressions, so the pool kills it when a scan overruns its time budget.
 */
import { parentPort } from 'node:worker_threads';
import fs from 'node:fs';
import { compileMatcher, type GrepLine, type GrepMatcher } from './grep-scan';

export interface GrepTask { key: number; path?: string; text?: string }
export interface GrepWorkerRequest { id: number; matcher: GrepMatcher; tasks: GrepTask[]; maxLinesPerFile: number }
export interface GrepWorkerResponse { id: number; results: { key: number; lines: GrepLine[] }[]; error?: string }

let cached: { json: string; scan: ReturnType<typeof compileMatcher> } | null = null;

parentPort?.on('message', (req: GrepWorkerRequest) => {
  try {
    const json = JSON.stringify(req.matcher);
    if (!cached || cached.json !== json) cached = { json, scan: compileMatcher(req.matcher) };
    const results: GrepWorkerResponse['results'] = [];
    for (const task of req.tasks) {
      let text = task.text;
      if (text === undefined) {
        try { text = fs.readFileSync(task.path!, 'utf8'); } catch { continue; } // gone since indexing
      }
      const lines = cached.scan.scan(text, req.maxLinesPerFile);
      if (lines.length) results.push({ key: task.key, lines });
    }
    parentPort!.postMessage({ id: req.id, results } satisfies GrepWorkerResponse);
  } catch (error) {
    parentPort!.postMessage({ id: req.id, results: [], error: (error as Error).message } satisfies GrepWorkerResponse);
  }
});
