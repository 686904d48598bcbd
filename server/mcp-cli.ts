/**
 * Loupe as a local MCP server over stdio: `npm run --silent mcp -- <folder>` (or `node dist/mcp.js <folder>`).
 * Indexes <folder> (incrementally: a second start reuses the index), keeps it fresh, and answers
 * an agent's tool calls on stdin/stdout. stdout carries only MCP messages; logs go to stderr.
 * Tools run the HTTP operations in-process (inject) as the machine's owner; nothing listens.
 */
import path from 'node:path';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { stderrLogger } from './engine/log';
import { watchFolder } from './engine/indexer/watcher';
import { Host } from './host';
import { settingsFromMcp, settingsOrFail } from './settings';

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

  const settings = settingsOrFail(() => settingsFromMcp({ folder, dataDir: args.values['data-dir'] }, process.env), fail);
  const log = stderrLogger(settings.logLevel);
  const loupe = await Host.openOrFail(settings, log, fail);
  const { ops } = loupe;
  ops.indexing.resumeInterrupted();
  const repo = await loupe.registerFolderOrFail(folder, fail);
  const stopWatching = args.values['no-watch'] ? () => {} : watchFolder(folder, (paths) => {
    ops.indexing.applyChanges(repo.id, paths).catch((error) => log.warn('update failed:', error));
  }, { excludeDirs: [settings.engine.dataDir] });

  const mcp = await loupe.mcpServer(folder);
  const transport = new StdioServerTransport();
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    stopWatching();
    await mcp.close();
    await loupe.close();
    process.exit(0);
  };
  transport.onclose = () => void stop();
  process.stdin.on('end', () => void stop());
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  await mcp.server.connect(transport);
}

main().catch((error) => {
  process.stderr.write(`loupe mcp: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
