/**
 * `npm run test:load`: bounded load and soak tests against the real engine and sidecar in a child
 * process, over HTTP on 127.0.0.1 only. Each scenario stops by itself and fails (exit 1) when a
 * promise of issue 8 is broken. With --write the results replace the load section of
 * docs/benchmarks.md.
 *
 *   mixed    while phaser ×4 is indexed, N clients (one user each) run a mix of repos, files, file
 *            docs, radius, history, keys, status and search for D seconds: zero 5xx, every charge
 *            equal to the route's cost (none for failures), one history row per recording call
 *   streams  S research streams at once (built-in model): each completes or gets 429; none hangs;
 *            the ledger equals the credits the `done` events report
 *   soak     M minutes of steady mixed load; RSS of the server sampled, start and end reported
 *
 *   node --import tsx bench/load/run.ts [--clients 20] [--seconds 60] [--streams 200] [--soak-minutes 10]
 *                                      [--only mixed,streams,soak] [--write]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import { corpus } from '../corpora';

const { values: opts } = parseArgs({
  options: {
    clients: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '60' },
    streams: { type: 'string', default: '200' },
    'soak-minutes': { type: 'string', default: '10' },
    corpus: { type: 'string', default: 'phaser-x4' },
    only: { type: 'string', default: 'mixed,streams,soak' },
    write: { type: 'boolean', default: false },
  },
});
const CLIENTS = Number(opts.clients);
const SECONDS = Number(opts.seconds);
const STREAMS = Number(opts.streams);
const SOAK_MINUTES = Number(opts['soak-minutes']);
const ONLY = new Set(opts.only!.split(','));
const ROOT = path.join(__dirname, '..', '..');

const agent = new Agent({ connections: 256, pipelining: 1, keepAliveTimeout: 10_000, headersTimeout: 120_000, bodyTimeout: 120_000 });
const failures: string[] = [];
const check = (ok: boolean, message: string) => { if (!ok) failures.push(message); };

// ---------- the server ----------

interface Server { child: ChildProcess; url: string; ownerKey: string; dataDir: string; folder: string; stderr: () => string }

async function startServer(folder: string): Promise<Server> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-load-'));
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'server.ts'), dataDir, folder], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => { err += d; if (err.length > 200_000) err = err.slice(-100_000); });
  const ready = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${err}`)), 60_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const line = /^READY (\S+) (\S+)$/m.exec(out);
      if (line) { clearTimeout(timer); resolve(`${line[1]} ${line[2]}`); }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited with ${code}:\n${err}`)); });
  });
  const [url, ownerKey] = ready.split(' ');
  if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(url)) throw new Error(`refusing to load anything but 127.0.0.1: ${url}`);
  return { child, url, ownerKey, dataDir, folder, stderr: () => err };
}

async function stopServer(server: Server): Promise<void> {
  const exited = new Promise((r) => server.child.once('exit', r));
  server.child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
  if (server.child.exitCode === null) server.child.kill('SIGKILL');
}

const rssMb = (pid: number): number => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
};

// ---------- HTTP ----------

interface Answer { status: number; body: any; text: string; ms: number }

async function call(server: Server, method: string, p: string, key: string | null, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const started = performance.now();
  const res = await request(`${server.url}${p}`, {
    method: method as never, dispatcher: agent,
    headers: { ...(key ? { 'x-api-key': key } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.body.text();
  const ms = performance.now() - started;
  let parsed: any = null;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.statusCode, body: parsed, text, ms };
}

// ---------- clients ----------

interface User { email: string; key: string; userId: string; repoId: string; files: string[]; creditsUsed: number }

async function signUp(server: Server, n: number, folder: string): Promise<User> {
  const email = `load${n}-${process.pid}@example.test`;
  const res = await call(server, 'POST', '/v2/auth/authenticate', null, { auth_mode: 'password', email, should_create_user: true }, { 'x-service-auth-password': `load-password-${n}-long` });
  if (res.status !== 200 || !res.body?.data?.api_key?.key) throw new Error(`sign-up failed: ${res.status} ${res.text}`);
  const key = res.body.data.api_key.key;
  const indexed = await call(server, 'POST', '/v2/repos/index/new', key, { url: folder });
  if (indexed.status !== 200) throw new Error(`index/new failed: ${indexed.status} ${indexed.text}`);
  return { email, key, userId: res.body.data.user_id, repoId: indexed.body.data.repo.repo_id, files: [], creditsUsed: indexed.body.meta?.credits_used ?? 0 };
}

interface Kind {
  name: string;
  weight: number;
  cost: number;
  /** The history operation each success records, if any. */
  history?: string;
  run(server: Server, user: User, rnd: () => number): Promise<Answer>;
}

