import { Worker } from 'node:worker_threads';
import { LoupeError } from '../errors';
import { runKernel, type KernelArgs, type KernelName, type KernelRunner } from './corpus-model';

/** What the helper thread is sent: a kernel, its arguments (views of shared memory) and the flag it sets when done. */
export interface KernelTask { kernel: KernelName; args: KernelArgs<KernelName>; done: Int32Array }

/** The flag's values: waiting, done, failed. */
const WAITING = 0;
const DONE = 1;
const FAILED = 2;

/**
 * Training's products on two threads (corpus-model.ts KERNELS): this one computes part 0 of each while a helper
 * thread computes part 1 in the same shared memory, then this one waits for it. On payload's sample (6,403
 * chunks, 11,399 words) the products are ~4 s of one core, the last seconds of a cold index before embedding,
 * while the other core has little left to do. The model is the same to the bit as on one thread.
 *
 * Should the helper fail, or not answer within as long again as this thread's part took (and at least
 * `patienceMs`), the kernel throws and the training fails (its caller trains again or reports it): part 1 may be
 * half written, and a training never waits on a thread that is gone.
 */
export class TwoThreadKernels implements KernelRunner {
  /** Kernels the helper computed its part of (tests, the log). */
  helped = 0;
  private readonly done = new Int32Array(new SharedArrayBuffer(4));

  private constructor(private readonly helper: Worker, private readonly patienceMs: number) {}

  /** A helper running `workerFile` with `workerData` that makes it call serveKernels(). */
  static start(workerFile: string, workerData: unknown, patienceMs = 30_000): TwoThreadKernels {
    const helper = new Worker(workerFile, { workerData });
    // A helper that cannot start or dies shows as one that does not answer (run throws); its error is not this thread's to crash on.
    helper.on('error', () => {});
    return new TwoThreadKernels(helper, patienceMs);
  }

  float64(n: number): Float64Array { return new Float64Array(new SharedArrayBuffer(n * 8)); }
  float32(n: number): Float32Array { return new Float32Array(new SharedArrayBuffer(n * 4)); }
  int32(n: number): Int32Array { return new Int32Array(new SharedArrayBuffer(n * 4)); }

  run<K extends KernelName>(kernel: K, args: KernelArgs<K>): void {
    for (const [name, value] of Object.entries(args)) {
      // A copy would be written by the helper and never seen here.
      if (ArrayBuffer.isView(value) && !(value.buffer instanceof SharedArrayBuffer)) throw new LoupeError('INTERNAL', `${kernel}: ${name} is not in shared memory`);
    }
    Atomics.store(this.done, 0, WAITING);
    this.helper.postMessage({ kernel, args, done: this.done } satisfies KernelTask);
    const started = performance.now();
    runKernel(kernel, args, 0, 2);
    // As long again as this part took, and at least patienceMs, before giving up on the helper.
    const deadline = performance.now() + Math.max(this.patienceMs, performance.now() - started);
    while (Atomics.load(this.done, 0) === WAITING && performance.now() < deadline) Atomics.wait(this.done, 0, WAITING, 100);
    const outcome = Atomics.load(this.done, 0);
    if (outcome !== DONE) throw new LoupeError('INTERNAL', `the training's helper thread ${outcome === FAILED ? 'failed' : 'did not answer'} (${kernel})`);
    this.helped++;
  }

  /** Stops the helper. */
  close(): Promise<number> {
    return this.helper.terminate();
  }
}

/** The helper's side: computes part 1 of each kernel it is sent, then sets the flag. */
export function serveKernels(port: { on(event: 'message', listener: (task: KernelTask) => void): unknown }): void {
  port.on('message', ({ kernel, args, done }: KernelTask) => {
    let outcome = DONE;
    try {
      runKernel(kernel, args, 1, 2);
    } catch {
      outcome = FAILED;
    }
    Atomics.store(done, 0, outcome);
    Atomics.notify(done, 0);
  });
}
