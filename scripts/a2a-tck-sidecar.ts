/**
 * Serves a fixture on 127.0.0.1 for the A2A conformance suite (docs/a2a.md):
 *   node --import tsx scripts/a2a-tck-sidecar.ts [port]
 * A fresh data directory each run, the ts-paths fixture indexed, the sidecar's URL on stderr.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../server/engine/engine';
import { stderrLogger } from '../server/engine/log';
import { startSidecar } from '../server/host';

async function main(): Promise<void> {
  const port = Number(process.argv[2] ?? 7399);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-tck-'));
  const folder = path.join(__dirname, '..', 'test', 'fixtures', 'ts-paths');
  const engine = new Engine({ dataDir, log: stderrLogger('warn'), allowedRoots: [folder] });
  const { userId } = await engine.ops.owner.ensure();
  engine.ops.indexing.registerFolder(userId, folder);
  const sidecar = await startSidecar(engine, { host: '127.0.0.1', port });
  process.stderr.write(`A2A sidecar: ${sidecar.url}/a2a/jsonrpc (card: ${sidecar.url}/.well-known/agent-card.json)\n`);
  const stop = async () => {
    await sidecar.close();
    await engine.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void main();
