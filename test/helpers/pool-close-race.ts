/**
 * Run as a process of its own by index-memory.test.ts: a parse answer that arrives after close() was
 * called must not let the process exit before close() resolves. Nothing else holds this event loop, as
 * in a script (or a test) awaiting a run that failed. Prints `closed <outcome of the request in flight>`.
 */
import { ParsePool } from '../../server/engine/indexer/parse-pool';

const [root, relPath] = process.argv.slice(2);
const jobs = [{ relPath, size: 1, mtimeMs: 0 }];
const pool = new ParsePool(1);

async function main(): Promise<void> {
  await pool.parse(root, { maxFileBytes: 1 << 20 }, jobs);
  const inFlight = pool.parse(root, { maxFileBytes: 1 << 20 }, jobs).then(() => 'answered', () => 'refused');
  const waiting = pool.parse(root, { maxFileBytes: 1 << 20 }, jobs).then(() => 'answered', () => 'refused');
  const third = pool.parse(root, { maxFileBytes: 1 << 20 }, jobs).then(() => 'answered', () => 'refused');
  await new Promise((resolve) => setImmediate(resolve)); // the two requests are sent
  // This thread is busy while the worker answers: its answer waits in the channel until close() was called.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);
  await pool.close();
  console.log('closed', await inFlight, await waiting, await third);
}

void main();
