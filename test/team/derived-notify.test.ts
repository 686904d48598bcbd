import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { copyOf, debianPackage } from '../helpers/real-code';
import { startTeamServer, until as waitFor, type ApiNode, type TeamProcess, type TeamServer } from '../helpers/team-server';

/**
 * The team server's derived indexes and NOTIFY, as real processes on one real PostgreSQL 15: two API
 * nodes (`npm run serve`, no SQLite index of the repository) and one index worker (`npm run worker`)
 * over Flask 2.2.2 (Debian's). The worker builds the corpus model, every chunk's vector and every
 * file's doc on PostgreSQL; the nodes search by those vectors and serve those docs. An edit indexed by
 * the worker is seen by both nodes within 1 s of its commit (the commit's own NOTIFY, heard by this
 * test on a LISTEN connection of its own, marks the commit): keyword search finds the new identifier
 * and the blast radius shows the new importer, which a node answers from its cached import graph
 * while it LISTENs (so it is fresh only because the notification dropped it). The same holds after
 * the nodes' LISTEN connections are killed (they reconnect).
 */
let team: TeamServer;
let folder: string;
let admin: pg.Client;
let a: ApiNode;
let b: ApiNode;
let worker: TeamProcess;
let repoId: string;

/** Flask's first index and its derived indexes take minutes on a loaded machine. */
const until = <T>(what: string, p: TeamProcess, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 180_000) => waitFor(what, p, probe, timeoutMs);
const call = (base: string, method: string, route: string, body?: unknown) => team.call(base, method, route, body);

/** This test's own LISTEN connection: when each notification for the repository arrived. */
const heard: number[] = [];

before(async () => {
  folder = copyOf(path.join(debianPackage('python3-flask', '2.2.2-3'), 'usr/lib/python3/dist-packages/flask'));
  team = await startTeamServer();
  a = await team.node('a', { allow: [folder] });
  b = await team.node('b', { allow: [folder] });
  worker = await team.worker();
  admin = new pg.Client({ connectionString: team.url });
  await admin.connect();
  admin.on('notification', (m) => { if (m.channel === 'loupe_index' && m.payload === repoId) heard.push(Date.now()); });
  await admin.query('LISTEN loupe_index');
});

after(async () => {
  await admin?.end().catch(() => undefined);
  await team?.stop();
});

/** Lines `start..end` (1-based) of a file of the folder, lower-cased, with its path. */
const textOf = (file: string, start: number, end: number) =>
  `${file}\n${fs.readFileSync(path.join(folder, file), 'utf8').split('\n').slice(start - 1, end).join('\n')}`.toLowerCase();

test('the worker builds vectors and docs on PostgreSQL; an API node searches by those vectors and serves those docs', async () => {
  const registered = await call(a.base, 'POST', '/v2/repos/index/new', { url: folder });
  assert.ok(registered.status === 200 || registered.status === 201, JSON.stringify(registered.body));
  const ready = await until('ready on node B', worker, async () => {
    const s = await call(b.base, 'POST', '/v2/repos/status', { url: folder });
    assert.notEqual(s.body.data.state, 'failed', JSON.stringify(s.body));
    return s.body.data.state === 'ready' ? s.body.data : undefined;
  });
  repoId = ready.repo_id;

  // On PostgreSQL: one active corpus model (trained by the worker), a vector (or "nothing to embed") for every chunk, a doc for every file.
  const models = (await admin.query(`SELECT id, provider, name, state FROM embedding_models WHERE state = 'active'`)).rows;
  assert.equal(models.length, 1, JSON.stringify(models));
  assert.deepEqual([models[0].provider, models[0].name], ['corpus', 'lsa']);
  const id = models[0].id as number;
  const counts = (await admin.query(
    `SELECT (SELECT count(*) FROM chunks)::int AS chunks, (SELECT count(*) FROM vec_m${id})::int AS vectors,
            (SELECT count(*) FROM vec_m${id}_empty)::int AS empty, (SELECT count(*) FROM files)::int AS files,
            (SELECT count(*) FROM file_docs d JOIN files f ON f.id = d.file_id AND d.source_hash = f.hash)::int AS docs`)).rows[0];
  assert.ok(counts.chunks > 200, JSON.stringify(counts));
  assert.equal(counts.vectors + counts.empty, counts.chunks, JSON.stringify(counts));
  assert.ok(counts.vectors > counts.chunks * 0.9, JSON.stringify(counts));
  assert.equal(counts.docs, counts.files, JSON.stringify(counts));
  assert.match(worker.err(), /trained the corpus embedding model on \d+ chunks/);
  for (const node of [a, b]) assert.doesNotMatch(node.err(), /trained the corpus embedding model/);

  // Semantic search on node B uses the worker's model, and finds chunks by their vectors alone: hits
  // whose path and text hold none of the query's words (a lexical hit holds one). The words are rare
  // in Flask (a few chunks), so most of the 40 hits can only come from the vectors.
  const words = ['subdomain', 'greenlet', 'shortcut'];
  for (const node of [b, a]) {
    const found = await call(node.base, 'POST', '/v2/search', { query: words.join(' '), scope: 'code', repo_ids: [repoId], limit: 40 });
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.equal(found.body.data.search.embedding?.model, `corpus-lsa-${id}`, JSON.stringify(found.body.data.search));
    const hits: any[] = found.body.data.results;
    const byVector = hits.filter((h) => !words.some((w) => textOf(h.file_path, h.start_line, h.end_line).includes(w)));
    assert.ok(byVector.length >= 5, `hits from the vectors alone: ${byVector.length} of ${hits.map((h) => `${h.file_path}:${h.start_line}`).join(' ')}`);
    assert.ok(hits.slice(0, 3).some((h) => textOf(h.file_path, h.start_line, h.end_line).includes('subdomain')), 'a lexical match leads');
  }

  // A file's doc is ready at the first request on node A: the worker built it (nothing is charged while one is processing).
  const files = await call(a.base, 'GET', `/v2/files/${repoId}?limit=5&offset=0&search=helpers.py`);
  const helpers = files.body.data.find((f: any) => f.file_path === 'helpers.py');
  assert.ok(helpers, JSON.stringify(files.body.data));
  const doc = await call(a.base, 'GET', `/v2/files/${repoId}/${helpers.file_id ?? helpers.id}`);
  assert.equal(doc.status, 200, JSON.stringify(doc.body));
  assert.notEqual(doc.body.meta.processing, true, JSON.stringify(doc.body).slice(0, 500));
  assert.match(JSON.stringify(doc.body.data), /get_root_path|send_file/);
});

