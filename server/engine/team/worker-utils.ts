import pg from 'pg';
import { makeWorkerUtils, type WorkerUtils } from 'graphile-worker';

export interface OpenWorkerUtils {
  utils: WorkerUtils;
  /** Releases the utils, then waits until every connection of their pool is closed. */
  close(): Promise<void>;
}

/**
 * graphile-worker's utils on a pool this process ends itself. Given a connection string, their `release()` starts
 * ending the pool it made without waiting, and removes its error listener first: a database stopped just after
 * (a test's cluster, a server going down) found a connection still open, whose error then had no listener
 * (test/team/index-worker.test.ts failed so, once, in a CI run).
 */
export async function openWorkerUtils(url: string): Promise<OpenWorkerUtils> {
  const pool = new pg.Pool({ connectionString: url });
  // An idle connection the server closes is dropped by pg; it only has to be heard.
  pool.on('error', () => undefined);
  let utils: WorkerUtils;
  try {
    utils = await makeWorkerUtils({ pgPool: pool });
  } catch (error) {
    await pool.end();
    throw error;
  }
  return {
    utils,
    close: async () => {
      await utils.release();
      await pool.end();
    },
  };
}
