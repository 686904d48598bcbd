/**
 * A team server as real processes, for tests and benchmarks: API nodes (`server/serve.ts`, as
 * `npm run serve` runs it; `accounts` is written to its data dir's accounts.json) and index workers (`server/worker.ts`) on one database of a private
 * PostgreSQL cluster (helpers/postgres.ts). Every process is this one's child; `stop()` ends them
 * (SIGTERM, then SIGKILL after 10 s) and the cluster.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { tempDir } from './engine';
import { startPostgres, type PgCluster } from './postgres';

const ROOT = path.join(__dirname, '..', '..');

export interface TeamProcess {
  child: ChildProcess;
  out(): string;
  err(): string;
  /** Resolves when the process has exited (at once when it already has). */
  exited(): Promise<void>;
}

export interface ApiNode extends TeamProcess {
  base: string;
  dataDir: string;
}

export interface TeamServer {
  cluster: PgCluster;
  url: string;
  /** The owner's key (LOUPE_API_KEY on every node). */
  key: string;
  /** Starts an API node; resolves once it listens. */
  node(name: string, options?: { allow?: string[]; env?: Record<string, string>; accounts?: object }): Promise<ApiNode>;
  /** Starts an index worker; resolves once it takes jobs. */
  worker(options?: { concurrency?: number }): Promise<TeamProcess>;
  /** One request with the owner's key (or `headers`), the body parsed when JSON. */
  call(base: string, method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  stop(): Promise<void>;
}

function spawnProcess(script: string, args: string[], env: Record<string, string>): TeamProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server', script), ...args], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { err += d; });
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, out: () => out, err: () => err, exited: () => exit };
}

export async function until<T>(what: string, p: TeamProcess | null, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (p && p.child.exitCode !== null) throw new Error(`${what}: the process exited: ${p.err().slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`${what}: timed out${p ? `: ${p.err().slice(-2000)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startTeamServer(options: { key?: string } = {}): Promise<TeamServer> {
  const cluster = await startPostgres();
  const url = await cluster.createDatabase();
  const key = options.key ?? randomUUID();
  const children = new Set<TeamProcess>();
  const call: TeamServer['call'] = async (base, method, route, body, headers) => {
    const res = await fetch(base + route, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = JSON.parse(text); } catch { /* not JSON */ }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    cluster, url, key, call,
    async node(name, nodeOptions = {}) {
      const dataDir = tempDir(`loupe-team-${name}-`);
      if (nodeOptions.accounts) fs.writeFileSync(path.join(dataDir, 'accounts.json'), JSON.stringify(nodeOptions.accounts));
      const args = ['--database', url, '--port', '0', '--data-dir', dataDir];
      for (const dir of nodeOptions.allow ?? []) args.push('--allow', dir);
      const proc = spawnProcess('serve.ts', args, { LOUPE_API_KEY: key, LOUPE_HOME: dataDir, LOUPE_LOG: 'info', ...nodeOptions.env });
      children.add(proc);
      const base = await until(`API node ${name}`, proc, () => /Loupe API: (http:\/\/\S+)/.exec(proc.out())?.[1]);
      return { ...proc, base, dataDir };
    },
    async worker(workerOptions = {}) {
      const proc = spawnProcess('worker.ts', ['--database', url, '--poll-ms', '250', '--work-dir', tempDir('loupe-team-worker-'),
        ...(workerOptions.concurrency ? ['--concurrency', String(workerOptions.concurrency)] : [])], { LOUPE_LOG: 'info' });
      children.add(proc);
      await until('worker', proc, () => (/index worker ready/.test(proc.err()) ? true : undefined));
      return proc;
    },
    async stop() {
      await Promise.all([...children].map(async (p) => {
        const c = p.child;
        if (c.exitCode !== null || c.signalCode !== null) return;
        const timer = setTimeout(() => c.kill('SIGKILL'), 10_000);
        c.kill('SIGTERM');
        await p.exited();
        clearTimeout(timer);
      }));
      await cluster.stop();
    },
  };
}

/** Registers a folder through `base` and waits until a worker has indexed it; its repo id. */
export async function indexThroughTeam(team: TeamServer, base: string, folder: string, timeoutMs = 300_000): Promise<string> {
  const registered = await team.call(base, 'POST', '/v2/repos/index/new', { url: folder });
  if (registered.status !== 200 && registered.status !== 201) throw new Error(`index/new: ${registered.status} ${JSON.stringify(registered.body)}`);
  return until('indexed by a worker', null, async () => {
    const s = await team.call(base, 'POST', '/v2/repos/status', { url: folder });
    if (s.status !== 200) throw new Error(`status: ${s.status} ${JSON.stringify(s.body)}`);
    if (s.body.data.state === 'failed') throw new Error(`indexing failed: ${JSON.stringify(s.body.data)}`);
    return s.body.data.state === 'ready' ? (s.body.data.repo_id as string) : undefined;
  }, timeoutMs);
}
