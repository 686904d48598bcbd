import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { copyOf, debianPackage } from '../helpers/real-code';
import { enqueueIndexing, INDEX_TASK, indexQueue } from '../../server/engine/team/index-worker';
import { assertSameIndex, pgQuery, registerPg, sleep, snapshot, sqliteReference, startWorker, team, useWorkerCluster, waitState } from './worker-harness';

/**
 * The team server's index worker as a real process (npm run worker's entry, from source) over a real
 * PostgreSQL 15: it indexes real code (gin, Flask from Debian; phaser's src from npm) and the index
 * equals the engine's SQLite index of the same folder, row for row; two workers share four repositories
 * (each indexed once, one repository never by two at once); a worker killed with SIGKILL mid-job loses
 * its lease and the other worker finishes the job, ending with the same index as a clean run.
 */
useWorkerCluster();
const gin = () => copyOf(path.join(debianPackage('golang-github-gin-gonic-gin-dev', '1.8.1-1'), 'usr/share/gocode/src/github.com/gin-gonic/gin'));
const flask = () => copyOf(path.join(debianPackage('python3-flask', '2.2.2-3'), 'usr/lib/python3/dist-packages/flask'));

test('a worker process indexes gin into PostgreSQL: files, hashes, symbols, imports with their targets, chunks equal the engine\'s SQLite index', { timeout: 300_000 }, async (t) => {
  const folder = gin();
  const ref = await sqliteReference([folder]);
  const id = ref.ids[0]!;
  await registerPg(id, folder);
  const w = startWorker(t, 'A');
  await w.ready;
  await enqueueIndexing(team.utils, team.pgStores.repos, id);
  await waitState(id, 'ready', 240_000);
  const repo = (await team.pgStores.repos.get(id))!;
  assert.equal(repo.filesDone, repo.filesTotal, 'progress complete in the repos table');
  assert.ok(repo.filesTotal > 50, `gin has files (${repo.filesTotal})`);
  const pg = await snapshot(team.pgStores.files, pgQuery, id);
  assertSameIndex(pg, ref.snaps[0]!, 'gin');
  const resolved = Object.values(pg).flatMap((f) => ((f as { imports?: { targetPath: string | null }[] }).imports ?? [])).filter((i) => i.targetPath);
  assert.ok(resolved.length > 0, 'some imports resolve to files of the repository');

  w.child.kill('SIGTERM');
  assert.equal(await w.exited, 0, 'a clean exit on SIGTERM');
  assert.match(w.stderr(), /index worker stopped/);
});

test('two workers, four repositories: each indexed once, a repository never by two workers at once, every index right', { timeout: 400_000 }, async (t) => {
  const folders = [gin(), flask(), gin(), flask()];
  const ref = await sqliteReference(folders);
  for (const [i, id] of ref.ids.entries()) await registerPg(id, folders[i]!);
  const workers = [startWorker(t, 'A'), startWorker(t, 'B')];
  await Promise.all(workers.map((w) => w.ready));
  for (const id of ref.ids) await enqueueIndexing(team.utils, team.pgStores.repos, id);
  // One more job for the first repository on its queue (no job key): it must wait for the first.
  await team.utils.addJob(INDEX_TASK, { repoId: ref.ids[0] }, { queueName: indexQueue(ref.ids[0]!) });
  for (const id of ref.ids) await waitState(id, 'ready', 300_000);
  // Wait for the extra job to finish too.
  const deadline = Date.now() + 120_000;
  while ((await team.db.query('SELECT 1 FROM graphile_worker.jobs')).rows.length) {
    assert.ok(Date.now() < deadline, 'every job done');
    await sleep(200);
  }
  const runs = workers.flatMap((w) => [...w.stderr().matchAll(/index job (\S+) (\d+)-(\d+)/g)].map((m) => ({ worker: w.name, repo: m[1]!, from: Number(m[2]), to: Number(m[3]) })));
  for (const [i, id] of ref.ids.entries()) {
    const mine = runs.filter((r) => r.repo === id).sort((a, b) => a.from - b.from);
    assert.equal(mine.length, i === 0 ? 2 : 1, `${id}: ${JSON.stringify(mine)}`);
    for (let k = 1; k < mine.length; k++) assert.ok(mine[k]!.from >= mine[k - 1]!.to, `never two runs of one repository at once: ${JSON.stringify(mine)}`);
    assertSameIndex(await snapshot(team.pgStores.files, pgQuery, id), ref.snaps[i]!, folders[i]!);
  }
  assert.ok(new Set(runs.map((r) => r.worker)).size === 2, `both workers took jobs: ${JSON.stringify(runs)}`);
  for (const w of workers) w.child.kill('SIGTERM');
  for (const w of workers) assert.equal(await w.exited, 0);
});
