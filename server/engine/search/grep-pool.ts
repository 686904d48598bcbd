import { Worker } from 'node:worker_threads';
import os from 'node:os';
import path from 'node:path';
import { LoupeError } from '../errors';
import { READY, ScanProgress, unpackLines, type GrepLine, type GrepMatcher } from './grep-scan';
import type { FileBatch, GrepTask, GrepWorkerRequest, GrepWorkerResponse } from './grep-worker';

const workerFile = __filename.endsWith('.ts') ? path.join(__dirname, 'grep-worker.ts') : path.join(__dirname, 'grep-worker.js');

interface Slot {
  worker: Worker;
  busy: boolean;
  /** Settles when the worker has loaded its module (or failed to): a scan's time budget starts after it. */
  ready: Promise<void>;
  exited: boolean;
}

/**
 * A new worker. Loading it takes tens of milliseconds on a quiet machine and seconds on a loaded one
 * (or under tsx, which compiles the module first), so its start never counts against a search's budget:
 * a plain regular expression must not be called catastrophic because a thread was slow to start.
 */
function spawn(): Slot {
  const worker = new Worker(workerFile);
  worker.unref();
  const slot: Slot = { worker, busy: false, exited: false, ready: Promise.resolve() };
  worker.on('exit', () => { slot.exited = true; });
  slot.ready = new Promise<void>((resolve) => {
    const done = () => {
      worker.off('message', onMessage);
      worker.off('error', done);
      worker.off('exit', done);
      resolve();
    };
    const onMessage = (msg: unknown) => { if (msg === READY) done(); };
    worker.on('message', onMessage);
    worker.on('error', done);
    worker.on('exit', done);
  });
  return slot;
}

/**
 * Files per message: a message costs a round trip (and waking a thread is slow on a virtual machine);
 * a larger batch costs nothing when the search stops early, since workers check the shared progress
 * before each file, but workers run further apart.
 */
const MAX_BATCH = 96;
/** Messages each worker holds at once, so that it never waits for the main thread between two. */
const IN_FLIGHT = 2;

export interface GrepScan {
  found: Map<number, GrepLine[]>;
  /** Tasks the workers got to (a search that reached its line cap leaves the rest). */
  scanned: number;
  /** With `literals`: for each text read, the indices of the literals it contains (ignoring ASCII case). */
  contains: number[][];
}

export interface ScanOptions {
  maxLinesPerFile: number;
  budgetMs: number;
  /** Lines the search keeps: handing out stops once the batches from the first on hold them. */
  maxLines?: number;
  /** Lower-case literals to look for in each text (a sample's `contains`). */
  literals?: string[];
  /** All tasks to one worker: for a short scan, waking a second core can take longer than the work. */
  oneBatch?: boolean;
}

/** The tasks of a scan, made as they are handed out (a scan stopped at its line cap never makes the rest). */
export interface GrepTasks {
  count: number;
  /** The task at a position, null to skip it. */
  at(index: number): GrepTask | null;
}

/**
 * Grep workers, kept warm. A search hands its files out in path order, a batch at a time, to as many
 * workers as there are cores (so grep uses every core, and a fast worker takes more batches). The
 * search keeps `maxLines` lines in path order: once the files scanned from the first on hold that
 * many (ScanProgress, in shared memory), nothing more is handed out and the workers drop what they
 * hold. It has a time budget: a regular expression that backtracks without end is stopped by
 * terminating its workers, and the caller gets a 400 instead of a hung server.
 */
