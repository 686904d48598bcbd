import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/engine';
import { copyOf, debianPackage } from '../helpers/real-code';
import { startTeamServer, until, type ApiNode, type TeamProcess, type TeamServer } from '../helpers/team-server';

/**
 * The team server as real processes on one real PostgreSQL 15: two API nodes (`npm run serve`, from
 * source) and one index worker (`npm run worker`). A folder of real code (gin 1.8.1 from Debian)
 * registered through node A is indexed by the worker (the API nodes index nothing), node B sees it
 * ready, finds it by keyword and reads a file's record (GET /v2/files/:repo/:file), and a paid search's credits are the same seen
 * from either node (one account side on PostgreSQL).
 */
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
let team: TeamServer;
let folder: string;
let a: ApiNode;
let b: ApiNode;
let worker: TeamProcess;
const call = (base: string, method: string, route: string, body?: unknown) => team.call(base, method, route, body);

before(async () => {
  folder = copyOf(path.join(debianPackage('golang-github-gin-gonic-gin-dev', '1.8.1-1'), 'usr/share/gocode/src/github.com/gin-gonic/gin'));
  // One node first (it migrates the database), then the second beside it.
  team = await startTeamServer();
  a = await team.node('a', { allow: [folder] });
  b = await team.node('b', { allow: [folder] });
  for (const node of [a, b]) assert.match(node.out(), new RegExp(`API key: ${team.key}`));
  worker = await team.worker();
});

after(async () => {
  await team?.stop();
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
  for (const node of [a, b]) assert.doesNotMatch(node.err(), /indexing .*files|indexed .* added/);

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
