import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createTestEngine, tempDir } from '../helpers/engine';
import { killAtEnd, ROOT } from '../helpers/cli';
import { writeTsCorpus } from '../helpers/corpus';
import { indexSnapshot } from '../helpers/db-snapshot';

const KEY = '3b2f7c1e-9a4d-4e6b-8c5f-1d2e3f4a5b6c';

/** The real CLI from source, as `npm start` runs it, with its stderr collected. */
function startCli(t: TestContext, folder: string, dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server', 'cli.ts'), folder, '--port', '0', '--data-dir', dataDir, '--no-watch'], {
    cwd: ROOT, env: { ...process.env, LOUPE_API_KEY: KEY }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  killAtEnd(t, child);
  let stderr = '';
  const listeners: (() => void)[] = [];
  child.stderr.on('data', (d) => { stderr += d; for (const l of listeners) l(); });
  child.stdout.resume();
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  const until = (pattern: RegExp, timeoutMs: number) => new Promise<RegExpMatchArray>((resolve, reject) => {
    const check = () => { const m = pattern.exec(stderr); if (m) { clearTimeout(timer); resolve(m); } };
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms; stderr:\n${stderr}`)), timeoutMs);
    listeners.push(check);
    check();
    void exited.then(() => setTimeout(() => reject(new Error(`CLI exited before ${pattern}; stderr:\n${stderr}`)), 50));
  });
  return { child, until, exited, stderr: () => stderr };
}

test('kill -9 mid-indexing: the database opens, the index resumes from what was committed and equals a clean one', { timeout: 420_000 }, async (t) => {
  const folder = writeTsCorpus(path.join(tempDir('loupe-kill-corpus-'), 'corpus'), 2000);
  const dataDir = tempDir('loupe-kill-data-');

  const first = startCli(t, folder, dataDir);
  // Wait for a progress line that shows committed batches but not the end, then pull the plug.
  const progress = await first.until(/indexing corpus: ([1-9]\d{2,})\/(\d+) files/, 120_000);
  const [doneAtKill, total] = [Number(progress[1]), Number(progress[2])];
  first.child.kill('SIGKILL');
  assert.equal(await first.exited, 'SIGKILL');
  assert.ok(doneAtKill < total, `killed mid-run (${doneAtKill}/${total})`);
  assert.doesNotMatch(first.stderr(), /indexed corpus:/, 'the first run did not finish');

  const interrupted = indexSnapshot(path.join(dataDir, 'loupe.db'));
  assert.equal(interrupted.integrity, 'ok', 'the killed database opens and is intact');
  assert.equal((interrupted.repo as { updating: number }[])[0].updating, 1, 'marked as interrupted');
  assert.ok((interrupted.files as number) >= doneAtKill - 64 && (interrupted.files as number) < total, `partial: ${interrupted.files} of ${total}`);

  const second = startCli(t, folder, dataDir);
  const finished = await second.until(/indexed corpus: (\d+) added, (\d+) changed, (\d+) removed/, 300_000);
  second.child.kill('SIGTERM');
  await second.exited;
  const added = Number(finished[1]);
  assert.ok(added > 0 && added <= total - (interrupted.files as number), `resumed: parsed ${added} files, not all ${total}`);

  const clean = createTestEngine();
  const repo = clean.engine.repos.registerLocalFolder(clean.ownerId, folder);
  await clean.engine.queue.idle();
  assert.equal(clean.engine.reposStore.get(repo.id)!.state, 'ready');
  await clean.close();

  const resumed = indexSnapshot(path.join(dataDir, 'loupe.db'));
  const reference = indexSnapshot(path.join(clean.dataDir, 'loupe.db'));
  assert.equal(resumed.files, total);
  assert.deepEqual(resumed, reference, 'the resumed index equals a clean index of the same folder');
  assert.equal(resumed.orphanChunks, 0);
  assert.equal(resumed.ftsRows, resumed.chunks);
});
