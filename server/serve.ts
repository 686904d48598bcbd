/**
 * `npm run serve -- --database postgres://… [--port N] [--allow DIR…]` (or LOUPE_DATABASE_URL): an API
 * node of the team server. Accounts and the index are read from PostgreSQL (`openPgStorage`, which
 * migrates the database once, whichever node is first); a registration becomes a graphile-worker job
 * (team/worker-queue.ts) that an index worker (`npm run worker`) takes: this process indexes nothing.
 * Any number of nodes serve the same API on one database. The data dir keeps only what is local by
 * nature (the owner's key file when the key was printed, the outbox). The owner's key: LOUPE_API_KEY
 * (give every node the same one), or a key printed at start, valid on every node.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { stderrLogger } from './engine/log';
import { LoupeError } from './engine/errors';
import { openPgStorage } from './engine/store/pg/storage';
import { WorkerQueue } from './engine/team/worker-queue';
import { IndexListener } from './engine/team/notify';
import { Host } from './host';
import { LISTEN_FLAGS, settingsFromCli, settingsOrFail } from './settings';
import { stopOnSignals } from './stop-signals';

const USAGE = `Usage: npm run serve -- --database postgres://… [options]

Serves the Code Intelligence API (V2) from a team server's PostgreSQL; indexing runs in \`npm run worker\`.

Options:
  --database URL      the PostgreSQL database (or LOUPE_DATABASE_URL)
  --port N            port to listen on (default 7341; 0 picks a free port)
  --host ADDR         address to bind (default 127.0.0.1)
  --data-dir DIR      this node's local files (default $LOUPE_HOME or ~/.loupe)
  --allow DIR         a local folder API callers may index (repeatable; the workers must see it at the same path)
  --allow-origin URL  a web origin whose pages may call the API (repeatable)
  --allow-host NAME   another name the API may be reached by in the Host header (repeatable)
  -h, --help          show this help

Environment: LOUPE_DATABASE_URL, LOUPE_API_KEY (the owner's key; give every node the same one), and the
variables of \`npm start -- --help\`.`;

function fail(message: string): never {
  process.stderr.write(`loupe serve: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({
      options: {
        database: { type: 'string' },
        ...LISTEN_FLAGS,
      },
    });
  } catch (error) {
    fail(`${(error as Error).message}\n\n${USAGE}`);
  }
  const { values } = args;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const url = values.database ?? process.env.LOUPE_DATABASE_URL;
  if (!url) fail(`give --database postgres://… or LOUPE_DATABASE_URL\n\n${USAGE}`);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail('--port must be a whole number from 0 to 65535');
  const allow = values.allow!.map((d) => path.resolve(d));
  for (const dir of allow) if (!fs.existsSync(dir)) fail(`--allow ${dir}: no such folder`);

  const settings = settingsOrFail(() => settingsFromCli({
    port, host: values.host!, dataDir: values['data-dir'], allow, allowOrigin: values['allow-origin']!,
    allowHost: values['allow-host']!, ignore: [], maxFileBytes: 1024 * 1024,
  }, process.env), fail);
  const log = stderrLogger(settings.logLevel);
  const storage = await openPgStorage(url, log);
  let queue: WorkerQueue;
  try {
    queue = await WorkerQueue.open(url, storage.repos, log);
  } catch (error) {
    await storage.close();
    throw error;
  }
  // One LISTEN connection: a repository's new generation drops this node's caches of it (team/notify.ts).
  const listener = new IndexListener(url, log);
  // The engine closes the storage (its account side; the index reads are the same stores).
  settings.engine = { ...settings.engine, accountStorage: storage, indexReads: storage, repositoryQueue: queue, indexEvents: listener };
  let loupe: Host;
  try {
    loupe = await Host.open(settings, log);
  } catch (error) {
    await listener.close();
    await queue.close();
    if (error instanceof LoupeError) fail(error.message);
    throw error;
  }
  const close = async () => {
    await listener.close();
    await loupe.close();
    await queue.close();
  };
  const signals = stopOnSignals(log, close);
  let sidecar;
  try {
    sidecar = (await loupe.listen())!;
  } catch (error) {
    await close();
    const code = (error as NodeJS.ErrnoException).code;
    fail(code === 'EADDRINUSE' ? `port ${port} is in use; pass --port N or --port 0` : (error as Error).message);
  }
  await signals.started();
  process.stdout.write(`Loupe API: ${sidecar.url}\nAPI key: ${loupe.owner.key}\nAPI docs: ${sidecar.url}/docs\n`);
}

main().catch((error) => {
  process.stderr.write(`loupe serve: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
