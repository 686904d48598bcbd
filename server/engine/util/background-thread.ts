import os from 'node:os';

/**
 * Lowers the calling worker thread's scheduling priority ten nice levels below the main thread's (as the parse
 * processes run), so that the main thread, which answers HTTP and LSP, and the index writer, which writes the
 * user's edits, get a core as soon as they have work instead of waiting behind bulk work (training, embedding)
 * on a busy machine. Linux only: there a nice value belongs to a thread (`setpriority(PRIO_PROCESS, 0)` changes
 * the caller's alone); elsewhere it would lower the whole process, the main thread with it. On an idle machine a
 * background thread still gets every free cycle.
 */
export function lowerThreadPriority(): void {
  if (process.platform !== 'linux') return;
  try {
    // From the main thread's (the thread whose id is the process's), not the caller's: a thread started by a
    // lowered thread starts lowered, and lowering it again leaves it where it is.
    os.setPriority(0, Math.min(19, os.getPriority(process.pid) + 10));
  } catch {
    // Not permitted here (a sandbox): the thread keeps its priority.
  }
}
