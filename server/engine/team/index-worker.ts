/**
 * The team server's index worker: takes `index_repository` jobs from a graphile-worker queue on the
 * PostgreSQL database and indexes the repository into that database (Indexer + PgIndexWriter).
 *
 * - **One worker per repository.** Jobs are enqueued on a named queue per repository (jobs of one
 *   queue run one after another, whichever worker takes them) with a job key (a second request while
 *   one waits is merged into it), and the job itself holds a session advisory lock on the repository
 *   on a connection of its own for the whole run: even a job unlocked by the lease below while its
 *   worker still runs cannot index at the same time (it fails and is retried).
 * - **Lease.** graphile-worker releases a dead worker's job only after 4 hours. Each process beats
 *   (`loupe_worker_heartbeats`, one row per graphile-worker id, every `heartbeatMs`); every process
 *   sweeps: jobs locked for longer than `staleMs` by a worker without a fresh beat are unlocked
 *   (`forceUnlockWorkers`) and taken again by any worker. The resumed run starts from what the dead
 *   one committed (every slice commits its files with the progress), so its index equals a clean one.
 * - **Progress** is written to `repos` (`state`, `files_done`, `files_total`) with each slice, so
 *   `POST /v2/repos/status` on any API node sees it.
 * - **Derived indexes.** After the files are written, the same `VectorIndex` and `FileDocs` as on SQLite,
 *   over the PostgreSQL stores, build the repository's vectors (the corpus model trained from the
 *   whole index; one worker at a time, under a database-wide advisory lock, since a model spans every
 *   repository) and the doc of every file without a current one; then the repository is announced
 *   (`NOTIFY loupe_index`, team/notify.ts) so API nodes drop what they hold of it, and marked ready.
 */
import { EventEmitter } from 'node:events';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Logger as GraphileLogger, run, type Runner, type Task, type WorkerUtils } from 'graphile-worker';
import { openWorkerUtils } from './worker-utils';
import type { Logger } from '../log';
import { LoupeError } from '../errors';
import { Indexer, type IndexRunResult } from '../indexer/indexer';
import { PgIndexWriter } from '../indexer/pg-index-writer';
import { PgDb } from '../store/pg/pg-db';
import { migratePg } from '../store/pg/migrate';
import { PG_MIGRATIONS } from '../store/pg/migrations';
import { openPgIndexStores, type PgIndexStores } from '../store/pg/index-stores';
import type { RepoRecord } from '../types';
import type { DerivedIndex, IndexProgress } from '../indexer/derived-index';
import { VectorIndex } from '../embed/vector-index';
import type { EmbedderConfig } from '../embed/embedder';
import { FileDocs } from '../docs/file-docs';
import { GraphCache } from '../analysis/import-graph';
import { announceRepository } from './notify';
import { PgDocsStore } from '../store/pg/docs-store';
import { sqlOf } from '../store/pg/sql';

export const INDEX_TASK = 'index_repository';
export interface IndexJobPayload { repoId: string }

/** Every repository's jobs share one queue and one key: one at a time, a second request merged. */
export const indexQueue = (repoId: string) => `loupe-index:${repoId}`;

/** Enqueues (or merges into the waiting) indexing job of a repository and marks it queued. */
export async function enqueueIndexing(utils: WorkerUtils, repos: { setState: PgIndexStores['repos']['setState'] }, repoId: string): Promise<void> {
  await repos.setState(repoId, 'queued');
  await utils.addJob(INDEX_TASK, { repoId } satisfies IndexJobPayload, { queueName: indexQueue(repoId), jobKey: indexQueue(repoId), maxAttempts: 10 });
}

export interface IndexWorkerOptions {
  /** postgres://… */
  url: string;
  /** Jobs this process runs at once (default 1; each run uses every core to parse). */
  concurrency?: number;
  /** Where git repositories are cloned (this worker's own disk). */
  workDir: string;
  /** How often this process beats (ms, default 2 000). */
  heartbeatMs?: number;
  /** A worker without a beat for this long loses its jobs (ms, default 30 000). */
  staleMs?: number;
  /** How often idle workers look for jobs besides LISTEN/NOTIFY (ms, default 2 000). */
  pollMs?: number;
  maxFileBytes?: number;
  /** The embedding provider (default: the corpus model learned from the index); every API node must use the same. */
  embedder?: EmbedderConfig;
  log: Logger;
}

