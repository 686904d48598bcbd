/**
 * Headless Loupe: `npm start -- <folder>` indexes the folder and serves the V2 API (and A2A) on
 * 127.0.0.1. Addresses and the key go to stdout; progress and logs to stderr. Loaded by server/cli.ts
 * (dist/cli.js), which turns Node's compile cache on first.
 */
import path from 'node:path';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { Operations } from './engine/operations';
import { stderrLogger } from './engine/log';
import { watchFolder } from './engine/indexer/watcher';
import { Host, type Sidecar } from './host';
import { enableCompileCache } from './data-dir';
import { LISTEN_FLAGS, settingsFromCli, settingsOrFail } from './settings';
import { stopOnSignals } from './stop-signals';

const USAGE = `Usage: npm start -- <folder> [options]

Indexes <folder> and serves the Code Intelligence API (V2) on http://127.0.0.1:7341.

Options:
  --port N            port to listen on (default 7341; 0 picks a free port)
  --host ADDR         address to bind (default 127.0.0.1; anything else is reachable from other machines)
  --data-dir DIR      where the index lives (default $LOUPE_HOME or ~/.loupe)
  --allow DIR         another folder API callers may index (repeatable)
  --allow-origin URL  a web origin whose pages may call the API (repeatable; none by default)
  --allow-host NAME   another name the API may be reached by in the Host header (repeatable)
  --ignore GLOB       extra gitignore-style pattern to skip (repeatable)
  --max-file-size N   skip files larger than N bytes (default 1048576)
  --no-watch          do not watch the folder for changes
  -h, --help          show this help

Environment: LOUPE_HOME, LOUPE_API_KEY (the owner's key, a UUID), GITHUB_TOKEN, LOUPE_LOG=debug.
File docs written by a research model: LOUPE_DOCS_MODEL (a model id of GET /v2/models).
Research models: LOUPE_CHAT_BASE_URL (an OpenAI-compatible /v1), LOUPE_CHAT_MODELS (comma-separated),
  LOUPE_CHAT_API_KEY, LOUPE_CHAT_CONTEXT_WINDOW, LOUPE_CHAT_MAX_OUTPUT, LOUPE_CHAT_DEFAULT_MODEL.
Model-assisted retrieval (off unless set): LOUPE_RETRIEVAL_MODEL (a model id of GET /v2/models; see docs/retrieval-assist.md).
Sign-up mail: LOUPE_SMTP_HOST, LOUPE_SMTP_PORT, LOUPE_SMTP_USER, LOUPE_SMTP_PASSWORD, LOUPE_SMTP_FROM,
  LOUPE_SMTP_SECURE (TLS from the start), LOUPE_SMTP_REQUIRE_TLS (STARTTLS or fail); without them codes go to
  DATA_DIR/outbox and this terminal.
Plans, credit costs and the owner's balance: DATA_DIR/accounts.json (see ARCHITECTURE.md, Accounts).`;