const WORDS = ['sprite', 'texture', 'camera', 'tween', 'physics', 'input', 'scene', 'sound', 'render', 'geom', 'timer', 'loader'];

function kinds(hasSearch: boolean): Kind[] {
  const pick = <T>(xs: T[], rnd: () => number) => xs[Math.floor(rnd() * xs.length)];
  const list: Kind[] = [
    { name: 'GET /v2/repos', weight: 1, cost: 1, run: (s, u) => call(s, 'GET', '/v2/repos?limit=10', u.key) },
    { name: 'POST /v2/repos/status', weight: 1, cost: 1, run: (s, u) => call(s, 'POST', '/v2/repos/status', u.key, { url: s.folder }) },
    { name: 'GET /v2/files/:repo', weight: 2, cost: 1, history: 'files.list', run: (s, u, r) => call(s, 'GET', `/v2/files/${u.repoId}?limit=20&search=${pick(WORDS, r)}`, u.key) },
    { name: 'GET /v2/files/:repo/:file', weight: 3, cost: 2, run: (s, u, r) => call(s, 'GET', `/v2/files/${u.repoId}/${encodeURIComponent(pick(u.files, r) ?? 'none.js')}?fields=basic`, u.key) },
    { name: 'POST /v2/repos/:repo/radius', weight: 2, cost: 3, run: (s, u, r) => call(s, 'POST', `/v2/repos/${u.repoId}/radius`, u.key, { file: pick(u.files, r) ?? 'none.js', limit: 20 }) },
    { name: 'GET /v2/history', weight: 2, cost: 0, run: (s, u) => call(s, 'GET', '/v2/history?limit=10', u.key) },
    { name: 'GET /v2/keys', weight: 1, cost: 0, run: (s, u) => call(s, 'GET', '/v2/keys', u.key) },
    { name: 'POST /v2/agent/credentials', weight: 1, cost: 0, run: (s, u) => call(s, 'POST', '/v2/agent/credentials', u.key, {}) },
    {
      name: 'POST /v2/keys/regenerate', weight: 0.2, cost: 0,
      run: async (s, u) => {
        const res = await call(s, 'POST', '/v2/keys/regenerate', u.key, {});
        if (res.status === 200) u.key = res.body.data.key; // the old key stops working: carry on with the new one
        return res;
      },
    },
  ];
  if (hasSearch) {
    list.push({ name: 'POST /v2/search', weight: 4, cost: 5, history: 'search', run: (s, u, r) => call(s, 'POST', '/v2/search', u.key, { query: `${pick(WORDS, r)} ${pick(WORDS, r)}`, repo_ids: [u.repoId] }) });
  }
  return list;
}

interface Tally { latencies: Map<string, number[]>; statuses: Map<string, Map<number, number>>; successes: Map<string, Map<string, number>>; expectedCredits: Map<string, number>; errors: string[] }

const newTally = (): Tally => ({ latencies: new Map(), statuses: new Map(), successes: new Map(), expectedCredits: new Map(), errors: [] });

