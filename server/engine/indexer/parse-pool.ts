import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { ParseJob, ParseOptions, ParseResult } from './parse-file';
import type { WorkerRequest, WorkerResponse } from './parse-worker';
import type { ParsedBatch, ParseSummary } from './parsed-batch';
import { LoupeError } from '../errors';

/** In the bundle the worker is dist/parse-worker.js beside this code; from source it is the .ts file. */
const workerFile = __filename.endsWith('.ts')
  ? path.join(__dirname, 'parse-worker.ts')
  : path.join(__dirname, 'parse-worker.js');

type Answer = Extract<WorkerResponse, { type: 'parsed' | 'summarized' }>;
interface Pending { worker: ChildProcess; resolve: (r: Answer) => void; reject: (e: Error) => void }

/** A worker keeps the process alive only while a batch is in flight (a process awaiting a parse must not exit under it). */
function hold(worker: ChildProcess, busy: boolean): void {
  if (busy) { worker.ref(); worker.channel?.ref(); } else { worker.unref(); worker.channel?.unref(); }
}

/**
 * Parsing is background work: at a lower priority than the server's own process, whose main thread
 * answers HTTP and LSP, so that thread gets a core as soon as a request arrives instead of waiting its
 * turn behind the parse processes (issue 17: on 2 cores, most of a slow request's time during a cold
 * index was spent off the CPU). On a quiet machine the parse processes still get every idle cycle.
 */
function belowNormal(worker: ChildProcess): void {
  try {
    // Ten steps below the server (nice 10 under a server at 0, Windows' below-normal class); 19 is the lowest.
    if (worker.pid) os.setPriority(worker.pid, Math.min(19, os.getPriority() + 10));
  } catch {
    // Not permitted here (a sandbox): the worker runs at the server's priority.
  }
}

/**
 * A parse worker's V8 heap, kept small. 8 MB semi-spaces instead of V8's 16 MB: a batch's syntax trees die
 * young, so a smaller nursery is collected more often (the pool's peak at the end of a cold index of
 * phaser ×4: 581–584 MB against 604–608; 4 MB saved 15 MB more but cost more time). And the old generation
 * grown by 50% after each full collection instead of V8's own factor (up to 4×): what the trees leave behind
 * is collected before the heap doubles. A cold index of payload: the pool's peak 579 MB against 656, the
 * workers' CPU 1.04× (20% growth: 559 MB, 1.12×). Not when the parent sets its own.
 */
const HEAP_FLAGS = [
  ...(process.execArgv.some((a) => a.startsWith('--max-semi-space-size')) ? [] : ['--max-semi-space-size=8']),
  ...(process.execArgv.some((a) => a.startsWith('--heap-growing-percent')) ? [] : ['--heap-growing-percent=50']),
];

/**
 * Parse workers for a machine of `cores`: one per core but the one the index writer's thread needs (it is
 * busy half the time while files are parsed and all the time after), at least one, at most four. On 2 cores
 * one worker parses phaser ×4 and payload in the same wall time as two, with 26–35% less CPU in the parse
 * processes and a pool peak 95–147 MB lower (docs/benchmarks.md): two workers and the writer on two cores
 * took turns, each parsing its own half with its own caches and its own warm-up.
 */
export function parseWorkerCount(cores = os.availableParallelism()): number {
  return Math.max(1, Math.min(cores - 1, 4));
}

/**
 * A small pool of parse workers (parseWorkerCount()), created on first use and kept until close().
 *
 * Each worker is a child process, not a thread. A worker holds a TypeScript compiler, its resolution
 * caches and every file it read; memory a thread frees stays in the process's allocator (glibc keeps
 * a thread's arena, fragmented, after the thread is gone: a cold index of phaser ×4 left ~80 MB that
 * way), while a process that exits gives all of it back. Results come over the IPC channel with V8's
 * serializer (`serialization: 'advanced'`), the same format a worker thread's messages use.
 */
export class ParsePool {
  private workers: ChildProcess[] = [];
  private readonly idle: ChildProcess[] = [];
  /** Requests waiting for a free slot; given null when the pool closes. */
  private readonly waiting: ((w: ChildProcess | null) => void)[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly size = parseWorkerCount()) {}

  /** Batches that can be in flight at once (two per worker). */
  get slots(): number {
    return this.size * 2;
  }

  /** Worker processes running now (0 between runs). */
  get running(): number {
    return this.workers.length;
  }

  /** The process ids of the running workers (tests). */
  get pids(): number[] {
    return this.workers.map((w) => w.pid!).filter(Boolean);
  }

