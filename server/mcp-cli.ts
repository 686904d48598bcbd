/**
 * Loupe as a local MCP server over stdio: `npm run --silent mcp -- <folder>` (or `node dist/mcp.js <folder>`).
 * Indexes <folder> (incrementally: a second start reuses the index), keeps it fresh, and answers
 * an agent's tool calls on stdin/stdout. stdout carries only MCP messages; logs go to stderr.
 * Tools run the HTTP operations in-process (inject) as the machine's owner; nothing listens.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Engine } from './engine/engine';
import { stderrLogger } from './engine/log';
import { watchFolder } from './engine/indexer/watcher';
import { ownerKey } from './owner-key';
import { newId } from './engine/util/ids';
import { openAIConfigFromEnv } from './engine/research/providers/openai-compatible';
import { embedderConfigFromEnv } from './engine/embed/embedder';
import { createApp } from './transport/http/app';
import { createMcpServer } from './transport/mcp/server';
import { MCP_VERSION } from './transport/mcp';

const USAGE = `Usage: npm run --silent mcp -- <folder> [--data-dir DIR] [--no-watch]

Serves <folder> to an agent as an MCP server over stdio (tools: search, research, blast_radius,
blueprint, file_docs, scope, repos). Environment: LOUPE_HOME, LOUPE_CHAT_BASE_URL, … as for npm start.`;

function fail(message: string): never {
  process.stderr.write(`loupe mcp: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({ allowPositionals: true, options: { 'data-dir': { type: 'string' }, 'no-watch': { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } } });
  } catch (error) {
    fail(`${(error as Error).message}\n\n${USAGE}`);
  }
  if (args.values.help) {
    process.stderr.write(`${USAGE}\n`);
    return;
  }
  if (args.positionals.length !== 1) fail(`give exactly one folder\n\n${USAGE}`);
  const folder = path.resolve(args.positionals[0]);
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) fail(`${folder} is not a folder`);
  const dataDir = path.resolve(args.values['data-dir'] ?? process.env.LOUPE_HOME ?? path.join(os.homedir(), '.loupe'));
  const log = stderrLogger(process.env.LOUPE_LOG === 'debug' ? 'debug' : 'warn');
  const engine = new Engine({
    dataDir, log, allowedRoots: [folder],
    research: { openai: openAIConfigFromEnv(), defaultModel: process.env.LOUPE_CHAT_DEFAULT_MODEL },
    search: { embedder: embedderConfigFromEnv(process.env) },
  });
  let key = ownerKey(engine, process.env.LOUPE_API_KEY || undefined);
  if (!key) {
    key = newId();
    engine.accounts.addKey(engine.accounts.store.owner()!.id, key, 'active');
    fs.writeFileSync(path.join(engine.dataDir, 'owner-key'), `${key}\n`, { mode: 0o600 });
  }
  const repo = engine.repos.registerLocalFolder(engine.accounts.store.owner()!.id, folder);
  const stopWatching = args.values['no-watch'] ? () => {} : watchFolder(folder, (paths) => {
    const current = engine.reposStore.get(repo.id);
    if (!current) return;
    if (engine.queue.current === repo.id || current.updating) engine.queue.enqueue(repo.id);
    else engine.indexer.updatePaths(current, paths).catch((error) => log.warn('update failed:', error));
  }, { excludeDirs: [dataDir] });

  const app = await createApp(engine);
  await app.ready();
  const server = createMcpServer(app, { auth: { 'x-api-key': key }, defaultRepo: folder, version: MCP_VERSION });
  const transport = new StdioServerTransport();
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    stopWatching();
    await server.close().catch(() => {});
    await app.close();
    await engine.close();
    process.exit(0);
  };
  transport.onclose = () => void stop();
  process.stdin.on('end', () => void stop());
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  await server.connect(transport);
}

main().catch((error) => {
  process.stderr.write(`loupe mcp: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
