/**
 * Does the server answer while it indexes? Starts the CLI of a checkout on a fresh copy of a folder
 * and sends sequential `GET /v2/repos?limit=5` (one at a time, from this process) until the cold
 * index is done; the latencies of the calls made while it indexed are the result. Both builds run
 * one after the other, alternating, `--rounds` times.
 *
 *   node --import tsx bench/live-index.ts --baseline <checkout> --folder <dir> [--rounds 1] [--poll-ms 0]
 *
 * Build both first (`npm run build` in each). Prints one Markdown table: p50, p99, max, calls over
 * 50 ms, the largest wait in the `--after-ms` that follow `ready` (what a run does as it ends: the
 * model's activation, the heap's collection), the index time, the CPU time of the server's main
 * thread over the run (the thread that answers: /proc/PID/task/PID/stat), and the load average.
 *
 * On a virtual machine the host may take a virtual CPU away for a while (its steal time, /proc/stat): on the
 * 2-vCPU machine of docs/benchmarks.md, ~100 ms at a time, which no code in the guest can answer through. A call
 * during which a CPU's steal grew by half the call's time or more is counted apart ("stolen"), and the largest
 * wait is also given without those calls; and without the calls during which this client's own thread was on a
 * core or waiting for one half the time or more (client-delay.ts: the server had answered, or not yet been asked).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_KEY as KEY, SIDE_BY_SIDE, startCli } from './cli-server';
import { clientBusyMs, clientDelayed } from './client-delay';
import { request } from 'undici';

const { values } = parseArgs({
  options: {
    ...SIDE_BY_SIDE,
    rounds: { type: 'string', default: '1' },
    /** Waits this long between calls (0: back to back); with a pause the main thread's CPU is the indexing's own. */
    'poll-ms': { type: 'string', default: '0' },
    /** Appends every call over 20 ms as a JSON line {side, startUs, endUs, ms} (CLOCK_MONOTONIC µs, the clock of a --cpu-prof profile). */
    'slow-log': { type: 'string' },
    /** Goes on calling this long after the index is ready: the end of a run happens there. */
    'after-ms': { type: 'string', default: '3000' },
  },
});
if (!values.baseline || !values.folder) throw new Error('--baseline <checkout> and --folder <dir> are required');

/** User + system CPU seconds of a process's main thread alone (its thread id is its pid). */
const mainThreadCpuS = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

/** Each CPU's steal time so far, in ms (/proc/stat's eighth value, in USER_HZ ticks of 10 ms); empty off Linux. */
const stealMs = (): number[] => {
  if (process.platform !== 'linux') return [];
  return fs.readFileSync('/proc/stat', 'utf8').split('\n').filter((l) => /^cpu\d/.test(l)).map((l) => Number(l.split(/\s+/)[8]) * 10);
};

async function once(side: string, checkout: string): Promise<{ latencies: number[]; stolen: boolean[]; own: boolean[]; after: number[]; indexMs: number; mainCpuS: number }> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-live-'));
  const folder = path.join(work, 'repo');
  fs.cpSync(path.resolve(values.folder!), folder, { recursive: true });
  const { child, url } = await startCli(checkout, folder, path.join(work, 'data'), KEY);
  try {
    const latencies: number[] = [];
    const stolen: boolean[] = [];
    const own: boolean[] = [];
    const after: number[] = [];
    let readyAt = 0;
    let indexMs = 0;
    const started = performance.now();
    for (;;) {
      const steal0 = stealMs();
      const busy0 = clientBusyMs();
      const t0 = performance.now();
      const h0 = process.hrtime.bigint();
      const res = await request(`${url}/v2/repos?limit=5`, { headers: { 'x-api-key': KEY } });
      const body = await res.body.json() as { data?: { state: string }[] };
      const ms = performance.now() - t0;
      const busyMs = clientBusyMs() - busy0;
      if (readyAt) {
        after.push(ms);
        if (performance.now() - readyAt > Number(values['after-ms'])) return { latencies, stolen, own, after, indexMs, mainCpuS: mainThreadCpuS(child.pid!) };
        continue;
      }
      if (body.data?.[0]?.state === 'ready') {
        readyAt = performance.now();
        indexMs = readyAt - started;
        continue;
      }
      latencies.push(ms);
      stolen.push(ms > 20 && stealMs().some((v, i) => v - steal0[i] >= ms / 2));
      own.push(clientDelayed(ms, busyMs));
      if (values['slow-log'] && ms > 20) {
        fs.appendFileSync(values['slow-log'], `${JSON.stringify({ side, startUs: Number(h0 / 1000n), endUs: Number(process.hrtime.bigint() / 1000n), ms, clientBusyMs: busyMs })}\n`);
      }
      if (performance.now() - started > 900_000) throw new Error('not indexed in 15 minutes');
      if (Number(values['poll-ms']) > 0) await new Promise((r) => setTimeout(r, Number(values['poll-ms'])));
    }
  } finally {
    // A clean stop (SIGTERM) lets a CLI started with NODE_OPTIONS=--cpu-prof write its profile.
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * This process's HTTP client pays for its own first request (undici's code compiled on first use: ~15–20 ms here,
 * against ~2 ms after it), which the first call of a round would otherwise count as the server's wait. A few calls
 * to a throwaway local server first, so every call measured is the server's.
 */
