/**
 * A private, real PostgreSQL cluster for a test file: Debian's server binaries (package postgresql,
 * installed by .ci/run), `initdb` into a temp folder, the postmaster on a random loopback port.
 *
 * The postmaster is this process's child in its process group (not daemonised by pg_ctl, which
 * calls setsid): the test runner's group kill on a timeout stops it too, and `stop()` or the
 * process's exit stops it otherwise. As root (CI), the cluster runs as the `postgres` user, since
 * PostgreSQL refuses to run as root; `setpriv` execs in place, so the child is the postmaster.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { tempDir } from './engine';

export interface PgCluster {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** A new, empty database on this cluster; its URL. */
  createDatabase(name?: string): Promise<string>;
  stop(): Promise<void>;
}

/** The newest Debian PostgreSQL server binaries, or LOUPE_PG_BIN; null when there is none. */
export function postgresBinDir(): string | null {
  if (process.env.LOUPE_PG_BIN) return process.env.LOUPE_PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0]!, 'bin') : null;
}

const freePort = () => new Promise<number>((resolve, reject) => {
  const server = net.createServer();
  server.once('error', reject);
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as net.AddressInfo;
    server.close(() => resolve(port));
  });
});

const asRoot = () => process.getuid?.() === 0;

/** argv that runs `command` as the cluster's owner: `postgres` when we are root, else ourselves. */
function asOwner(command: string, args: string[]): [string, string[]] {
  return asRoot() ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args]] : [command, args];
}

async function waitReady(url: string, postmaster: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (postmaster.exitCode !== null) throw new Error(`postgres exited with ${postmaster.exitCode}: ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections within 60 s: ${(err as Error).message}`);
    } finally {
      await client.end().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts a private cluster (about 2–4 s); throws with the reason when the machine has no PostgreSQL server. */
export async function startPostgres(): Promise<PgCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries (install Debian package postgresql, or set LOUPE_PG_BIN)');
  const dir = tempDir('loupe-pg-');
  if (asRoot()) execFileSync('chown', ['postgres:postgres', dir]);
  const data = path.join(dir, 'data');
  const [initCmd, initArgs] = asOwner(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
  execFileSync(initCmd, initArgs, { stdio: 'pipe' });

  const port = await freePort();
  const logFile = path.join(dir, 'postgres.log');
  const log = fs.openSync(logFile, 'a');
  if (asRoot()) fs.fchownSync(log, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
  // Durability settings off: a test cluster is thrown away, and fsync on a loaded CI disk is slow.
  const [cmd, args] = asOwner(path.join(bin, 'postgres'), [
    '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1',
    '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200',
  ]);
  const postmaster = spawn(cmd, args, { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const kill = () => { if (postmaster.exitCode === null) postmaster.kill('SIGKILL'); };
  process.on('exit', kill);

  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  try {
    await waitReady(url, postmaster, logFile);
  } catch (err) {
    kill();
    throw err;
  }
  let count = 0;
  return {
    url,
    port,
    async createDatabase(name = `t${process.pid}_${++count}`) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      process.off('exit', kill);
      if (postmaster.exitCode === null) {
        const exited = new Promise((r) => postmaster.once('exit', r));
        postmaster.kill('SIGINT'); // fast shutdown
        const timer = setTimeout(kill, 10_000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