export interface IndexWorker {
  /** graphile-worker ids of this process (its pool's, which locks the jobs, and its workers'). */
  readonly workerIds: ReadonlySet<string>;
  /** Stops taking jobs, aborts the running ones (they are retried elsewhere) and closes the connections. */
  stop(): Promise<void>;
  /** Settles when the worker stopped (after stop(), or a fatal error). */
  readonly done: Promise<void>;
}

/** Session advisory locks of the index worker: (namespace, hashtext(repo id)). */
const LOCK_NAMESPACE = 0x6c6f7570;
/**
 * The vectors' lock (namespace, 0), a session advisory lock on a connection of its own: held shared while
 * a worker embeds one repository into the active model (workers embed different repositories at once),
 * exclusive while one chooses, trains, builds, activates or retires a model (VectorIndex.useLocks).
 */
const VECTORS_LOCK = 0x6c6f7576;
/** How long one wait for the vectors' lock blocks before the job's abort signal is looked at again. */
const VECTORS_LOCK_WAIT_MS = 500;

/**
 * Takes the vectors' lock in `mode`, waiting in line (a blocking lock request queues, so a worker waiting
 * for the exclusive lock is not starved by shared holders that keep coming), looking at `signal` every
 * VECTORS_LOCK_WAIT_MS (lock_timeout). Resolves to its release, or null if aborted while waiting.
 */
export async function vectorsLock(db: PgDb, mode: 'shared' | 'exclusive', signal: AbortSignal): Promise<(() => Promise<void>) | null> {
  const client = await db.pool.connect();
  const suffix = mode === 'shared' ? '_shared' : '';
  try {
    await client.query(`SET lock_timeout = ${VECTORS_LOCK_WAIT_MS}`);
    for (;;) {
      if (signal.aborted) {
        await client.query('RESET lock_timeout');
        client.release();
        return null;
      }
      try {
        await client.query(`SELECT pg_advisory_lock${suffix}($1, 0)`, [VECTORS_LOCK]);
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== '55P03') throw error; // lock_timeout: look at the signal, wait again
      }
    }
    await client.query('RESET lock_timeout');
  } catch (error) {
    client.release(error as Error); // the connection (and any lock it took) is closed
    throw error;
  }
  return async () => {
    try {
      await client.query(`SELECT pg_advisory_unlock${suffix}($1, 0)`, [VECTORS_LOCK]);
      client.release();
    } catch (error) {
      client.release(error as Error); // closing the session lets the lock go
    }
  };
}

