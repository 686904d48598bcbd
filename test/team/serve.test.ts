import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { tempDir } from '../helpers/engine';
import { copyOf, debianPackage } from '../helpers/real-code';
import { startPostgres, type PgCluster } from '../helpers/postgres';

/**
 * The team server as real processes on one real PostgreSQL 15: two API nodes (`npm run serve`, from
 * source) and one index worker (`npm run worker`). A folder of real code (gin 1.8.1 from Debian)
 * registered through node A is indexed by the worker (the API nodes index nothing), node B sees it
 * ready, finds it by keyword and reads a file's record (GET /v2/files/:repo/:file), and a paid search's credits are the same seen
 * from either node (one account side on PostgreSQL).
 */
const ROOT = path.join(__dirname, '..', '..');

/**
 * GitHub cannot be reached here: git's own `url.<base>.insteadOf`, in the environment the API nodes and the
 * worker inherit, rewrites https://github.com/ to a folder of real local repositories (as test/http/index-git.test.ts).
 */
const HUB = tempDir('loupe-hub-');
const WIDGET = path.join(HUB, 'acme', 'widget.git');
const gitIn = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd: WIDGET, stdio: 'pipe' });
fs.mkdirSync(path.join(WIDGET, 'src'), { recursive: true });
gitIn('init', '-q', '-b', 'main');
fs.writeFileSync(path.join(WIDGET, 'src', 'widget.ts'), "import { gear } from './gear';\nexport const widget = () => gear() + 1;\n");
fs.writeFileSync(path.join(WIDGET, 'src', 'gear.ts'), 'export function gear(): number {\n  return 41;\n}\n');
gitIn('add', '.');
gitIn('commit', '-q', '-m', 'first');
Object.assign(process.env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: `url.file://${HUB}/.insteadOf`, GIT_CONFIG_VALUE_0: 'https://github.com/' });
const KEY = randomUUID();
let cluster: PgCluster;
let url: string;
let folder: string;
const children = new Set<ChildProcess>();

interface Proc { child: ChildProcess; out: () => string; err: () => string }

function start(script: string, args: string[]): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server', script), ...args], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOUPE_API_KEY: KEY, LOUPE_HOME: tempDir('loupe-serve-home-'), LOUPE_LOG: 'info' },
  });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { err += d; });
  return { child, out: () => out, err: () => err };
}

