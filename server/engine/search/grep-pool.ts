import { Worker } from 'node:worker_threads';
import os from 'node:os';
import path from 'node:path';
import { LoupeError } from '../errors';
import type { GrepLine, GrepMatcher } from './grep-scan';
import type { GrepTask, GrepWorkerRequest, GrepWorkerResponse } from './grep-worker';

const workerFile = __filename.endsWith('.ts') ? path.join(__dirname, 'grep-worker.ts') : path.join(__dirname, 'grep-worker.js');

interface Slot { worker: Worker; busy: boolean }

/**
 * Grep workers, kept warm. A search splits its files across them (so grep uses every core) and
 * gives them a time budget: a regular expression that backtracks without end is stopped by
 * terminating its worker, and the caller gets a 400 instead of a hung server.
 */
export class GrepPool {
  private slots: Slot[] = [];
  private nextId = 1;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly size = Math.max(1, Math.min(os.availableParallelism(), 4)),
    private readonly maxWorkers = size * 4,
  ) {}

  get threads(): number {
    return this.size;
  }

  async scan(matcher: GrepMatcher, tasks: GrepTask[], maxLinesPerFile: number, budgetMs: number, maxLines = Infinity): Promise<Map<number, GrepLine[]>> {
    const out = new Map<number, GrepLine[]>();
    if (!tasks.length) return out;
    const parts = Math.min(this.size, Math.ceil(tasks.length / 8));
    const slices: GrepTask[][] = Array.from({ length: parts }, () => []);
    tasks.forEach((t, i) => slices[i % parts].push(t)); // interleaved: big folders spread over workers
    const results = await Promise.all(slices.map((slice) => this.run(matcher, slice, maxLinesPerFile, budgetMs, maxLines)));
    for (const r of results) for (const { key, lines } of r) out.set(key, lines);
    return out;
  }

  private async run(matcher: GrepMatcher, tasks: GrepTask[], maxLinesPerFile: number, budgetMs: number, maxLines: number): Promise<GrepWorkerResponse['results']> {
    const slot = await this.acquire();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        void slot.worker.terminate();
        this.slots = this.slots.filter((s) => s !== slot);
        this.wakeOne();
        reject(new LoupeError('VALIDATION_FAILED',
          `query: the regular expression did not finish within ${budgetMs} ms (it likely backtracks catastrophically); simplify it`, { field: 'query' }));
      }, budgetMs);
      const onMessage = (msg: GrepWorkerResponse) => {
        if (msg.id !== id) return;
        cleanup();
        slot.busy = false;
        this.wakeOne();
        if (msg.error) reject(new LoupeError('VALIDATION_FAILED', `query: ${msg.error}`, { field: 'query' }));
        else resolve(msg.results);
      };
      const onError = (error: Error) => { cleanup(); this.slots = this.slots.filter((s) => s !== slot); this.wakeOne(); reject(error); };
      const cleanup = () => {
        clearTimeout(timer);
        slot.worker.off('message', onMessage);
        slot.worker.off('error', onError);
      };
      slot.worker.on('message', onMessage);
      slot.worker.on('error', onError);
      slot.worker.postMessage({ id, matcher, tasks, maxLinesPerFile, maxLines } satisfies GrepWorkerRequest);
    });
  }

  /**
   * A free worker, or a new one while there are fewer than `maxWorkers` (a search in flight rarely
   * waits behind another); past that, the next one freed. Without the cap, many concurrent greps
   * would each start their own threads, and memory would grow with the number of callers.
   */
  private async acquire(): Promise<Slot> {
    let slot = this.slots.find((s) => !s.busy);
    while (!slot && this.slots.length >= this.maxWorkers) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
      slot = this.slots.find((s) => !s.busy);
    }
    if (!slot) {
      const worker = new Worker(workerFile);
      worker.unref();
      slot = { worker, busy: false };
      this.slots.push(slot);
    }
    slot.busy = true;
    return slot;
  }

  private wakeOne(): void {
    this.waiters.shift()?.();
  }

  /** Starts the workers ahead of the first search. */
  warm(): void {
    for (let i = this.slots.length; i < this.size; i++) {
      const worker = new Worker(workerFile);
      worker.unref();
      this.slots.push({ worker, busy: false });
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots = [];
  }
}