function fail(message: string): never {
  process.stderr.write(`loupe: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({
      allowPositionals: true,
      options: {
        ...LISTEN_FLAGS,
        ignore: { type: 'string', multiple: true, default: [] },
        'max-file-size': { type: 'string', default: String(1024 * 1024) },
        'no-watch': { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    fail(`${(error as Error).message}\n\n${USAGE}`);
  }
  const { values, positionals } = args;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (positionals.length !== 1) fail(`give exactly one folder to index\n\n${USAGE}`);
  const folder = path.resolve(positionals[0]);
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) fail(`${folder} is not a folder`);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail('--port must be a whole number from 0 to 65535');
  const maxFileBytes = Number(values['max-file-size']);
  if (!Number.isInteger(maxFileBytes) || maxFileBytes < 1) fail('--max-file-size must be a positive whole number of bytes');
  const host = values.host!;
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') {
    process.stderr.write(`loupe: warning: binding to ${host} makes the API reachable from other machines; every route still needs a key.\n`);
  }
  const allow = values.allow!.map((d) => path.resolve(d));
  for (const dir of allow) if (!fs.existsSync(dir)) fail(`--allow ${dir}: no such folder`);

  const settings = settingsOrFail(() => settingsFromCli({
    folder, port, host, dataDir: values['data-dir'], allow, allowOrigin: values['allow-origin']!, allowHost: values['allow-host']!,
    ignore: values.ignore!, maxFileBytes,
  }, process.env), fail);
  const log = stderrLogger(settings.logLevel);
  const loupe = await Host.openOrFail(settings, log, fail);
  const { ops, owner } = loupe;
  let stopWatching = () => {};
  const signals = stopOnSignals(log, async () => {
    stopWatching();
    await loupe.close();
  });
  // The catch-up run's writer thread (its bundle, its connection) loads while this thread binds the
  // port and registers the folder: it is what a no-change restart waits for.
  ops.indexing.warmWriter();
  // On a first start the data dir exists only now (a no-op when cli.ts turned the cache on already).
  enableCompileCache(settings.engine.dataDir);

  // The port first: when it is taken, that is the one thing to say, before any indexing starts. It is
  // bound now; the HTTP application (Fastify, OpenAPI, A2A, MCP: most of a start's own time) is built
  // below while the catch-up run walks the folder in the index writer's thread, and a request that
  // comes before it is built waits for it.
  let sidecar: Sidecar;
  try {
    sidecar = (await loupe.listen({ onDemand: true }))!;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    await loupe.close();
    fail(code === 'EADDRINUSE' ? `port ${port} is in use; pass --port N or --port 0` : (error as Error).message);
  }

  reportProgress(ops);
  const resumed = ops.indexing.resumeInterrupted();
  if (resumed.length) log.info(`resuming interrupted indexing of ${resumed.map((r) => r.name).join(', ')}`);
  const repo = await loupe.registerFolderOrFail(folder, fail);
  // The catch-up run starts (the index writer's thread, which walks the folder) before the application
  // is built: building it holds this thread for a while, and the run's first steps are queued on it.
  await new Promise((resolve) => setImmediate(resolve));
  try {
    await sidecar.ready?.();
  } catch (error) {
    await loupe.close();
    fail(`the HTTP API could not start: ${(error as Error).message}`);
  }
  await signals.started();
  process.stdout.write(`Loupe API: ${sidecar.url}\nAPI key: ${owner.key}\nAPI docs: ${sidecar.url}/docs\n`);

  if (!values['no-watch']) {
    stopWatching = watchFolder(folder, (paths) => {
      ops.indexing.applyChanges(repo.id, paths).then(
        (outcome) => {
          if (outcome.kind !== 'updated') return;
          const { added, changed, removed, durationMs } = outcome.result;
          if (added || changed || removed) log.info(`updated ${added + changed + removed} file(s) in ${durationMs} ms`);
        },
        (error) => log.warn('update failed:', error),
      );
    }, { excludeDirs: [settings.engine.dataDir] });
  }
}

function reportProgress(ops: Operations): void {
  let last = 0;
  const nameOf = (repoId: string) => ops.indexing.repo(repoId)?.name ?? repoId;
  ops.indexing.on('progress', (p) => {
    const now = Date.now();
    if (p.phase !== 'done' && now - last < 500) return;
    last = now;
    const name = nameOf(p.repoId);
    if (p.phase === 'parsing') process.stderr.write(`indexing ${name}: ${p.done}/${p.total} files (${Math.round(p.rate)} files/s)\n`);
    else if (p.phase === 'derived') process.stderr.write(`indexing ${name}: building search index${p.total ? ` ${p.done}/${p.total}` : ''}\n`);
  });
  ops.indexing.on('finished', ({ repoId, result }) => {
    const name = nameOf(repoId);
    process.stderr.write(`indexed ${name}: ${result.added} added, ${result.changed} changed, ${result.removed} removed, ` +
      `${result.unchanged} unchanged, ${result.skipped} skipped in ${(result.durationMs / 1000).toFixed(1)} s\n`);
  });
  ops.indexing.on('failed', ({ repoId, error }) => {
    process.stderr.write(`indexing ${nameOf(repoId)} failed: ${error.message}\n`);
  });
}

main().catch((error) => {
  process.stderr.write(`loupe: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
