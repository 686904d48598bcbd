import { Worker } from 'node:worker_threads';
import os from 'node:os';
import path from 'node:path';
import type { ParseJob, ParseOptions, ParseResult } from './parse-file';
import type { WorkerRequest, WorkerResponse } from './parse-worker';
import { LoupeError } from '../errors';

/** In the bundle the worker is dist/parse-worker.js beside this code; from source it is the .ts file. */
const workerFile = __filename.endsWith('.ts')
  ? path.join(__dirname, 'parse-worker.ts')
  : path.join(__dirname, 'parse-worker.js');

interface Pending { resolve: (r: ParseResult[]) => void; reject: (e: Error) => void }

/** A small pool of parse workers: one per core, created on first use and kept until close(). */
export class ParsePool {
  private workers: Worker[] = [];
  private readonly idle: Worker[] = [];
  private readonly waiting: ((w: Worker) => void)[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly size = Math.max(1, Math.min(os.availableParallelism(), 4))) {}

  /** Batches that can be in flight at once (two per worker). */
  get slots(): number {
    return this.size * 2;
  }

  private ensure(): void {
    if (this.workers.length) return;
    for (let i = 0; i < this.size; i++) {
      const worker = new Worker(workerFile);
      worker.unref();
      worker.on('message', (msg: WorkerResponse) => {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        this.release(worker);
        if (!p) return;
        if (msg.type === 'parsed') p.resolve(msg.results);
        else p.reject(new LoupeError('INTERNAL', msg.message));
      });
      worker.on('error', (error) => {
        for (const [id, p] of this.pending) { p.reject(error); this.pending.delete(id); }
      });
      this.workers.push(worker);
      // Two slots per worker: while the main thread is busy writing one result, the worker already
      // has the next batch in its queue instead of waiting for the main thread to send it.
      this.idle.push(worker, worker);
    }
  }

  private release(worker: Worker): void {
    const next = this.waiting.shift();
    if (next) next(worker);
    else this.idle.push(worker);
  }

  private acquire(): Promise<Worker> {
    const w = this.idle.pop();
    return w ? Promise.resolve(w) : new Promise((resolve) => this.waiting.push(resolve));
  }

  async parse(root: string, options: ParseOptions, jobs: ParseJob[]): Promise<ParseResult[]> {
    this.ensure();
    const worker = await this.acquire();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ type: 'parse', id, root, options, jobs } satisfies WorkerRequest);
    });
  }

  /** Files were added or removed under root: cached resolution answers are stale. */
  reset(root: string): void {
    for (const w of this.workers) w.postMessage({ type: 'reset', root } satisfies WorkerRequest);
  }

  async close(): Promise<void> {
    const workers = this.workers;
    this.workers = [];
    this.idle.length = 0;
    for (const [id, p] of this.pending) { p.reject(new LoupeError('INTERNAL', 'the parse workers were stopped')); this.pending.delete(id); }
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
