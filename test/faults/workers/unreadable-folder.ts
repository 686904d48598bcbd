/**
 * Runs without the power to ignore permissions (as root, the test drops the capabilities for it):
 * indexes a copy of a fixture, makes the folder unreadable, indexes again, and prints what the
 * repository's status says, and whether this process could still read the folder.
 *   node --import tsx test/faults/workers/unreadable-folder.ts <work dir> <fixture>
 */
import fs from 'node:fs';
import path from 'node:path';
import { EngineCore } from '../../../server/engine/core';
import { silentLogger } from '../../../server/engine/log';
import { newId } from '../../../server/engine/util/ids';

async function main(): Promise<void> {
  const [work, fixture] = process.argv.slice(2);
  const folder = path.join(work, 'repo');
  fs.cpSync(fixture, folder, { recursive: true });
  const engine = new EngineCore({ dataDir: path.join(work, 'data'), log: silentLogger, allowedRoots: [work] });
  const { userId } = engine.accounts.ensureOwner(newId());
  const repo = engine.repos.registerLocalFolder(userId, folder);
  await engine.queue.idle();
  const before = engine.reposStore.get(repo.id)!;
  fs.chmodSync(folder, 0o000);
  let bypassed = true;
  try {
    fs.readdirSync(folder);
  } catch {
    bypassed = false;
  }
  try {
    engine.queue.enqueue(repo.id);
    await engine.queue.idle();
    const after = engine.reposStore.get(repo.id)!;
    const files = engine.filesStore.count(repo.id);
    process.stdout.write(`${JSON.stringify({ bypassed, before: before.state, after: after.state, error: after.error, files })}\n`);
  } finally {
    fs.chmodSync(folder, 0o755);
    await engine.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
