/**
 * A parse worker: parses batches of files for one repository root and posts the results back. The
 * pool runs it as a child process (ParsePool); it also runs as a worker thread (a test of the bundle).
 * The main process owns the database; workers only read files.
 */
import { parentPort } from 'node:worker_threads';
import { FileParser, type ParseJob, type ParseOptions, type ParseResult } from './parse-file';
import { summarize, type ParsedBatch, type ParseSummary } from './parsed-batch';
import { boundNativeHeap } from '../util/heap';

export type WorkerRequest =
  /** `serialized`: the parsed files come back as one buffer and a summary each (parsed-batch.ts). */
  | { type: 'parse'; id: number; root: string; options: ParseOptions; jobs: ParseJob[]; serialized?: boolean }
  | { type: 'reset'; root: string };

export type WorkerResponse =
  | { type: 'parsed'; id: number; results: ParseResult[] }
  | { type: 'summarized'; id: number; results: ParseSummary[]; batch: ParsedBatch }
  | { type: 'failed'; id: number; message: string };

const parsers = new Map<string, FileParser>();

async function handle(request: WorkerRequest, reply: (response: WorkerResponse) => void): Promise<void> {
  if (request.type === 'reset') {
    parsers.get(request.root)?.resetResolution();
    return;
  }
  try {
    let parser = parsers.get(request.root);
    if (!parser) parsers.set(request.root, (parser = new FileParser(request.root, request.options)));
    const results: ParseResult[] = [];
    for (const job of request.jobs) results.push(await parser.parse(job));
    if (request.serialized) reply({ type: 'summarized', id: request.id, ...summarize(results) });
    else reply({ type: 'parsed', id: request.id, results });
  } catch (error) {
    reply({ type: 'failed', id: request.id, message: (error as Error).message });
  }
}

if (parentPort) {
  const port = parentPort;
  port.on('message', (request: WorkerRequest) => void handle(request, (response) => port.postMessage(response)));
} else if (process.send) {
  // A child process: what its parses free goes back to the system as they go (see boundNativeHeap;
  // the pool's peak at the end of a cold index of phaser ×4: ~600 MB with it, 613–625 without).
  boundNativeHeap();
  // Requests come in order over the IPC channel; a parent that goes away ends it.
  process.on('message', (request: WorkerRequest) => void handle(request, (response) => process.send!(response)));
  process.on('disconnect', () => process.exit(0));
}