async function until<T>(what: string, p: Proc, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (p.child.exitCode !== null) throw new Error(`${what}: the process exited: ${p.err()}`);
    if (Date.now() > deadline) throw new Error(`${what}: timed out: ${p.err()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function startNode(name: string): Promise<{ base: string; proc: Proc }> {
  const proc = start('serve.ts', ['--database', url, '--port', '0', '--allow', folder, '--data-dir', tempDir(`loupe-serve-${name}-`)]);
  const base = await until(`node ${name}`, proc, () => /Loupe API: (http:\/\/\S+)/.exec(proc.out())?.[1]);
  assert.match(proc.out(), new RegExp(`API key: ${KEY}`));
  return { base, proc };
}

async function call(base: string, method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(base + route, {
    method, headers: { 'x-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

let a: { base: string; proc: Proc };
let b: { base: string; proc: Proc };
let worker: Proc;

before(async () => {
  folder = copyOf(path.join(debianPackage('golang-github-gin-gonic-gin-dev', '1.8.1-1'), 'usr/share/gocode/src/github.com/gin-gonic/gin'));
  cluster = await startPostgres();
  url = await cluster.createDatabase();
  // One node first (it migrates the database), then the second beside it.
  a = await startNode('a');
  b = await startNode('b');
  worker = start('worker.ts', ['--database', url, '--poll-ms', '250', '--work-dir', tempDir('loupe-worker-')]);
  await until('worker', worker, () => (/index worker ready/.test(worker.err()) ? true : undefined));
});

after(async () => {
  const exits = [...children].map((c) => new Promise<void>((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve();
    const timer = setTimeout(() => c.kill('SIGKILL'), 10_000);
    c.once('exit', () => { clearTimeout(timer); resolve(); });
    c.kill('SIGTERM');
  }));
  await Promise.all(exits);
  await cluster?.stop();
});

test('a folder registered on node A is indexed by the worker and served by node B; credits are one account', async () => {
  const registered = await call(a.base, 'POST', '/v2/repos/index/new', { url: folder });
  assert.ok(registered.status === 200 || registered.status === 201, JSON.stringify(registered.body));

  const ready = await until('ready on node B', worker, async () => {
    const s = await call(b.base, 'POST', '/v2/repos/status', { url: folder });
    assert.equal(s.status, 200, JSON.stringify(s.body));
    assert.notEqual(s.body.data.state, 'failed', JSON.stringify(s.body));
    return s.body.data.state === 'ready' ? s.body.data : undefined;
  });
  const repoId: string = ready.repo_id;
  assert.ok(ready.files_total > 50, `gin has its sources: ${JSON.stringify(ready)}`);
  // The worker indexed it (its log line per run); neither API node did.
  assert.match(worker.err(), new RegExp(`index job ${repoId} \\d+-\\d+ \\+\\d+`));
  for (const node of [a, b]) assert.doesNotMatch(node.proc.err(), /indexing .*files|indexed .* added/);

  const search = await call(b.base, 'POST', '/v2/search', { query: 'ServeHTTP', scope: 'code', repo_ids: [repoId] });
  assert.equal(search.status, 200, JSON.stringify(search.body));
  const hits: any[] = search.body.data.results ?? search.body.data;
  assert.ok(Array.isArray(hits) && hits.length > 0, JSON.stringify(search.body).slice(0, 500));
  assert.ok(JSON.stringify(hits).includes('gin.go'), `gin.go among the hits: ${JSON.stringify(hits).slice(0, 500)}`);

  const files = await call(b.base, 'GET', `/v2/files/${repoId}?limit=5&offset=0&search=gin.go`);
  assert.equal(files.status, 200, JSON.stringify(files.body));
  const gin = files.body.data.find((f: any) => f.file_path === 'gin.go');
  assert.ok(gin, JSON.stringify(files.body.data));
  const read = await call(b.base, 'GET', `/v2/files/${repoId}/${gin.file_id ?? gin.id}`);
  assert.equal(read.status, 200, JSON.stringify(read.body));
  assert.equal(read.body.data.file_path, 'gin.go');
  assert.equal(read.body.data.language, 'go');
  const lines = fs.readFileSync(path.join(folder, 'gin.go'), 'utf8').split('\n').length;
  assert.ok(Math.abs(read.body.data.total_lines - lines) <= 1, `${read.body.data.total_lines} lines, the file has ${lines}`);

  // A paid search on A after B's: the credits left went down by its cost on the one account.
  const left = search.body.meta.credits_remaining as number;
  const onA = await call(a.base, 'POST', '/v2/search', { query: 'RouterGroup', scope: 'code', repo_ids: [repoId] });
  assert.equal(onA.status, 200, JSON.stringify(onA.body));
  assert.ok(onA.body.meta.credits_remaining < left, `${onA.body.meta.credits_remaining} < ${left}`);
  const usageA = await call(a.base, 'GET', '/v2/stats/usage');
  const usageB = await call(b.base, 'GET', '/v2/stats/usage');
  assert.equal(usageA.status, 200, JSON.stringify(usageA.body));
  const stable = (body: any) => JSON.stringify({ ...body.data, to: undefined });
  assert.equal(stable(usageA.body), stable(usageB.body));
  assert.match(stable(usageA.body), /search/);
  // The balance B reports is the one A's charge left.
  assert.equal(usageB.body.meta.credits_remaining, onA.body.meta.credits_remaining);
  assert.equal(usageA.body.meta.credits_remaining, onA.body.meta.credits_remaining);
});

test('a GitHub repository registered on node B is cloned by the worker, and an update fetches its new commit', async () => {
  const github = 'https://github.com/acme/widget';
  const registered = await call(b.base, 'POST', '/v2/repos/index/new', { url: `${github}.git` });
  assert.equal(registered.status, 200, JSON.stringify(registered.body));
  assert.deepEqual([registered.body.data.repo.url, registered.body.data.repo.visibility], [github, 'public']);
  const repoId: string = registered.body.data.repo.repo_id;
  const paths = async () => (await call(a.base, 'GET', `/v2/files/${encodeURIComponent(github)}`)).body.data.map((f: { file_path: string }) => f.file_path).sort();
  const indexed = async (want: string[]) => until(`${want.join(', ')} on node A`, worker, async () => {
    const s = await call(a.base, 'POST', '/v2/repos/status', { url: github });
    assert.notEqual(s.body.data.state, 'failed', JSON.stringify(s.body));
    if (s.body.data.state !== 'ready') return undefined;
    const now = await paths();
    return JSON.stringify(now) === JSON.stringify(want) ? now : undefined;
  }, 60_000);
  await indexed(['src/gear.ts', 'src/widget.ts']);
  // The clone is the worker's: under its work dir, never under an API node's data dir.
  assert.match(worker.err(), new RegExp(`index job ${repoId} `));

  fs.writeFileSync(path.join(WIDGET, 'src', 'cog.ts'), 'export function cogwheel(): number {\n  return 7;\n}\n');
  gitIn('add', '.');
  gitIn('commit', '-q', '-m', 'second');
  const head = gitIn('rev-parse', 'HEAD').toString().trim();
  const refresh = await call(a.base, 'POST', '/v2/repos/index/new', { url: github, update: true });
  assert.equal(refresh.status, 200, JSON.stringify(refresh.body));
  assert.equal(refresh.body.data.queued, true);
  await indexed(['src/cog.ts', 'src/gear.ts', 'src/widget.ts']);
  const search = await call(b.base, 'POST', '/v2/search', { query: 'cogwheel', scope: 'code', repo_ids: [repoId] });
  assert.equal(search.status, 200, JSON.stringify(search.body));
  assert.match(JSON.stringify(search.body.data), /src\/cog\.ts/);
  const listed = await call(b.base, 'GET', '/v2/repos?limit=50');
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  assert.equal(listed.body.data.find((r: { repo_id: string }) => r.repo_id === repoId)?.head_commit, head, 'the fetched commit is recorded');
});