  private ensure(): void {
    if (this.workers.length) return;
    for (let i = 0; i < this.size; i++) {
      const worker = fork(workerFile, [], {
        serialization: 'advanced',
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        // The parent's loader flags (tsx from source), not a debugger's: a second inspector on the same port fails.
        execArgv: [...process.execArgv.filter((a) => !/^--(inspect|debug)/.test(a)), ...HEAP_FLAGS],
      });
      hold(worker, false);
      belowNormal(worker);
      worker.on('message', (msg: WorkerResponse) => {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        // A worker being closed stays held until it has exited: an answer that crossed close() must not
        // let the process exit under close()'s wait (a test awaiting a failed run ended with nothing to run).
        const closing = !this.workers.includes(worker);
        if (!closing && ![...this.pending.values()].some((q) => q.worker === worker)) hold(worker, false);
        this.release(worker);
        if (!p) return;
        if (msg.type === 'failed') p.reject(new LoupeError('INTERNAL', msg.message));
        else p.resolve(msg);
      });
      const fail = (error: Error) => {
        for (const [id, p] of this.pending) if (p.worker === worker) { p.reject(error); this.pending.delete(id); }
      };
      worker.on('error', fail);
      worker.on('exit', (code, signal) => {
        const closed = !this.workers.includes(worker);
        fail(new LoupeError('INTERNAL', closed ? 'the parse workers were stopped' : `a parse worker stopped (${signal ?? `exit code ${code}`})`));
      });
      this.workers.push(worker);
      // Two slots per worker: while the main thread is busy writing one result, the worker already
      // has the next batch in its queue instead of waiting for the main thread to send it.
      this.idle.push(worker, worker);
    }
  }

  private release(worker: ChildProcess): void {
    if (!this.workers.includes(worker)) return;
    const next = this.waiting.shift();
    if (next) next(worker);
    else this.idle.push(worker);
  }

  private acquire(): Promise<ChildProcess | null> {
    const w = this.idle.pop();
    return w ? Promise.resolve(w) : new Promise((resolve) => this.waiting.push(resolve));
  }

  async parse(root: string, options: ParseOptions, jobs: ParseJob[]): Promise<ParseResult[]> {
    const answer = await this.request(root, options, jobs, false);
    if (answer.type !== 'parsed') throw new LoupeError('INTERNAL', 'a parse worker answered serialized');
    return answer.results;
  }

  /**
   * Parses a batch whose files go on to the index writer: they come back serialized as one buffer
   * (the worker's bytes, not objects made on this thread), with a summary of each result.
   */
  async parseSerialized(root: string, options: ParseOptions, jobs: ParseJob[]): Promise<{ results: ParseSummary[]; batch: ParsedBatch }> {
    const answer = await this.request(root, options, jobs, true);
    if (answer.type !== 'summarized') throw new LoupeError('INTERNAL', 'a parse worker answered unserialized');
    return { results: answer.results, batch: answer.batch };
  }

  private async request(root: string, options: ParseOptions, jobs: ParseJob[], serialized: boolean): Promise<Answer> {
    this.ensure();
    const worker = await this.acquire();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (!worker || !worker.connected || !this.workers.includes(worker)) { reject(new LoupeError('INTERNAL', 'the parse workers were stopped')); return; }
      this.pending.set(id, { worker, resolve, reject });
      hold(worker, true);
      worker.send({ type: 'parse', id, root, options, jobs, serialized } satisfies WorkerRequest);
    });
  }

  /** Files were added or removed under root: cached resolution answers are stale. */
  reset(root: string): void {
    for (const w of this.workers) if (w.connected) w.send({ type: 'reset', root } satisfies WorkerRequest);
  }

  /** Stops the workers (their memory goes with their processes); the next parse starts new ones. */
  async close(): Promise<void> {
    const workers = this.workers;
    this.workers = [];
    this.idle.length = 0;
    // A request waiting for a slot is refused now rather than left pending for ever.
    for (const next of this.waiting.splice(0)) next(null);
    for (const [id, p] of this.pending) { p.reject(new LoupeError('INTERNAL', 'the parse workers were stopped')); this.pending.delete(id); }
    await Promise.all(workers.map((w) => new Promise<void>((resolve) => {
      if (w.exitCode !== null || w.signalCode !== null) { resolve(); return; }
      w.once('exit', () => resolve());
      // Waited for: held until it has exited.
      hold(w, true);
      w.kill();
    })));
  }
}
