/**
 * The engine and HTTP sidecar in a process of their own, for tests that kill it: configured from
 * a JSON argument, registering one folder for the owner, printing `READY <url>` once listening.
 *   node --import tsx sidecar.ts <dataDir> <folder> <ownerKey> [engine config JSON]
 */
import { EngineCore } from '../../../server/engine/core';
import { stderrLogger } from '../../../server/engine/log';
import { startSidecar } from '../../../server/host';

async function main(): Promise<void> {
  const [dataDir, folder, key, configJson] = process.argv.slice(2);
  const engine = new EngineCore({ dataDir, log: stderrLogger('warn'), allowedRoots: [folder], ...(configJson ? JSON.parse(configJson) : {}) });
  const { userId } = engine.accounts.ensureOwner(key);
  engine.repos.registerLocalFolder(userId, folder);
  const sidecar = await startSidecar(engine, { host: '127.0.0.1', port: 0 });
  process.stdout.write(`READY ${sidecar.url}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