function mulberry32(seed: number) {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One client: one user, one request at a time, until the deadline. */
async function clientLoop(server: Server, user: User, all: Kind[], deadline: number, tally: Tally, seed: number): Promise<void> {
  const rnd = mulberry32(seed);
  const total = all.reduce((s, k) => s + k.weight, 0);
  while (Date.now() < deadline) {
    if (!user.files.length || rnd() < 0.02) {
      const res = await call(server, 'GET', `/v2/files/${user.repoId}?limit=100&offset=${Math.floor(rnd() * 500)}`, user.key);
      if (res.status === 200) {
        user.files = res.body.data.map((f: { file_path: string }) => f.file_path);
        record(tally, user, { name: 'GET /v2/files/:repo', weight: 0, cost: 1, history: 'files.list', run: async () => res }, res);
      } else record(tally, user, { name: 'GET /v2/files/:repo', weight: 0, cost: 1, history: 'files.list', run: async () => res }, res);
      continue;
    }
    let x = rnd() * total;
    const kind = all.find((k) => (x -= k.weight) < 0) ?? all[0];
    let res: Answer;
    try {
      res = await kind.run(server, user, rnd);
    } catch (error) {
      tally.errors.push(`${kind.name}: ${(error as Error).message}`);
      continue;
    }
    record(tally, user, kind, res);
  }
}

function record(tally: Tally, user: User, kind: Kind, res: Answer): void {
  const lat = tally.latencies.get(kind.name) ?? [];
  lat.push(res.ms);
  tally.latencies.set(kind.name, lat);
  const st = tally.statuses.get(kind.name) ?? new Map<number, number>();
  st.set(res.status, (st.get(res.status) ?? 0) + 1);
  tally.statuses.set(kind.name, st);
  if (res.status >= 500) tally.errors.push(`${kind.name} → ${res.status}: ${res.text.slice(0, 200)}`);
  if (res.status !== 200) return;
  const byKind = tally.successes.get(user.userId) ?? new Map<string, number>();
  byKind.set(kind.name, (byKind.get(kind.name) ?? 0) + 1);
  tally.successes.set(user.userId, byKind);
  // Each user runs one call at a time, so the change in credits_used is exactly this call's charge.
  const used = res.body?.meta?.credits_used;
  const processing = res.body?.meta?.processing === true;
  const expected = processing ? 0 : kind.cost;
  tally.expectedCredits.set(user.userId, (tally.expectedCredits.get(user.userId) ?? 0) + expected);
  if (typeof used === 'number') {
    const delta = used - user.creditsUsed;
    if (delta !== expected) tally.errors.push(`${kind.name}: charged ${delta}, expected ${expected}${processing ? ' (processing)' : ''}`);
    user.creditsUsed = used;
  }
}

const percentile = (xs: number[], p: number) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

function routeTable(tally: Tally, seconds: number): string {
  const rows = [...tally.latencies.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, xs]) => {
    const st = [...(tally.statuses.get(name) ?? new Map()).entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ');
    return `| \`${name}\` | ${xs.length} | ${(xs.length / seconds).toFixed(1)} | ${percentile(xs, 50).toFixed(1)} | ${percentile(xs, 95).toFixed(1)} | ${percentile(xs, 99).toFixed(1)} | ${st} |`;
  });
  return ['| route | requests | req/s | p50 ms | p95 ms | p99 ms | statuses |', '|---|---:|---:|---:|---:|---:|---|', ...rows].join('\n');
}

/** The ledger and history of each user, read from the server's database file (read-only, WAL). */
function accountState(dataDir: string, userIds: string[]) {
  const db = new Database(path.join(dataDir, 'loupe.db'), { readonly: true });
  try {
    const ledger = new Map<string, number>();
    const history = new Map<string, Map<string, number>>();
    for (const id of userIds) {
      ledger.set(id, (db.prepare('SELECT coalesce(sum(credits), 0) AS n FROM credit_ledger WHERE user_id = ?').get(id) as { n: number }).n);
      const rows = db.prepare('SELECT operation, count(*) AS n, count(DISTINCT id) AS d FROM history WHERE user_id = ? GROUP BY operation').all(id) as { operation: string; n: number; d: number }[];
      history.set(id, new Map(rows.map((r) => [r.operation, r.n])));
    }
    return { ledger, history };
  } finally {
    db.close();
  }
}

// ---------- scenarios ----------

