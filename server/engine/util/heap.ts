import vm from 'node:vm';

let warningHidden = false;

/**
 * Collects the garbage a finished index run left in this isolate's heap (parse summaries, the walk,
 * the vectors' batches: 70 MB on payload while requests came in) without stopping the thread that
 * answers: V8 marks incrementally and concurrently, then pauses once, briefly (5–18 ms on payload,
 * against 150–185 ms for the forced full collection this replaced, issue 17). That collection also
 * starts V8's memory reducer, which returns the freed pages to the system some seconds later, in
 * collections of its own that are incremental too. Started through `vm.measureMemory` (eager: its
 * marking starts at once); the measurement itself is not used. Resolves when the collection is done (at most
 * COLLECT_WAIT_MS later), or at once where the API is missing.
 */
export function collectHeap(): Promise<void> {
  if (typeof vm.measureMemory !== 'function') return Promise.resolve();
  hideMeasureMemoryWarning();
  // V8 ends the collection in tasks of its own, which hold nothing of the event loop: a process with nothing else
  // to do (a script or a test awaiting the run, once the run's threads are gone) could exit under the pending
  // promise. A timer holds the loop until the collection is done, and bounds the wait.
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => { timer = setTimeout(resolve, COLLECT_WAIT_MS); });
  const collected = vm.measureMemory({ execution: 'eager' }).then(() => {}, () => {});
  return Promise.race([collected, bound]).finally(() => clearTimeout(timer));
}

/** The longest a run's end waits for its collection (5–18 ms on payload; V8 goes on with it after that). */
const COLLECT_WAIT_MS = 5000;

/**
 * Node prints an ExperimentalWarning at the first `vm.measureMemory` call, on stderr: the language
 * server's log in the editor, where a user would take it for a fault. That one warning is dropped;
 * every other warning still reaches Node's own listeners, which are put back once it has gone by.
 */
function hideMeasureMemoryWarning(): void {
  if (warningHidden) return;
  warningHidden = true;
  const listeners = process.listeners('warning');
  process.removeAllListeners('warning');
  const restore = () => {
    process.removeListener('warning', filter);
    for (const listener of listeners) process.on('warning', listener);
  };
  const filter = (warning: Error) => {
    if (warning.name === 'ExperimentalWarning' && warning.message.includes('measureMemory')) return restore();
    for (const listener of listeners) listener.call(process, warning);
  };
  process.on('warning', filter);
}

type Trim = { async: (pad: number, done: (error: unknown, released: number) => void) => void };

let trim: Trim | null | undefined;
let trims = 0;

/** How many times `releaseNativeHeap` has run in this process (logs, tests). */
export const nativeHeapReleases = (): number => trims;

/**
 * Gives back to the system the native memory a finished run freed but the C allocator kept: glibc
 * keeps freed pages in its arenas (SQLite's page cache, the writer's buffers, parse results passed
 * between threads), 60–70 MB after a cold index of a large repository, which an idle process then
 * holds for good. `malloc_trim(0)` returns them (through koffi, on a libuv thread, so the event loop
 * goes on; it waits only where it allocates while an arena is being trimmed). Resolves to whether it
 * ran: not on macOS or Windows, nor on a C library that has no `malloc_trim` (musl).
 */
export function releaseNativeHeap(): Promise<boolean> {
  trim ??= glibcFunction<Trim>('int malloc_trim(size_t pad)');
  const fn = trim;
  return fn ? new Promise<boolean>((resolve) => fn.async(0, (error) => { if (!error) trims++; resolve(!error); })) : Promise.resolve(false);
}

let bounded: boolean | undefined;

/**
 * Keeps glibc from holding freed memory at the top of its per-thread arenas, once per process. glibc
 * raises its mmap threshold to the size of the largest mmapped block freed so far (up to 32 MB) and its
 * trim threshold to twice that; a thread's arena then keeps up to that much free memory at its top,
 * which `malloc_trim` does not return (it trims the main arena's top and the free chunks inside every
 * arena, not the top of the others). After a cold index of phaser ×4 two threads' arenas held 40–95 MB
 * that way, free and resident, in about half the runs (malloc_stats: 4 kB and 19 kB in use). Setting
 * both thresholds fixes them (glibc then stops adapting them): blocks of 128 kB and more get their own
 * mapping, returned when freed, and an arena's top is trimmed past 1 MB. Answers whether it was set:
 * not off glibc.
 */
export function boundNativeHeap(): boolean {
  if (bounded !== undefined) return bounded;
  const mallopt = glibcFunction<(param: number, value: number) => number>('int mallopt(int param, int value)');
  // M_MMAP_THRESHOLD (-3): glibc's initial 128 kB; M_TRIM_THRESHOLD (-1): 1 MB. Each answers 1 when set.
  bounded = !!mallopt && mallopt(-3, 128 * 1024) === 1 && mallopt(-1, 1024 * 1024) === 1;
  return bounded;
}

let glibc: { func: (declaration: string) => unknown } | null | undefined;

/**
 * A function of glibc through koffi (loaded once, on Linux only), or null: on macOS or Windows, on a C
 * library without it (musl), or where koffi has no binary for the platform.
 */
function glibcFunction<T>(declaration: string): T | null {
  if (glibc === undefined) {
    glibc = null;
    if (process.platform === 'linux') {
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only here, on Linux, when first needed
        glibc = (require('koffi') as typeof import('koffi')).load('libc.so.6');
      } catch {
        // no koffi binary here: the allocator keeps its own ways
      }
    }
  }
  try {
    return glibc ? glibc.func(declaration) as T : null;
  } catch {
    return null;
  }
}