async function warmClient(): Promise<void> {
  const server = http.createServer((_req, res) => res.end('{"data":[]}')).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const { port } = server.address() as { port: number };
    for (let i = 0; i < 20; i++) await (await request(`http://127.0.0.1:${port}/v2/repos?limit=5`, { headers: { 'x-api-key': KEY } })).body.json();
  } finally {
    server.close();
  }
}

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const median = (xs: number[]) => pct(xs, 0.5);

async function main(): Promise<void> {
  const sides = { baseline: values.baseline!, candidate: values.candidate! };
  await warmClient();
  const results: Record<string, { p50: number; p99: number; max: number; maxNotStolen: number; maxServer: number; first: number; maxAfterFirst: number; over50: number; over50Stolen: number; calls: number; maxAfterReady: number; indexMs: number; mainCpuS: number; load: number }[]> = {};
  for (let round = 0; round < Number(values.rounds); round++) {
    const order = (round % 2 ? ['candidate', 'baseline'] : ['baseline', 'candidate']) as (keyof typeof sides)[];
    for (const side of order) {
      const { latencies, stolen, own, after, indexMs, mainCpuS } = await once(side, sides[side]);
      const r = {
        p50: pct(latencies, 0.5), p99: pct(latencies, 0.99), max: Math.max(...latencies), maxNotStolen: Math.max(...latencies.filter((_, i) => !stolen[i])),
        maxServer: Math.max(...latencies.filter((_, i) => !stolen[i] && !own[i])),
        first: latencies[0], maxAfterFirst: Math.max(...latencies.slice(1)), over50: latencies.filter((x) => x > 50).length,
        over50Stolen: latencies.filter((x, i) => x > 50 && stolen[i]).length, calls: latencies.length, maxAfterReady: Math.max(...after), indexMs, mainCpuS, load: os.loadavg()[0],
      };
      process.stderr.write(`${side}: ${JSON.stringify(r)} load ${os.loadavg()[0].toFixed(1)}\n`);
      (results[side] ??= []).push(r);
    }
  }
  const row = (side: string) => {
    const rs = results[side];
    const m = (k: keyof (typeof rs)[0]) => median(rs.map((r) => r[k]));
    return `| ${side} | ${m('calls')} | ${m('p50').toFixed(1)} | ${m('p99').toFixed(1)} | ${m('max').toFixed(0)} | ${m('maxNotStolen').toFixed(0)} | ${m('maxServer').toFixed(0)} | ${m('first').toFixed(0)} | ${m('maxAfterFirst').toFixed(0)} | ${m('over50')} (${m('over50Stolen')}) | ${m('maxAfterReady').toFixed(0)} | ${(m('indexMs') / 1000).toFixed(1)} | ${m('mainCpuS').toFixed(1)} | ${m('load').toFixed(1)} |`;
  };
  process.stdout.write(`Sequential GET /v2/repos?limit=5 during a cold index of ${values.folder}, medians of ${values.rounds} round(s); ` +
    `${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} (1/5/15 min) at the end.\n\n` +
    `| build | calls | p50 (ms) | p99 (ms) | max (ms) | max, stolen calls aside (ms) | max, stolen calls and the client's own delays aside (ms) | first call (ms) | max after the first (ms) | calls > 50 ms (of them stolen) | max in the ${values['after-ms']} ms after ready (ms) | index (s) | main thread CPU (s) | load (1 min) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n${row('baseline')}\n${row('candidate')}\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
