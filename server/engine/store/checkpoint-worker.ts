/**
 * Worker thread: checkpoints the write-ahead logs of the connection that answers requests (see
 * checkpointer.ts), on connections of its own, so that copying pages back and the fsyncs that follow
 * never run on that thread. PASSIVE: it never waits for a reader or a writer, and never makes one wait.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../util/background-thread';

export type CheckpointRequest = { type: 'checkpoint' } | { type: 'close' };
/** Frames in each file's log and how many of them are now in the database, in the order of `files`. */
export type CheckpointResponse = { type: 'checkpointed'; files: { log: number; checkpointed: number }[] } | { type: 'failed'; message: string };

// Background work: below the main thread, which answers requests (as training and the parse processes run).
lowerThreadPriority();

const { files, closed } = workerData as { files: string[]; closed: SharedArrayBuffer };
const connections = files.map((file) => {
  const db = new Database(file, { fileMustExist: true });
  db.pragma('busy_timeout = 0');
  // This connection writes nothing; its own checkpoints are the ones asked for.
  db.pragma('wal_autocheckpoint = 0');
  return db;
});

function close(): void {
  for (const db of connections) db.close();
  const cell = new Int32Array(closed);
  Atomics.store(cell, 0, 1);
  Atomics.notify(cell, 0);
}

parentPort!.on('message', (request: CheckpointRequest) => {
  if (request.type === 'close') {
    close();
    process.exit(0);
  }
  try {
    const result = connections.map((db) => {
      const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
      return { log: row.log, checkpointed: row.checkpointed };
    });
    parentPort!.postMessage({ type: 'checkpointed', files: result } satisfies CheckpointResponse);
  } catch (error) {
    parentPort!.postMessage({ type: 'failed', message: (error as Error).message } satisfies CheckpointResponse);
  }
});
