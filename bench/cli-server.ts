/**
 * A built CLI (`<checkout>/dist/cli.js`) serving one folder on a free port, for the benchmarks that
 * compare two builds side by side (api-overhead, data-dir-growth, live-index).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export interface CliServer { child: ChildProcess; url: string }

/** The owner's key the side-by-side benches start their CLIs with. */
export const BENCH_KEY = '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d';

/** The flags of a side-by-side bench (two builds, one folder), for `parseArgs`; a bench adds its own after them. */
export const SIDE_BY_SIDE = {
  baseline: { type: 'string' },
  candidate: { type: 'string', default: path.join(__dirname, '..') },
  folder: { type: 'string' },
} as const;

/** Starts the CLI and resolves once it prints its API address; the owner's key is `key`. `watch`: the folder's watcher on. */
export async function startCli(checkout: string, folder: string, dataDir: string, key: string, options: { watch?: boolean } = {}): Promise<CliServer> {
  const child = spawn(process.execPath, [path.join(checkout, 'dist', 'cli.js'), folder, '--port', '0', '--data-dir', dataDir, ...(options.watch ? [] : ['--no-watch'])], {
    env: { ...process.env, LOUPE_API_KEY: key }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.resume();
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d) => { out += d; const m = /^Loupe API: (\S+)$/m.exec(out); if (m) resolve(m[1]); });
      child.on('exit', (code) => reject(new Error(`${checkout}: the CLI exited with ${code}`)));
    });
    return { child, url };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/** Polls `GET /v2/repos` until the first repository is ready (60 s at most). */
export async function untilIndexed(server: CliServer, key: string, checkout: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const body = await (await fetch(`${server.url}/v2/repos`, { headers: { 'x-api-key': key } })).json() as { data?: { state: string }[] };
    if (body.data?.[0]?.state === 'ready') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  server.child.kill('SIGKILL');
  throw new Error(`${checkout}: the fixture was not indexed in 60 s`);
}
