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

function exposeGc(): Collect | null {
  v8.setFlagsFromString('--expose-gc');
  try {
    const gc = vm.runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as Collect) : null;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}