async function mixedScenario(server: Server, users: User[], seconds: number, hasSearch: boolean) {
  const all = kinds(hasSearch);
  const tally = newTally();
  const rss: number[] = [rssMb(server.child.pid!)];
  const sampler = setInterval(() => { try { rss.push(rssMb(server.child.pid!)); } catch { /* exited */ } }, 5000);
  const before = accountState(server.dataDir, users.map((u) => u.userId));
  const baseHistory = new Map(users.map((u) => [u.userId, new Map(before.history.get(u.userId))]));
  const baseLedger = new Map(before.ledger);
  const deadline = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(users.map((u, i) => clientLoop(server, u, all, deadline, tally, 1000 + i)));
  const elapsed = (Date.now() - started) / 1000;
  clearInterval(sampler);
  rss.push(rssMb(server.child.pid!));

  const after = accountState(server.dataDir, users.map((u) => u.userId));
  const fiveXX = [...tally.statuses.values()].reduce((s, m) => s + [...m.entries()].filter(([st]) => st >= 500).reduce((a, [, n]) => a + n, 0), 0);
  check(fiveXX === 0, `mixed: ${fiveXX} responses were 5xx: ${tally.errors.filter((e) => / → 5/.test(e)).slice(0, 5).join('; ')}`);
  check(tally.errors.length === 0, `mixed: ${tally.errors.length} problems: ${tally.errors.slice(0, 8).join('; ')}`);
  let ledgerMismatch = 0;
  let historyMismatch = 0;
  for (const u of users) {
    const charged = (after.ledger.get(u.userId) ?? 0) - (baseLedger.get(u.userId) ?? 0);
    const expected = tally.expectedCredits.get(u.userId) ?? 0;
    if (charged !== expected) { ledgerMismatch++; failures.push(`mixed: user ${u.email} ledger +${charged}, sum of charged operations ${expected}`); }
    const ok = tally.successes.get(u.userId) ?? new Map<string, number>();
    for (const kind of all.filter((k) => k.history)) {
      const ops = [...(after.history.get(u.userId) ?? new Map()).entries()].filter(([op]) => op === kind.history || op.startsWith(`${kind.history}.`));
      const rows = ops.reduce((s, [, n]) => s + n, 0)
        - [...(baseHistory.get(u.userId) ?? new Map()).entries()].filter(([op]) => op === kind.history || op.startsWith(`${kind.history}.`)).reduce((s, [, n]) => s + n, 0);
      const successes = ok.get(kind.name) ?? 0;
      if (rows !== successes) { historyMismatch++; failures.push(`mixed: user ${u.email} ${kind.history}: ${rows} history rows for ${successes} successful calls`); }
    }
  }
  const total = [...tally.latencies.values()].reduce((s, xs) => s + xs.length, 0);
  return { tally, elapsed, total, fiveXX, ledgerMismatch, historyMismatch, rss, hasSearch };
}

async function streamsScenario(server: Server, users: User[], streams: number) {
  const perUser = Math.ceil(streams / users.length);
  const before = accountState(server.dataDir, users.map((u) => u.userId));
  const outcomes = { completed: 0, refused: 0, failed: 0, hung: 0 };
  const reported = new Map<string, number>();
  const latencies: number[] = [];
  const problems: string[] = [];
  const one = async (user: User, i: number) => {
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 120_000);
    try {
      const res = await request(`${server.url}/v2/search`, {
        method: 'POST', dispatcher: agent, signal: controller.signal,
        headers: { 'x-api-key': user.key, 'content-type': 'application/json', accept: 'application/x-ndjson' },
        body: JSON.stringify({ query: `how does the ${WORDS[i % WORDS.length]} system work`, chat: true, repo_ids: [user.repoId] }),
      });
      if (res.statusCode === 429) { outcomes.refused++; await res.body.text(); return; }
      const text = await res.body.text();
      if (res.statusCode !== 200) { outcomes.failed++; problems.push(`${res.statusCode} ${text.slice(0, 200)}`); return; }
      const events = text.trim().split('\n').map((l) => JSON.parse(l));
      const done = events.find((e) => e.type === 'done');
      if (!done) { outcomes.failed++; problems.push(`no done event: ${text.slice(-200)}`); return; }
      outcomes.completed++;
      latencies.push(performance.now() - started);
      reported.set(user.userId, (reported.get(user.userId) ?? 0) + (done.credits_used ?? 0));
    } catch (error) {
      if (controller.signal.aborted) outcomes.hung++; else { outcomes.failed++; problems.push((error as Error).message); }
    } finally {
      clearTimeout(timer);
    }
  };
  const started = Date.now();
  await Promise.all(users.flatMap((u) => Array.from({ length: perUser }, (_, i) => one(u, i))).slice(0, streams));
  const elapsed = (Date.now() - started) / 1000;
  const after = accountState(server.dataDir, users.map((u) => u.userId));
  let ledgerMismatch = 0;
  for (const u of users) {
    const charged = (after.ledger.get(u.userId) ?? 0) - (before.ledger.get(u.userId) ?? 0);
    if (charged !== (reported.get(u.userId) ?? 0)) { ledgerMismatch++; failures.push(`streams: user ${u.email} ledger +${charged}, done events report ${reported.get(u.userId) ?? 0}`); }
  }
  check(outcomes.hung === 0, `streams: ${outcomes.hung} streams hung`);
  check(outcomes.failed === 0, `streams: ${outcomes.failed} failed: ${problems.slice(0, 5).join('; ')}`);
  check(outcomes.completed > 0, 'streams: none completed');
  return { outcomes, elapsed, ledgerMismatch, p50: percentile(latencies, 50), p95: percentile(latencies, 95) };
}

