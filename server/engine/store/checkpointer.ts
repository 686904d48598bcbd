import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CheckpointRequest, CheckpointResponse } from './checkpoint-worker';

/** In the bundle the worker is dist/checkpoint-worker.js beside this code; from source it is the .ts file. */
const workerFile = __filename.endsWith('.ts') ? path.join(__dirname, 'checkpoint-worker.ts') : path.join(__dirname, 'checkpoint-worker.js');

/** How often the logs' modification times are looked at (fs.stat, in libuv's threads). */
const POLL_MS = 2000;
/** A log smaller than this is left as it is (256 pages; SQLite's own threshold is 1,000): light use starts no worker. */
const MIN_LOG_BYTES = 1 << 20;
/** A worker with nothing to do for this long closes its connections and exits; the next write starts another. */
const IDLE_MS = 10_000;
/** How long `close` waits for the worker to close its connections. */
const CLOSE_WAIT_MS = 2000;

/**
 * Checkpoints the main connection's write-ahead logs (the index and the accounts database) in a worker
 * thread. SQLite checkpoints on the connection whose commit passes 1,000 pages of log: on the thread
 * that answers requests, that was a charge's commit copying ~4 MB back into the database and two
 * fsyncs, 10–60 ms during which every request waited (issue 17: "no request waits > 20 ms during an
 * edit"; the writer's edits and the ledger's rows fill the logs). The main connection is opened with
 * `wal_autocheckpoint = 0` and this takes over: every two seconds, when a log of at least 1 MB was
 * written since the last checkpoint (its mtime moved), a PASSIVE checkpoint runs in the worker, which
 * holds no lock a request needs. The index writer's own connection goes on checkpointing in its thread as before.
 */
export class Checkpointer {
  private worker: Worker | null = null;
  private closed: Int32Array | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly seen = new Map<string, number>();
  private busy = false;
  private idleSince = Date.now();
  private stopped = false;
  /** Checkpoints run so far, and the last one's frames per file (tests, logs). */
  runs = 0;
  last: { log: number; checkpointed: number }[] = [];

  /**
   * `onFailure`: the worker could not start or a checkpoint failed; this stops, and the caller lets the
   * main connection checkpoint again (SQLite's default) so that the logs stay bounded.
   */
  constructor(private readonly files: string[], private readonly onFailure: (message: string) => void = () => {}) {
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  /** Checkpoints now if a log was written since the last time; resolves when done (tests, `close`). */
  async poll(): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    try {
      const written = await this.written();
      if (this.stopped) return; // closed meanwhile: start no worker
      if (written) await this.checkpoint();
      else if (this.worker && Date.now() - this.idleSince > IDLE_MS) this.stopWorker(false);
    } finally {
      this.busy = false;
    }
  }

  /** Stops the worker, its connections closed before this returns (the main connection closes last and removes the logs). */
  close(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.stopWorker(true);
  }

  private fail(message: string): void {
    if (this.stopped) return;
    this.close();
    this.onFailure(message);
  }

  private async written(): Promise<boolean> {
    let changed = false;
    for (const file of this.files) {
      const stat = await fs.promises.stat(`${file}-wal`).catch(() => null);
      if (!stat || stat.size < MIN_LOG_BYTES) continue;
      if (stat.mtimeMs !== this.seen.get(file)) changed = true;
      this.seen.set(file, stat.mtimeMs);
    }
    return changed;
  }

  private checkpoint(): Promise<void> {
    const worker = this.ensure();
    return new Promise((resolve) => {
      const onMessage = (response: CheckpointResponse) => {
        worker.off('exit', onExit);
        this.idleSince = Date.now();
        if (response.type === 'failed') this.fail(response.message);
        else { this.runs++; this.last = response.files; }
        worker.unref();
        resolve();
      };
      const onExit = () => { worker.off('message', onMessage); resolve(); };
      worker.once('message', onMessage);
      worker.once('exit', onExit);
      worker.ref();
      worker.postMessage({ type: 'checkpoint' } satisfies CheckpointRequest);
    });
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const closed = new SharedArrayBuffer(4);
    const worker = new Worker(workerFile, { workerData: { files: this.files, closed } });
    worker.unref();
    worker.on('error', (error) => this.fail(error.message));
    worker.on('exit', () => { if (this.worker === worker) this.worker = null; });
    this.worker = worker;
    this.closed = new Int32Array(closed);
    return worker;
  }

  /** `wait`: until the worker's connections are closed (before the main connection closes); an idle exit does not wait. */
  private stopWorker(wait: boolean): void {
    const worker = this.worker;
    const closed = this.closed;
    if (!worker || !closed) return;
    this.worker = null;
    worker.postMessage({ type: 'close' } satisfies CheckpointRequest);
    if (wait) Atomics.wait(closed, 0, 0, CLOSE_WAIT_MS);
  }
}
