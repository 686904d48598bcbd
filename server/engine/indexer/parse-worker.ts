/**
 * Worker thread: parses batches of files for one repository root and posts the results back.
 * The main thread owns the database; workers only read files.
 */
import { parentPort } from 'node:worker_threads';
import { FileParser, type ParseJob, type ParseOptions, type ParseResult } from './parse-file';

export type WorkerRequest =
  | { type: 'parse'; id: number; root: string; options: ParseOptions; jobs: ParseJob[] }
  | { type: 'reset'; root: string };

export type WorkerResponse =
  | { type: 'parsed'; id: number; results: ParseResult[] }
  | { type: 'failed'; id: number; message: string };

const parsers = new Map<string, FileParser>();

parentPort?.on('message', async (request: WorkerRequest) => {
  if (request.type === 'reset') {
    parsers.get(request.root)?.resetResolution();
    return;
  }
  try {
    let parser = parsers.get(request.root);
    if (!parser) parsers.set(request.root, (parser = new FileParser(request.root, request.options)));
    const results: ParseResult[] = [];
    for (const job of request.jobs) results.push(await parser.parse(job));
    parentPort!.postMessage({ type: 'parsed', id: request.id, results } satisfies WorkerResponse);
  } catch (error) {
    parentPort!.postMessage({ type: 'failed', id: request.id, message: (error as Error).message } satisfies WorkerResponse);
  }
});