/** Edits the folder, has the worker index it, and measures when each node sees it (ms after the commit's NOTIFY). */
async function editSeenWithin(label: string): Promise<number[]> {
  // The previous run (and its last notification, after its derived indexes) is over: the next one heard is this edit's.
  await until('the previous run is over', worker, async () => {
    const s = await call(a.base, 'POST', '/v2/repos/status', { url: folder });
    return s.body.data.state === 'ready' ? true : undefined;
  });
  await new Promise((r) => setTimeout(r, 200));
  const marker = `loupe_probe_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const module = `${marker}.py`;
  fs.writeFileSync(path.join(folder, module), `from .helpers import get_root_path\n\n\ndef ${marker}():\n    return get_root_path(__name__)\n`);
  const from = heard.length;
  const queued = await call(a.base, 'POST', '/v2/repos/index/new', { url: folder, update: true });
  assert.ok(queued.status === 200 || queued.status === 201, JSON.stringify(queued.body));

  const sees = async (base: string): Promise<boolean> => {
    const [found, radius] = await Promise.all([
      call(base, 'POST', '/v2/search', { query: marker, scope: 'code', repo_ids: [repoId] }),
      call(base, 'POST', `/v2/repos/${repoId}/radius`, { file: 'helpers.py', include: ['dependents'], limit: 10000 }),
    ]);
    const inSearch = JSON.stringify(found.body.data?.results ?? []).includes(module);
    const inRadius = JSON.stringify(radius.body.data ?? {}).includes(module);
    return inSearch && inRadius;
  };
  // A probe starts every 40 ms whether or not the previous one answered (a probe takes longer than that on a
  // loaded machine): the first probe that sees the edit tells when it was visible, to within 40 ms.
  const seenAt = await Promise.all([a, b].map((node) => new Promise<number>((resolve, reject) => {
    const deadline = Date.now() + 120_000;
    let seen: number | null = null;
    const inFlight = new Set<Promise<void>>();
    const timer = setInterval(() => {
      if (seen !== null) return;
      if (Date.now() > deadline) {
        clearInterval(timer);
        reject(new Error(`${label}: ${node.base} never saw ${module}: ${worker.err().slice(-2000)}`));
        return;
      }
      if (inFlight.size >= 8) return;
      const t = Date.now();
      const probe = sees(node.base).then((ok) => {
        if (ok && (seen === null || t < seen)) seen = t;
      }, () => undefined).finally(() => {
        inFlight.delete(probe);
        if (seen !== null && ![...inFlight].length) { clearInterval(timer); resolve(seen); }
      });
      inFlight.add(probe);
    }, 40);
  })));
  assert.ok(heard.length > from, 'the commit was announced');
  const commit = heard[from]!;
  const lags = seenAt.map((t) => t - commit);
  for (const lag of lags) assert.ok(lag <= 1000, `${label}: seen ${lags.join(', ')} ms after the worker's commit`);
  return lags;
}

test('an edit indexed by the worker is seen by both API nodes within 1 s of its commit, also after their LISTEN connections were killed', async () => {
  assert.ok(repoId, 'the first test registered the repository');
  // Both nodes hold the import graph (and the vectors) of the repository before the edit.
  for (const node of [a, b]) {
    const r = await call(node.base, 'POST', `/v2/repos/${repoId}/radius`, { file: 'helpers.py', include: ['dependents'] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const listening = async () => (await admin.query(
    `SELECT pid FROM pg_stat_activity WHERE application_name = 'loupe-listen' AND datname = current_database()`)).rows;
  assert.equal((await listening()).length, 2, 'each node holds one LISTEN connection');
  for (const node of [a, b]) assert.match(node.err(), /listening for index changes \(loupe_index\)/);

  const first = await editSeenWithin('first edit');

  // Kill both LISTEN connections: each node drops its caches, reconnects, and hears the next edit.
  const pids = (await listening()).map((r) => r.pid as number);
  await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
  for (const node of [a, b]) await until('reconnected', node, () => (/listening for index changes \(loupe_index\) again/.test(node.err()) ? true : undefined), 30_000);
  assert.equal((await listening()).length, 2, 'both nodes listen again');
  for (const node of [a, b]) {
    const r = await call(node.base, 'POST', `/v2/repos/${repoId}/radius`, { file: 'helpers.py', include: ['dependents'] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const second = await editSeenWithin('after reconnecting');
  process.stderr.write(`seen after the commit (ms): first edit ${first.join(', ')}; after reconnecting ${second.join(', ')}\n`);
  process.stderr.write(`notifications heard at ${heard.join(', ')}\n`);
  process.stderr.write(`${worker.err().split('\n').filter((l) => /index job|trained the corpus|announced/.test(l)).join('\n')}\n`);
});
