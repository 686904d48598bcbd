/**
 * One of two processes writing the same Loupe database at once (the editor's language server and
 * a CLI sidecar on one data dir do this). It indexes its own folder and, meanwhile, charges
 * credits with history rows and rotates a key; it prints a JSON summary and exits non-zero on
 * any error, SQLITE_BUSY included.
 *   node --import tsx concurrent-writer.ts <dataDir> <folder> <operations> <userId>
 */
import { EngineCore } from '../../../server/engine/core';
import { silentLogger } from '../../../server/engine/log';

async function main(): Promise<void> {
  const [dataDir, folder, countText, userId] = process.argv.slice(2);
  const engine = new EngineCore({ dataDir, log: silentLogger, allowedRoots: [folder] });
  const failures: string[] = [];
  engine.queue.on('failed', ({ error }) => failures.push(`indexing: ${error.message}`));
  engine.repos.registerLocalFolder(userId, folder);
  let charged = 0;
  for (let i = 0; i < Number(countText); i++) {
    try {
      engine.accounts.settle({ userId, operation: 'search', credits: 1, history: { category: 'search', query: `q${process.pid}-${i}` } as never });
      charged++;
      engine.accounts.regenerate(userId);
    } catch (error) {
      failures.push(`${(error as { code?: string }).code ?? ''} ${(error as Error).message}`);
    }
    // Yield so indexing batches interleave with these writes.
    await new Promise((r) => setImmediate(r));
  }
  await engine.queue.idle();
  await engine.close();
  process.stdout.write(`${JSON.stringify({ charged, failures })}\n`);
  process.exit(failures.length ? 1 : 0);
}

main().catch((error) => {
  process.stdout.write(`${JSON.stringify({ charged: 0, failures: [String(error?.stack ?? error)] })}\n`);
  process.exit(1);
});
