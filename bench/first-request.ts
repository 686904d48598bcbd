/**
 * A route's first request, on two builds side by side: each build's CLI starts on a fresh copy of a
 * folder; after `--wait` ms (0: as soon as it prints its address, i.e. at the start of a cold index of
 * that folder) five sequential `GET /v2/repos?limit=5` are timed. The first is the one that pays for
 * whatever the route compiles or loads on first use (issue 17: the largest wait during a cold index).
 *
 *   node --import tsx bench/first-request.ts --baseline <checkout> --folder <dir> [--wait 0] [--runs 5]
 *
 * Build both first (`npm run build` in each). Prints one Markdown table: the first call's latency per
 * run and its median, and the median of the four calls after it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { BENCH_KEY as KEY, SIDE_BY_SIDE, startCli } from './cli-server';

const { values } = parseArgs({
  options: {
    ...SIDE_BY_SIDE,
    wait: { type: 'string', default: '0' },
    runs: { type: 'string', default: '5' },
  },
});
if (!values.baseline || !values.folder) throw new Error('--baseline <checkout> and --folder <dir> are required');

async function once(checkout: string): Promise<number[]> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-first-'));
  fs.cpSync(path.resolve(values.folder!), path.join(work, 'repo'), { recursive: true });
  const server = await startCli(checkout, path.join(work, 'repo'), path.join(work, 'data'), KEY);
  try {
    await new Promise((r) => setTimeout(r, Number(values.wait)));
    const out: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const res = await request(`${server.url}/v2/repos?limit=5`, { headers: { 'x-api-key': KEY } });
      await res.body.json();
      if (res.statusCode !== 200) throw new Error(`${checkout}: GET /v2/repos answered ${res.statusCode}`);
      out.push(performance.now() - t0);
    }
    return out;
  } finally {
    const exited = new Promise((r) => server.child.once('exit', r));
    server.child.kill('SIGTERM');
    const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const sides = { baseline: values.baseline!, candidate: values.candidate! };
  const firsts: Record<string, number[]> = { baseline: [], candidate: [] };
  const rest: Record<string, number[]> = { baseline: [], candidate: [] };
  for (let run = 0; run < Number(values.runs); run++) {
    for (const side of (run % 2 ? ['candidate', 'baseline'] : ['baseline', 'candidate']) as (keyof typeof sides)[]) {
      const calls = await once(sides[side]);
      firsts[side].push(calls[0]);
      rest[side].push(...calls.slice(1));
    }
  }
  const row = (side: string) => `| ${side} | ${firsts[side].map((x) => x.toFixed(0)).join(', ')} | **${median(firsts[side]).toFixed(0)}** | ${median(rest[side]).toFixed(1)} |`;
  process.stdout.write(`First GET /v2/repos?limit=5 ${values.wait} ms after the CLI printed its address, on a fresh copy of ${values.folder}; ` +
    `${os.cpus().length} cores, load ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} at the end.\n\n` +
    `| build | first call, each run (ms) | median (ms) | the next four calls, median (ms) |\n|---|---|---|---|\n${row('baseline')}\n${row('candidate')}\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
