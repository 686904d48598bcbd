import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { copyOf, npmPackage } from '../helpers/real-code';
import { newId } from '../../server/engine/util/ids';
import { enqueueIndexing } from '../../server/engine/team/index-worker';
import { assertSameIndex, pgQuery, registerPg, sleep, snapshot, sqliteReference, startWorker, team, useWorkerCluster, waitState } from './worker-harness';

/**
 * Faults (beside index-worker.test.ts; worker-harness.ts has what both share). The team server's index worker as a real process (npm run worker's entry, from source) over a real
 * PostgreSQL 15: it indexes real code (gin, Flask from Debian; phaser's src from npm) and the index
 * equals the engine's SQLite index of the same folder, row for row; two workers share four repositories
 * (each indexed once, one repository never by two at once); a worker killed with SIGKILL mid-job loses
 * its lease and the other worker finishes the job, ending with the same index as a clean run.
 */
useWorkerCluster();

test('kill -9 a worker mid-job: its lease ends, the other worker resumes the job, and the index equals a clean one', { timeout: 600_000 }, async (t) => {
  const folder = copyOf(path.join(npmPackage('phaser@3.90.0'), 'src'));
  const ref = await sqliteReference([folder]);
  const id = ref.ids[0]!;
  await registerPg(id, folder);
  const a = startWorker(t, 'A');
  await a.ready;
  await enqueueIndexing(team.utils, team.pgStores.repos, id);
  // Pull the plug once some slices are committed but not all.
  let at = { done: 0, total: 0 };
  const deadline = Date.now() + 240_000;
  for (;;) {
    const r = (await team.pgStores.repos.get(id))!;
    at = { done: r.filesDone, total: r.filesTotal };
    if (r.state === 'indexing' && at.done > 0 && at.done < at.total * 0.6) break;
    assert.ok(r.state !== 'ready' && Date.now() < deadline, `caught mid-run (${r.state} ${at.done}/${at.total})`);
    await sleep(20);
  }
  a.child.kill('SIGKILL');
  assert.equal(await a.exited, 'SIGKILL');
  const stuck = await team.db.query('SELECT locked_by, attempts, last_error FROM graphile_worker.jobs');
  assert.ok(stuck.rows.length === 1 && stuck.rows[0]!.locked_by, `the dead worker still holds the job: ${JSON.stringify(stuck.rows)}\n${a.stderr()}`);

  const b = startWorker(t, 'B');
  await b.ready;
  await waitState(id, 'ready', 400_000);
  assert.match(b.stderr(), /unlocking the jobs of 1 worker/, 'the lease ended by the heartbeat sweep');
  for (const end = Date.now() + 30_000; !/index job /.test(b.stderr()) && Date.now() < end;) await sleep(50);
  const resumed = [...b.stderr().matchAll(/index job \S+ \d+-\d+ \+(\d+)/g)].map((m) => Number(m[1]));
  assert.equal(resumed.length, 1, b.stderr());
  assert.ok(resumed[0]! < at.total, `the retry parsed only what was missing (${resumed[0]} of ${at.total})`);
  assertSameIndex(await snapshot(team.pgStores.files, pgQuery, id), ref.snaps[0]!, 'phaser src after a kill');
  b.child.kill('SIGTERM');
  assert.equal(await b.exited, 0);
});

test('SIGTERM mid-job: the worker exits 0 at once, the repository is queued again, and another worker completes the job', { timeout: 600_000 }, async (t) => {
  const folder = copyOf(path.join(npmPackage('phaser@3.90.0'), 'src'));
  const id = newId();
  await registerPg(id, folder);
  const a = startWorker(t, 'A');
  await a.ready;
  await enqueueIndexing(team.utils, team.pgStores.repos, id);
  const deadline = Date.now() + 240_000;
  for (;;) {
    const r = (await team.pgStores.repos.get(id))!;
    if (r.state === 'indexing' && r.filesDone > 0 && r.filesDone < r.filesTotal * 0.6) break;
    assert.ok(r.state !== 'ready' && Date.now() < deadline, `caught mid-run (${r.state} ${r.filesDone}/${r.filesTotal})`);
    await sleep(20);
  }
  const stopAt = Date.now();
  a.child.kill('SIGTERM');
  assert.equal(await a.exited, 0, a.stderr());
  assert.ok(Date.now() - stopAt < 20_000, `stopped within 20 s (${Date.now() - stopAt} ms)`);
  const after = (await team.pgStores.repos.get(id))!;
  assert.equal(after.state, 'queued', 'aborted, to be retried');
  const jobs = await team.db.query('SELECT locked_by, attempts FROM graphile_worker.jobs');
  assert.ok(jobs.rows.length === 1 && jobs.rows[0]!.locked_by === null, `released, not locked: ${JSON.stringify(jobs.rows)}`);
  const ids = /index worker ready \(([^)]*)\)/.exec(a.stderr())![1]!.split(', ');
  assert.equal((await team.db.query('SELECT 1 FROM loupe_worker_heartbeats WHERE worker_id = ANY($1::text[])', [ids])).rows.length, 0, 'its heartbeats removed');

  // The retry waits out graphile-worker's backoff (exp(attempts) s), then resumes.
  const b = startWorker(t, 'B');
  await b.ready;
  await waitState(id, 'ready', 400_000);
  const done = (await team.pgStores.repos.get(id))!;
  assert.equal(done.filesDone, done.filesTotal);
  assert.equal(await team.pgStores.files.count(id), done.filesTotal - (await team.pgStores.files.skipped(id)).size);
  b.child.kill('SIGTERM');
  assert.equal(await b.exited, 0);
});

