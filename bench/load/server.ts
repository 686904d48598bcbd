/**
 * The server side of the load test: the real engine and HTTP sidecar in their own process (as the
 * CLI runs them), with sign-ups on a plan large enough that clients are limited by the server, not
 * by credits. Prints `READY <url> <owner key>` on stdout once listening; indexing of the given
 * folders goes on in the background. Stops on SIGTERM.
 *   node --import tsx bench/load/server.ts <dataDir> <folder>...
 */
import { EngineCore } from '../../server/engine/core';
import { stderrLogger } from '../../server/engine/log';
import { startSidecar } from '../../server/host';
import { newId } from '../../server/engine/util/ids';

async function main(): Promise<void> {
  const [dataDir, ...folders] = process.argv.slice(2);
  const generous = { email: { max: 1000, windowMs: 60_000 }, client: { max: 10_000, windowMs: 60_000 } };
  const engine = new EngineCore({
    dataDir, log: stderrLogger('warn'), allowedRoots: folders,
    // The signed-up users index the owner's folders: shared with everyone (local folders are otherwise the owner's).
    accounts: {
      signupPlan: 'PRO', auth: { rateLimits: { authenticate: generous, verify: generous, resend: generous }, passwordSignupRequiresVerification: false },
      sharedFolders: folders.map((folder) => ({ path: folder, users: ['*'] })),
    },
  });
  const key = newId();
  const { userId } = engine.accounts.ensureOwner(key);
  for (const folder of folders) engine.repos.registerLocalFolder(userId, folder);
  const sidecar = await startSidecar(engine, { host: '127.0.0.1', port: 0 });
  engine.queue.on('finished', ({ repoId, result }) => process.stderr.write(`indexed ${repoId}: ${result.added} files in ${result.durationMs} ms\n`));
  process.stdout.write(`READY ${sidecar.url} ${key}\n`);
  const stop = async () => {
    await sidecar.close();
    await engine.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
}

main().catch((error) => {
  process.stderr.write(`load server: ${error?.stack ?? error}\n`);
  process.exit(1);
});
