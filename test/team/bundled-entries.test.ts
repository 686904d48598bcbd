import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { FIXTURES, tempDir } from '../helpers/engine';
import { copyOf } from '../helpers/real-code';
import { startPostgres, type PgCluster } from '../helpers/postgres';

/**
 * `npm run serve` and `npm run worker` run the esbuild bundles (dist/serve.js, dist/worker.js), as
 * `npm start` runs dist/cli.js: no TypeScript at run time. Started here as the scripts start them
 * (plain node, no tsx loader) on a private PostgreSQL 15: the worker indexes a folder registered
 * through the API node (its parse processes are dist/parse-worker.js), the node answers a search over
 * it, and both stop on SIGTERM with exit code 0. `npm run build` (npm test runs it) makes dist/.
 */
const ROOT = path.join(__dirname, '..', '..');
const KEY = randomUUID();
let cluster: PgCluster;
const children = new Set<ChildProcess>();

interface Proc { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number | NodeJS.Signals | null> }

function start(bundle: string, args: string[]): Proc {
  const file = path.join(ROOT, 'dist', bundle);
  if (!fs.existsSync(file)) throw new Error(`dist/${bundle} is missing: run \`npm run build\` first (npm test does)`);
  const child = spawn(process.execPath, [file, ...args], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '', LOUPE_API_KEY: KEY, LOUPE_HOME: tempDir('loupe-bundle-home-'), LOUPE_LOG: 'info' },
  });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { err += d; });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  return { child, out: () => out, err: () => err, exited };
}

async function until<T>(what: string, procs: Proc[], probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    for (const p of procs) if (p.child.exitCode !== null) throw new Error(`${what}: a process exited: ${p.err()}`);
    if (Date.now() > deadline) throw new Error(`${what}: timed out: ${procs.map((p) => p.err()).join('\n---\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function call(base: string, method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(base + route, {
    method, headers: { 'x-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

before(async () => { cluster = await startPostgres(); });
after(async () => {
  await Promise.all([...children].map((c) => new Promise<void>((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve();
    const timer = setTimeout(() => c.kill('SIGKILL'), 10_000);
    c.once('exit', () => { clearTimeout(timer); resolve(); });
    c.kill('SIGTERM');
  })));
  await cluster?.stop();
});

test('package.json runs serve and worker from the bundle, as start', () => {
  const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
  assert.equal(scripts.start, 'node esbuild.mjs --if-changed && node dist/cli.js');
  assert.equal(scripts.serve, 'node esbuild.mjs --if-changed && node dist/serve.js');
  assert.equal(scripts.worker, 'node esbuild.mjs --if-changed && node dist/worker.js');
});

test('the bundled API node and index worker index a folder, answer a search over it, and stop on SIGTERM', async () => {
  const url = await cluster.createDatabase();
  const folder = copyOf(path.join(FIXTURES, 'e2e-app'));
  // The node first (it migrates the database), then the worker.
  const node = start('serve.js', ['--database', url, '--port', '0', '--allow', folder, '--data-dir', tempDir('loupe-bundle-node-')]);
  const base = await until('the API node', [node], () => /Loupe API: (http:\/\/\S+)/.exec(node.out())?.[1]);
  const worker = start('worker.js', ['--database', url, '--poll-ms', '250', '--work-dir', tempDir('loupe-bundle-worker-')]);
  await until('the worker', [node, worker], () => (/index worker ready/.test(worker.err()) ? true : undefined));

  const registered = await call(base, 'POST', '/v2/repos/index/new', { url: folder });
  assert.ok(registered.status === 200 || registered.status === 201, JSON.stringify(registered.body));
  const ready = await until('ready', [node, worker], async () => {
    const s = await call(base, 'POST', '/v2/repos/status', { url: folder });
    assert.equal(s.status, 200, JSON.stringify(s.body));
    assert.notEqual(s.body.data.state, 'failed', JSON.stringify(s.body));
    return s.body.data.state === 'ready' ? s.body.data : undefined;
  });
  assert.ok(ready.files_total > 0, JSON.stringify(ready));
  assert.match(worker.err(), new RegExp(`index job ${ready.repo_id} `), 'the bundled worker ran the job');

  const search = await call(base, 'POST', '/v2/search', { query: 'formatPrice', scope: 'code', repo_ids: [ready.repo_id] });
  assert.equal(search.status, 200, JSON.stringify(search.body));
  const hits: any[] = search.body.data.results ?? search.body.data;
  assert.ok(JSON.stringify(hits).includes('src/util/format.ts'), JSON.stringify(search.body).slice(0, 500));

  for (const p of [worker, node]) p.child.kill('SIGTERM');
  const [workerExit, nodeExit] = await Promise.all([worker.exited, node.exited]);
  assert.equal(workerExit, 0, worker.err());
  assert.equal(nodeExit, 0, node.err());
  assert.match(worker.err(), /index worker stopped/);
});
