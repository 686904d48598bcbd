/**
 * `npm run worker -- --database postgres://…` (or LOUPE_DATABASE_URL): the team server's index worker
 * (server/engine/team/index-worker.ts). Options: --concurrency N (jobs at once, default 1),
 * --work-dir DIR (git clones; default ~/.loupe-worker), --heartbeat-ms, --stale-ms (the lease).
 * SIGTERM / SIGINT stop it cleanly: no new job is taken, a running one is aborted and retried.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from './engine/log';
import { startIndexWorker } from './engine/team/index-worker';
import { embedderConfigFromEnv } from './engine/embed/embedder';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      database: { type: 'string' }, concurrency: { type: 'string' }, 'work-dir': { type: 'string' },
      'heartbeat-ms': { type: 'string' }, 'stale-ms': { type: 'string' }, 'poll-ms': { type: 'string' },
    },
  });
  const url = values.database ?? process.env.LOUPE_DATABASE_URL;
  if (!url) {
    process.stderr.write('usage: npm run worker -- --database postgres://… [--concurrency N] [--work-dir DIR]\n');
    process.exit(2);
  }
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  const log = createLogger((level, line) => process.stderr.write(`${new Date().toISOString()} ${level} ${line}\n`));
  const worker = await startIndexWorker({
    url, log,
    concurrency: num(values.concurrency),
    workDir: values['work-dir'] ?? path.join(os.homedir(), '.loupe-worker'),
    heartbeatMs: num(values['heartbeat-ms']), staleMs: num(values['stale-ms']), pollMs: num(values['poll-ms']),
    embedder: embedderConfigFromEnv(process.env),
  });
  // The handlers before the line a supervisor or a test waits for (a signal sent on reading it must find them).
  const stop = () => { log.info('index worker stopping'); void worker.stop(); };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  log.info(`index worker ready (${[...worker.workerIds].join(', ')})`);
  await worker.done;
  log.info('index worker stopped');
}

main().then(() => process.exit(0), (error: Error) => {
  process.stderr.write(`index worker failed: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