async function soakScenario(server: Server, users: User[], minutes: number, hasSearch: boolean) {
  const all = kinds(hasSearch).filter((k) => k.name !== 'POST /v2/keys/regenerate');
  const tally = newTally();
  const samples: { t: number; rss: number }[] = [];
  const started = Date.now();
  const sampler = setInterval(() => {
    try {
      samples.push({ t: (Date.now() - started) / 1000, rss: rssMb(server.child.pid!) });
      if (samples.length % 6 === 0) process.stderr.write(`soak: ${samples[samples.length - 1].t.toFixed(0)} s, RSS ${samples[samples.length - 1].rss} MB\n`);
    } catch { /* exited */ }
  }, 10_000);
  await Promise.all(users.map((u, i) => clientLoop(server, u, all, started + minutes * 60_000, tally, 5000 + i)));
  clearInterval(sampler);
  samples.push({ t: (Date.now() - started) / 1000, rss: rssMb(server.child.pid!) });
  // The first minute warms caches (statement cache, import graph, JIT); flat means no growth after it.
  const warm = samples.find((s) => s.t >= 60) ?? samples[0];
  const end = samples[samples.length - 1];
  const growth = end.rss - warm.rss;
  const fiveXX = [...tally.statuses.values()].reduce((s, m) => s + [...m.entries()].filter(([st]) => st >= 500).reduce((a, [, n]) => a + n, 0), 0);
  check(fiveXX === 0, `soak: ${fiveXX} responses were 5xx`);
  check(growth <= Math.max(64, warm.rss * 0.25), `soak: RSS grew from ${warm.rss} MB to ${end.rss} MB after warm-up`);
  const total = [...tally.latencies.values()].reduce((s, xs) => s + xs.length, 0);
  return { samples, warm, end, growth, total, fiveXX, p95: percentile([...tally.latencies.values()].flat(), 95) };
}

// ---------- main ----------

