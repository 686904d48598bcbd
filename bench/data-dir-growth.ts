/**
 * How much the data directory grows under cheap polling: N × `GET /v2/repos?limit=5` (a paid
 * listing) against two builds of the CLI on the same fixture, one after the other, each on a data dir
 * of its own. The data dir (every file: loupe.db, accounts.db and their WAL files) is measured after
 * indexing and a clean stop, and again after the N calls and a clean stop; the growth per call is extrapolated to 500k.
 *
 *   node --import tsx bench/data-dir-growth.ts --baseline /path/to/other/checkout [--requests 50000]
 *
 * Build both first (`npm run build` in each). Prints a Markdown table.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startCli, untilIndexed, type CliServer } from './cli-server';

const ROOT = path.join(__dirname, '..');
const KEY = '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';
const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    candidate: { type: 'string', default: ROOT },
    requests: { type: 'string', default: '50000' },
  },
});
if (!values.baseline) throw new Error('--baseline <checkout with dist/cli.js> is required');
const requests = Number(values.requests);

interface Server extends CliServer { dataDir: string }

function workspace(): { folder: string; dataDir: string } {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-growth-'));
  const folder = path.join(work, 'repo');
  fs.cpSync(path.join(ROOT, 'test', 'fixtures', 'ts-paths'), folder, { recursive: true });
  return { folder, dataDir: path.join(work, 'data') };
}

async function start(checkout: string, { folder, dataDir }: { folder: string; dataDir: string }): Promise<Server> {
  const server = await startCli(checkout, folder, dataDir, KEY);
  await untilIndexed(server, KEY, checkout);
  return { ...server, dataDir };
}

const dirBytes = (dir: string) => fs.readdirSync(dir).reduce((n, f) => {
  const st = fs.statSync(path.join(dir, f));
  return n + (st.isFile() ? st.size : 0);
}, 0);

/** `amount` requests, 10 connections, autocannon in its own process; returns the 2xx count and the seconds taken. */
function load(url: string, amount: number): Promise<{ ok: number; seconds: number }> {
  const bin = path.join(ROOT, 'node_modules', 'autocannon', 'autocannon.js');
  const args = [bin, '-j', '-c', '10', '-a', String(amount), '-H', `x-api-key=${KEY}`, url];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}`));
      const r = JSON.parse(out) as { '2xx': number; duration: number };
      resolve({ ok: r['2xx'], seconds: r.duration });
    });
  });
}

const stop = (s: Server) => new Promise<void>((resolve) => { s.child.once('exit', () => resolve()); s.child.kill('SIGTERM'); });

async function main(): Promise<void> {
  const rows: string[] = [];
  const growth: Record<string, number> = {};
  for (const [side, checkout] of [['baseline', values.baseline!], ['candidate', values.candidate!]] as const) {
    // Indexed, then stopped cleanly (the WAL checkpointed away), so both sizes are of settled files.
    const ws = workspace();
    await stop(await start(checkout, ws));
    const before = dirBytes(ws.dataDir);
    const server = await start(checkout, ws);
    let result: { ok: number; seconds: number };
    try {
      result = await load(`${server.url}/v2/repos?limit=5`, requests);
    } finally {
      await stop(server);
    }
    const after = dirBytes(server.dataDir);
    const perCall = (after - before) / result.ok;
    growth[side] = perCall;
    rows.push(`| ${side} | ${result.ok} | ${(result.ok / result.seconds).toFixed(0)} | ${(before / 1e6).toFixed(2)} | ${(after / 1e6).toFixed(2)} | ${perCall.toFixed(1)} | ${((perCall * 500_000) / 1e6).toFixed(1)} |`);
  }
  const loadAvg = os.loadavg().map((x) => x.toFixed(1)).join(' / ');
  process.stdout.write(`${requests} × GET /v2/repos?limit=5 per side (10 connections), data dir measured after indexing and a clean stop, and after the calls and a clean stop; ` +
    `${os.cpus().length} cores, load average ${loadAvg} (1/5/15 min) at the end.\n\n` +
    `| build | 2xx | req/s | data dir before (MB) | after (MB) | bytes per call | extrapolated to 500k calls (MB) |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}\n\n` +
    `candidate / baseline growth per call: ${(growth.candidate / growth.baseline).toFixed(4)}\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
