/**
 * Whether a slow call of a latency bench was the client's own delay rather than the server's. The client
 * (this process's main thread) shares the machine with the server it measures: on 2 cores it can be on its
 * core (its own GC, a compile) or waiting for one while the server has long answered, and the call then
 * looks slow. Linux counts a thread's time on a CPU and waiting in a run queue (/proc/<pid>/task/<tid>/schedstat,
 * in ns); a call during which this thread spent half its time or more doing either is counted apart, as a
 * call the host's steal took is. Off Linux nothing is counted apart.
 */
import fs from 'node:fs';

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;
const readable = process.platform === 'linux' && fs.existsSync(SCHEDSTAT);

/** This thread's time on a CPU plus its time waiting for one so far, in ms (0 off Linux). */
export function clientBusyMs(): number {
  if (!readable) return 0;
  const [run, wait] = fs.readFileSync(SCHEDSTAT, 'utf8').split(' ').map(Number);
  return (run + wait) / 1e6;
}

/** A call of `ms` over 20 ms during which the client was busy or waiting for a core `busyMs` of it, half or more. */
export const clientDelayed = (ms: number, busyMs: number): boolean => ms > 20 && busyMs >= ms / 2;