async function main(): Promise<void> {
  const folder = corpus(opts.corpus!);
  const server = await startServer(folder);
  const report: string[] = [];
  const startedAt = new Date().toISOString();
  try {
    const rssStart = rssMb(server.child.pid!);
    const openapi = await call(server, 'GET', '/openapi.json', null);
    const hasSearch = Boolean(openapi.body?.paths?.['/v2/search']?.post);
    const users: User[] = [];
    for (let i = 0; i < CLIENTS; i++) users.push(await signUp(server, i, folder));
    process.stderr.write(`${users.length} users signed up; search ${hasSearch ? 'available' : 'not available yet'}\n`);

    if (ONLY.has('mixed')) {
      const indexingAtStart = (await call(server, 'POST', '/v2/repos/status', server.ownerKey, { url: folder })).body?.data;
      process.stderr.write(`mixed: ${CLIENTS} clients for ${SECONDS} s…\n`);
      const mixed = await mixedScenario(server, users, SECONDS, hasSearch);
      process.stderr.write(`mixed: ${mixed.total} requests, ${mixed.fiveXX} × 5xx\n`);
      const indexingAtEnd = (await call(server, 'POST', '/v2/repos/status', server.ownerKey, { url: folder })).body?.data;
      report.push(`### Mixed load while indexing (${CLIENTS} clients, ${SECONDS} s)

Corpus \`${opts.corpus}\` was being indexed throughout: at the start ${indexingAtStart?.files_indexed ?? '?'}/${indexingAtStart?.files_total ?? '?'} files,
at the end ${indexingAtEnd?.files_indexed ?? '?'}/${indexingAtEnd?.files_total ?? '?'} (state \`${indexingAtEnd?.state ?? '?'}\`). ${mixed.total} requests in ${mixed.elapsed.toFixed(0)} s
(${(mixed.total / mixed.elapsed).toFixed(0)} req/s); **${mixed.fiveXX} × 5xx**; ledger mismatches ${mixed.ledgerMismatch}; history mismatches ${mixed.historyMismatch}
(each user's ledger equals the sum of the documented costs of its successful calls; one history row per recording call).
Server RSS ${mixed.rss[0]} MB → ${mixed.rss[mixed.rss.length - 1]} MB (peak ${Math.max(...mixed.rss)} MB).${hasSearch ? '' : ' `POST /v2/search` was not available when this ran.'}

${routeTable(mixed.tally, mixed.elapsed)}
`);
    }
    if (ONLY.has('streams') && hasSearch) {
      process.stderr.write(`streams: ${STREAMS} at once…\n`);
      const s = await streamsScenario(server, users, STREAMS);
      process.stderr.write(`streams: ${JSON.stringify(s.outcomes)}\n`);
      report.push(`### ${STREAMS} concurrent research streams (built-in model, ${users.length} keys)

Completed ${s.outcomes.completed}, refused with 429 ${s.outcomes.refused}, failed ${s.outcomes.failed}, **hung ${s.outcomes.hung}**, in ${s.elapsed.toFixed(1)} s;
completed streams p50 ${s.p50.toFixed(0)} ms, p95 ${s.p95.toFixed(0)} ms. Ledger equals the credits reported by \`done\` events for every user (mismatches: ${s.ledgerMismatch}).
`);
    } else if (ONLY.has('streams')) {
      report.push('### Research streams\n\nNot run: `POST /v2/search` was not available when this ran.\n');
    }
    if (ONLY.has('soak')) {
      const soakUsers = users.slice(0, Math.max(1, Math.floor(CLIENTS / 2)));
      process.stderr.write(`soak: ${SOAK_MINUTES} min…\n`);
      const soak = await soakScenario(server, soakUsers, SOAK_MINUTES, hasSearch);
      report.push(`### Soak (${SOAK_MINUTES} min, ${soakUsers.length} clients)

${soak.total} requests, ${soak.fiveXX} × 5xx, p95 ${soak.p95.toFixed(1)} ms. Server RSS after the first minute ${soak.warm.rss} MB, at the end ${soak.end.rss} MB
(growth ${soak.growth} MB; the process started at ${rssStart} MB). Samples (s: MB): ${soak.samples.filter((_, i) => i % 6 === 0).map((x) => `${x.t.toFixed(0)}: ${x.rss}`).join(', ')}.
`);
    }
  } finally {
    await stopServer(server);
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  }
  const body = `<!-- bench:load:start -->
## Load and soak (\`npm run test:load\`)

\`${['npm run test:load --', ...process.argv.slice(2)].join(' ')}\` — ${startedAt}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), Node ${process.version};
server and clients on one machine (shared with other work), traffic only to 127.0.0.1.

${report.join('\n')}
${failures.length ? `**Failed checks:**\n\n${failures.map((f) => `- ${f}`).join('\n')}\n` : 'All checks passed.\n'}<!-- bench:load:end -->`;
  process.stdout.write(`${body}\n`);
  if (opts.write) {
    const doc = path.join(ROOT, 'docs', 'benchmarks.md');
    const current = fs.existsSync(doc) ? fs.readFileSync(doc, 'utf8') : '# Benchmarks\n';
    const marker = /<!-- bench:load:start -->[\s\S]*<!-- bench:load:end -->/;
    fs.writeFileSync(doc, marker.test(current) ? current.replace(marker, body) : `${current.trimEnd()}\n\n${body}\n`);
  }
  await agent.close();
  if (failures.length) {
    process.stderr.write(`load test FAILED:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
    process.exit(1);
  }
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
