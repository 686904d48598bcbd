import v8 from 'node:v8';
import vm from 'node:vm';

type Collect = (options: { type: 'major'; execution: 'sync' | 'async'; flavor?: 'regular' | 'last-resort' }) => unknown;

let collect: Collect | null | undefined;

/**
 * Gives the memory a finished index run left in this isolate's heap back to the system: a full
 * collection that compacts and releases the pages the run grew (tens of MB on a large repository,
 * which V8's own memory reducer returns only about a minute later). V8's `gc` function is taken
 * from a fresh context with `--expose-gc` set for it alone (the flag is cleared again); where that
 * is refused, this does nothing. Runs as a task of its own (`async`), not inside the caller.
 */
export function releaseHeap(): Promise<void> {
  if (collect === undefined) {
    try {
      collect = typeof globalThis.gc === 'function' ? (globalThis.gc as unknown as Collect) : exposeGc();
    } catch {
      collect = null;
    }
  }
  if (!collect) return Promise.resolve();
  try {
    return Promise.resolve(collect({ type: 'major', execution: 'async', flavor: 'last-resort' })).then(() => {}, () => {});
  } catch {
    return Promise.resolve();
  }
}

type Trim = { async: (pad: number, done: (error: unknown, released: number) => void) => void };

let trim: Promise<Trim | null> | undefined;
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
  trim ??= loadTrim();
  return trim.then((fn) => fn ? new Promise<boolean>((resolve) => fn.async(0, (error) => { if (!error) trims++; resolve(!error); })) : false);
}

async function loadTrim(): Promise<Trim | null> {
  if (process.platform !== 'linux') return null;
  try {
    const koffi = (await import('koffi')).default;
    return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as unknown as Trim;
  } catch {
    return null;
  }
}

function exposeGc(): Collect | null {
  v8.setFlagsFromString('--expose-gc');
  try {
    const gc = vm.runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as Collect) : null;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}
