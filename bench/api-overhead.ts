/**
 * What the request path costs, side by side: GET /v2/repos?limit=5 (a paid listing: key, reservation,
 * charge, history row, group commit) and POST /v2/search (grep_code, 5 credits) against two builds of
 * the CLI on the same fixture, alternating, so a loaded machine slows both alike. Each server runs
 * from its own checkout's dist/cli.js; autocannon runs in its own process.
 *
 *   node --import tsx bench/api-overhead.ts --baseline /path/to/other/checkout [--runs 3] [--seconds 8]
 *
 * Build both first (`npm run build` in each). Prints a Markdown table: medians and candidate/baseline.
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
    runs: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '8' },
  },
});
if (!values.baseline) throw new Error('--baseline <checkout with dist/cli.js> is required');
const runs = Number(values.runs);
const seconds = Number(values.seconds);

type Server = CliServer;

async function start(checkout: string): Promise<Server> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-overhead-'));
  const folder = path.join(work, 'repo');
  fs.cpSync(path.join(ROOT, 'test', 'fixtures', 'ts-paths'), folder, { recursive: true });
  const server = await startCli(checkout, folder, path.join(work, 'data'), KEY);
  await untilIndexed(server, KEY, checkout);
  return server;
}

/** Requests per second over `seconds`, 10 connections, from autocannon in its own process. */
function load(url: string, method: 'GET' | 'POST', body?: unknown): Promise<number> {
  const bin = path.join(ROOT, 'node_modules', 'autocannon', 'autocannon.js');
  const args = [bin, '-j', '-c', '10', '-d', String(seconds), '-m', method, '-H', `x-api-key=${KEY}`];
  if (body) args.push('-H', 'content-type=application/json', '-b', JSON.stringify(body));
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.on('exit', (code) => (code === 0 ? resolve((JSON.parse(out) as { requests: { average: number } }).requests.average) : reject(new Error(`autocannon exited with ${code}`))));
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const sides = { baseline: values.baseline!, candidate: values.candidate! };
  const servers: Partial<Record<keyof typeof sides, Server>> = {};
  const results: Record<string, number[]> = {};
  const record = (key: string, value: number) => (results[key] ??= []).push(value);
  try {
    for (const side of Object.keys(sides) as (keyof typeof sides)[]) servers[side] = await start(sides[side]);
    for (let run = 0; run < runs; run++) {
      // Alternate which side goes first, so neither always runs on a warmer (or busier) machine.
      const order = (run % 2 ? ['candidate', 'baseline'] : ['baseline', 'candidate']) as (keyof typeof sides)[];
      for (const side of order) {
        const { url } = servers[side]!;
        record(`${side} GET /v2/repos?limit=5`, await load(`${url}/v2/repos?limit=5`, 'GET'));
        record(`${side} POST /v2/search grep_code`, await load(`${url}/v2/search`, 'POST', { query: 'area', scan_mode: 'grep_code', scope: 'code' }));
      }
    }
  } finally {
    for (const s of Object.values(servers)) s?.child.kill('SIGKILL');
  }
  const lines = [`| request | baseline req/s | candidate req/s | candidate / baseline |`, '|---|---|---|---|'];
  for (const request of ['GET /v2/repos?limit=5', 'POST /v2/search grep_code']) {
    const b = median(results[`baseline ${request}`]);
    const c = median(results[`candidate ${request}`]);
    lines.push(`| ${request} | ${Math.round(b)} | ${Math.round(c)} | ${(c / b).toFixed(2)} |`);
  }
  const loadAvg = os.loadavg().map((x) => x.toFixed(1)).join(' / ');
  process.stdout.write(`Medians of ${runs} alternating run(s) of ${seconds} s, 10 connections, autocannon in its own process; ${os.cpus().length} cores, load average ${loadAvg} (1/5/15 min) at the end.\n\n${lines.join('\n')}\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