export class GrepPool {
  private slots: Slot[] = [];
  private nextId = 1;
  private nextScan = 1;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly size = Math.max(1, Math.min(os.availableParallelism(), 4)),
    private readonly maxWorkers = size * 4,
  ) {}

  get threads(): number {
    return this.size;
  }

  async scan(matcher: GrepMatcher, tasks: GrepTask[], maxLinesPerFile: number, budgetMs: number, maxLines = Infinity): Promise<Map<number, GrepLine[]>> {
    return (await this.scanOrdered(matcher, { count: tasks.length, at: (i) => tasks[i] }, { maxLinesPerFile, budgetMs, maxLines })).found;
  }

  /** Tasks must come in output order; `found` then holds every match of the tasks before the cap. */
  async scanOrdered(matcher: GrepMatcher, tasks: GrepTasks, options: ScanOptions): Promise<GrepScan> {
    const { maxLinesPerFile, budgetMs, maxLines = Infinity, literals } = options;
    const out: GrepScan = { found: new Map(), scanned: 0, contains: [] };
    if (!tasks.count) return out;
    const scanId = this.nextScan++;
    const progress = ScanProgress.create(tasks.count);
    // As few batches as give every worker one, up to MAX_BATCH files each: each message costs a round trip.
    const size = options.oneBatch ? tasks.count : Math.min(MAX_BATCH, Math.ceil(tasks.count / this.size));
    const batchCount = Math.ceil(tasks.count / size);
    let next = 0;
    // Answers stay packed until the scan ends: then only those within the cap are unpacked, in order,
    // and the main thread leaves both cores to the workers meanwhile.
    const answers: { batch: number; found: GrepWorkerResponse['found'] }[] = [];
    let failure: Error | null = null;
    const busy = new Set<Slot>();
    let timer: NodeJS.Timeout | null = null;
    const startBudget = () => {
      timer ??= setTimeout(() => {
        failure ??= new LoupeError('VALIDATION_FAILED',
          `query: the regular expression did not finish within ${budgetMs} ms (it likely backtracks catastrophically); simplify it`, { field: 'query' });
        for (const slot of busy) this.discard(slot);
      }, budgetMs);
    };
    const lane = async () => {
      const slot = await this.acquire();
      await slot.ready;
      startBudget();
      busy.add(slot);
      const inFlight: Promise<GrepWorkerResponse>[] = [];
      const batches: number[] = [];
      const handOut = () => {
        while (inFlight.length < IN_FLIGHT && !failure && next < batchCount && progress.held() < maxLines) {
          const batch = next++;
          const answer = this.post(slot, {
            id: 0, scanId, progress: progress.counts, matcher, ...encode(tasks, progress, batch * size, Math.min(tasks.count, (batch + 1) * size)),
            maxLinesPerFile, maxLines, literals,
          });
          answer.catch(() => { /* awaited below, or abandoned after a failure */ });
          inFlight.push(answer);
          batches.push(batch);
        }
      };
      try {
        handOut();
        while (inFlight.length) {
          const res = await inFlight[0];
          inFlight.shift();
          const batch = batches.shift()!;
          if (failure) {
            // Another lane failed: let this worker finish what it holds, under the budget, before it is freed.
            await Promise.allSettled(inFlight);
            break;
          }
          answers.push({ batch, found: res.found });
          out.scanned += res.scanned;
          if (res.contains) out.contains.push(...res.contains);
          handOut();
        }
      } catch (error) {
        failure ??= error as Error;
        // A worker that answered with an error (an invalid pattern) is fine once it has answered the rest;
        // one that died or was stopped is not.
        if (error instanceof LoupeError) await Promise.allSettled(inFlight);
        else this.discard(slot);
      } finally {
        busy.delete(slot);
        if (this.slots.includes(slot)) this.release(slot);
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(this.size, batchCount) }, lane));
    } finally {
      if (timer) clearTimeout(timer);
    }
    if (failure) throw failure;
    answers.sort((a, b) => a.batch - b.batch);
    let lines = 0;
    for (const a of answers) {
      if (lines >= maxLines) break;
      lines += unpackLines(a.found, out.found);
    }
    return out;
  }

  /** One batch on one worker; rejects if the worker fails or is terminated. */
  private post(slot: Slot, req: GrepWorkerRequest): Promise<GrepWorkerResponse> {
    const id = this.nextId++;
    if (slot.exited) return Promise.reject(new LoupeError('INTERNAL', 'grep worker stopped'));
    return new Promise((resolve, reject) => {
      const onMessage = (msg: GrepWorkerResponse) => {
        if (msg.id !== id) return;
        cleanup();
        if (msg.error) reject(new LoupeError('VALIDATION_FAILED', `query: ${msg.error}`, { field: 'query' }));
        else resolve(msg);
      };
      const onError = (error: Error) => { cleanup(); reject(error); };
      const onExit = () => { cleanup(); reject(new LoupeError('INTERNAL', 'grep worker stopped')); };
      const cleanup = () => {
        slot.worker.off('message', onMessage);
        slot.worker.off('error', onError);
        slot.worker.off('exit', onExit);
      };
      slot.worker.on('message', onMessage);
      slot.worker.on('error', onError);
      slot.worker.on('exit', onExit);
      slot.worker.postMessage({ ...req, id } satisfies GrepWorkerRequest);
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
      slot = spawn();
      this.slots.push(slot);
    }
    slot.busy = true;
    return slot;
  }

  private release(slot: Slot): void {
    slot.busy = false;
    this.waiters.shift()?.();
  }

  /** Terminates a worker (a runaway regex, a crash) and frees its place. */
  private discard(slot: Slot): void {
    if (!this.slots.includes(slot)) return;
    this.slots = this.slots.filter((s) => s !== slot);
    void slot.worker.terminate();
    this.waiters.shift()?.();
  }

  /** Starts the workers ahead of the first search. */
  warm(): void {
    for (let i = this.slots.length; i < this.size; i++) this.slots.push(spawn());
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots = [];
  }
}

/** Tasks [from, to) as a worker request carries them: files grouped by repository, texts as they are. */
function encode(tasks: GrepTasks, progress: ScanProgress, from: number, to: number): Pick<GrepWorkerRequest, 'files' | 'texts'> {
  const groups: { root: string; keys: number[]; positions: number[]; paths: string[] }[] = [];
  const texts: GrepWorkerRequest['texts'] = [];
  for (let i = from; i < to; i++) {
    const t = tasks.at(i);
    if (!t) { progress.set(i, 0); continue; }
    if ('text' in t) { texts.push({ key: t.key, position: i, text: t.text }); continue; }
    let group = groups[groups.length - 1];
    if (group?.root !== t.root) groups.push(group = { root: t.root, keys: [], positions: [], paths: [] });
    group.keys.push(t.key);
    group.positions.push(i);
    group.paths.push(t.path);
  }
  const files: FileBatch[] = groups.map((g) => ({ root: g.root, keys: Int32Array.from(g.keys), positions: Int32Array.from(g.positions), paths: g.paths.join('\0') }));
  return { files, texts };
}