export async function startIndexWorker(options: IndexWorkerOptions): Promise<IndexWorker> {
  const log = options.log;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const heartbeatMs = options.heartbeatMs ?? 2_000;
  const staleMs = options.staleMs ?? 30_000;
  const db = new PgDb({ url: options.url, max: 2 + 2 * concurrency });
  await migratePg(db, PG_MIGRATIONS);
  await db.query(`CREATE TABLE IF NOT EXISTS loupe_worker_heartbeats (worker_id text PRIMARY KEY, seen_at timestamptz NOT NULL)`);
  // pgvector (vector(n), HNSW) when the extension is installed or can be created, else bytea.
  const stores = openPgIndexStores(db);
  const { utils, close: closeUtils } = await openWorkerUtils(options.url);
  await utils.migrate();

  // The derived indexes, shared by this process's jobs (the vector index serialises its updates).
  const vectors = new VectorIndex(null, log, options.embedder ?? { kind: 'corpus' }, { memoryFloats: 0 }, stores.vectors);
  vectors.useLocks({ shared: (signal) => vectorsLock(db, 'shared', signal), exclusive: (signal) => vectorsLock(db, 'exclusive', signal) });
  log.info(`index worker: vectors as ${await stores.vectors.storage()}`);
  // The worker is the repository's only writer while it holds its lock: its graph is re-read once per run.
  const graphs = new GraphCache(stores.analysis);
  graphs.trustWhile(() => true);
  const docs = new FileDocs(stores.analysis, stores.analysis, stores.files,
    { graph: (repoId) => graphs.get(repoId), entries: async () => [] }, log, (repoId) => stores.analysis.pendingDocs(repoId),
    new PgDocsStore(sqlOf(db)));
  const derived: DerivedIndex[] = [
    // The VectorIndex takes the vectors' locks around its steps; it embeds on this thread (no writer of
    // the Indexer's is handed to it: the PostgreSQL writer has none).
    { name: 'vectors', update: (repoId: string, signal: AbortSignal) => vectors.update(repoId, signal) },
    {
      name: 'docs',
      async *update(repoId: string, signal: AbortSignal): AsyncGenerator<IndexProgress> {
        graphs.forget(repoId);
        try {
          yield* docs.update(repoId, signal);
        } finally {
          graphs.forget(repoId); // not kept between runs: the next run may be another worker's
        }
      },
    },
    {
      // Vectors and docs do not move the generation: API nodes are told here (files told them already).
      name: 'announce',
      async *update(repoId: string): AsyncGenerator<IndexProgress> {
        await announceRepository(db, repoId);
        log.info(`announced repository ${repoId} at ${Date.now()}`);
      },
    },
  ];

  const workerIds = new Set<string>();
  const events = new EventEmitter();
  const beat = async () => {
    if (!workerIds.size) return;
    await db.query(
      `INSERT INTO loupe_worker_heartbeats (worker_id, seen_at) SELECT unnest($1::text[]), now()
       ON CONFLICT (worker_id) DO UPDATE SET seen_at = now()`, [[...workerIds]]);
  };
  // graphile-worker 0.18 locks jobs under the pool's id (locked_by); its workers' ids are kept too.
  events.on('pool:create', ({ workerPool }: { workerPool: { id: string } }) => {
    workerIds.add(workerPool.id);
    void beat().catch(() => undefined);
  });
  events.on('worker:create', ({ worker }: { worker: { workerId: string } }) => {
    workerIds.add(worker.workerId);
    void beat().catch(() => undefined);
  });

  /** Unlocks the jobs of workers whose beat is stale (or who never beat) after `staleMs`. */
  const sweep = async () => {
    const dead = (await db.rows<{ locked_by: string }>(
      `SELECT DISTINCT j.locked_by FROM graphile_worker.jobs j
       WHERE j.locked_by IS NOT NULL AND j.locked_at < now() - $1 * interval '1 millisecond'
         AND NOT EXISTS (SELECT 1 FROM loupe_worker_heartbeats h
                         WHERE h.worker_id = j.locked_by AND h.seen_at >= now() - $1 * interval '1 millisecond')`,
      [staleMs])).map((r) => r.locked_by).filter((id) => !workerIds.has(id));
    if (!dead.length) return;
    log.warn(`index worker: unlocking the jobs of ${dead.length} worker(s) without a heartbeat for ${staleMs} ms: ${dead.join(', ')}`);
    await utils.forceUnlockWorkers(dead);
    await db.query('DELETE FROM loupe_worker_heartbeats WHERE worker_id = ANY($1::text[])', [dead]);
  };
  const timer = setInterval(() => {
    void beat().then(sweep).catch((error: Error) => log.warn('index worker: heartbeat failed:', error));
  }, heartbeatMs);

  const active = new Set<Promise<unknown>>();
  const task: Task = (raw, helpers) => {
    const running = runTask(raw, helpers);
    active.add(running);
    void running.then(() => active.delete(running), () => active.delete(running));
    return running;
  };
  const runTask = async (raw: unknown, helpers: Parameters<Task>[1]): Promise<void> => {
    const { repoId } = raw as IndexJobPayload;
    const repo = await stores.repos.get(repoId);
    if (!repo) { log.info(`index worker: repository ${repoId} is gone; nothing to index`); return; }
    const lock = await db.pool.connect();
    try {
      const got = (await lock.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [LOCK_NAMESPACE, repoId])).rows[0]!.ok;
      if (!got) throw new LoupeError('CONFLICT', `repository ${repoId} is being indexed by another worker`);
      try {
        const from = Date.now();
        const result = await indexOne(repo, helpers.abortSignal);
        // One line per run (start-end in ms since the epoch; added, changed, removed files): the tests read it.
        log.info(`index job ${repoId} ${from}-${Date.now()} +${result.added} ~${result.changed} -${result.removed} (${repo.name}, attempt ${helpers.job.attempts})`);
      } finally {
        await lock.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_NAMESPACE, repoId]).catch(() => undefined);
      }
    } finally {
      lock.release();
    }
  };

  const indexOne = async (repo: RepoRecord, signal: AbortSignal): Promise<IndexRunResult> => {
    const writeOptions = { maxFileBytes: options.maxFileBytes ?? 1024 * 1024 };
    const writer = new PgIndexWriter(stores, db, writeOptions, signal);
    const indexer = new Indexer(stores.repos, writer.indexerFiles, log, { ...writeOptions, writerThread: false }, undefined, writer);
    for (const index of derived) indexer.addDerivedIndex(index);
    try {
      let target = repo;
      let head: string | null = null;
      if (repo.source === 'git') {
        await stores.repos.setState(repo.id, 'indexing');
        ({ root: target, head } = checkout(repo, options.workDir));
      }
      const result = await indexer.indexRepository(target, () => undefined, signal);
      if (head) await stores.repos.setState(repo.id, 'ready', { headCommit: head });
      return result;
    } catch (error) {
      const aborted = (error as Error).name === 'AbortError';
      await stores.repos.setState(repo.id, aborted ? 'queued' : 'failed', aborted ? {} : { error: (error as Error).message }).catch(() => undefined);
      throw error;
    } finally {
      await indexer.close();
    }
  };

  let runner: Runner;
  try {
    runner = await run({
      connectionString: options.url,
      concurrency,
      noHandleSignals: true,
      pollInterval: options.pollMs ?? 2_000,
      gracefulShutdownAbortTimeout: 0,
      taskList: { [INDEX_TASK]: task },
      events: events as never,
      logger: quietLogger(log),
    });
  } catch (error) {
    clearInterval(timer);
    await closeUtils();
    await db.close();
    throw error;
  }
  await beat();

  let stopping: Promise<void> | null = null;
  const stop = () => (stopping ??= (async () => {
    clearInterval(timer);
    await runner.stop().catch((error: Error) => log.warn('index worker: stop:', error));
    // The aborted runs end (state back to queued), and whatever this process still has locked is let go at
    // once: graphile-worker's graceful stop can return with an aborted job still locked under its pool.
    await Promise.allSettled([...active]);
    await utils.forceUnlockWorkers([...workerIds]).catch((error: Error) => log.warn('index worker: unlock on stop:', error));
    await db.query('DELETE FROM loupe_worker_heartbeats WHERE worker_id = ANY($1::text[])', [[...workerIds]]).catch(() => undefined);
    await closeUtils();
    await db.close();
  })());
  const done = runner.promise.then(() => stop(), async (error: Error) => { await stop(); throw error; });
  return { workerIds, stop, done };
}

/** A git repository's checkout in this worker's folder: cloned once, then fetched and reset to the remote's head. */
function checkout(repo: RepoRecord, workDir: string): { root: RepoRecord; head: string } {
  const dir = path.join(workDir, repo.id);
  const git = (args: string[], cwd?: string) => execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' }).trim();
  if (!fs.existsSync(path.join(dir, '.git'))) {
    fs.mkdirSync(workDir, { recursive: true });
    fs.rmSync(dir, { recursive: true, force: true });
    git(['clone', '--depth', '1', ...(repo.branch ? ['--branch', repo.branch] : []), repo.url, dir]);
  } else {
    git(['fetch', '--depth', '1', 'origin', repo.branch ?? 'HEAD'], dir);
    git(['reset', '--hard', 'FETCH_HEAD'], dir);
  }
  return { root: { ...repo, rootPath: dir }, head: git(['rev-parse', 'HEAD'], dir) };
}

/** graphile-worker's log through ours: its debug lines dropped. */
function quietLogger(log: Logger) {
  return new GraphileLogger(() => (level: string, message: string) => {
    if (level === 'error') log.warn(`graphile-worker: ${message}`);
    else if (level === 'warning') log.warn(`graphile-worker: ${message}`);
  });
}
