/**
 * Edits through the watcher, and memory after a run, on two builds side by side. Each build's CLI
 * (watcher on) cold-indexes a fresh copy of a folder; then:
 *
 * 1. peak RSS (VmHWM) at the end of the cold index, and the RSS settled `--settle` seconds later;
 * 2. `--edits` edits, each a line with a new word appended to an existing file: sequential
 *    `GET /v2/repos?limit=5` run from the write until the edit is in (the longest wait is the
 *    result: "no request waits > 20 ms during an edit"; also without the waits during which this client's own
 *    thread was on a core or waiting for one half the time or more, client-delay.ts), then the next edit is written and
 *    `POST /v2/search` polled until the new word is found (edit → searchable through the watcher);
 * 3. the CLI restarted on the same data dir (a no-change restart): its RSS once ready and settled.
 *
 *   node --import tsx bench/edit-live.ts --baseline <checkout> --folder <dir> [--rounds 1] [--edits 20] [--settle 10]
 *
 * Build both first (`npm run build` in each). Prints one Markdown table and the load average.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_KEY as KEY, SIDE_BY_SIDE, startCli, type CliServer } from './cli-server';
import { clientBusyMs, clientDelayed } from './client-delay';
import { request } from 'undici';

const { values } = parseArgs({
  options: {
    ...SIDE_BY_SIDE,
    rounds: { type: 'string', default: '1' },
    edits: { type: 'string', default: '20' },
    settle: { type: 'string', default: '10' },
    /** Appends every GET during an edit over 20 ms as a JSON line {side, startUs, endUs, ms} (CLOCK_MONOTONIC µs, the clock of a --cpu-prof profile). */
    'slow-log': { type: 'string' },
  },
});
if (!values.baseline || !values.folder) throw new Error('--baseline <checkout> and --folder <dir> are required');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssMb = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function get(url: string): Promise<{ ms: number; state?: string; startUs: number; busyMs: number }> {
  const busy0 = clientBusyMs();
  const t0 = performance.now();
  const startUs = Number(process.hrtime.bigint() / 1000n);
  const res = await request(`${url}/v2/repos?limit=5`, { headers: { 'x-api-key': KEY } });
  const body = await res.body.json() as { data?: { state: string }[] };
  return { ms: performance.now() - t0, state: body.data?.[0]?.state, startUs, busyMs: clientBusyMs() - busy0 };
}

async function found(url: string, word: string): Promise<boolean> {
  const res = await request(`${url}/v2/search`, {
    method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ query: word, scan_mode: 'grep_code', scope: 'code' }),
  });
  return (await res.body.text()).includes(word);
}

async function ready(server: CliServer): Promise<void> {
  for (let i = 0; i < 9000; i++) {
    if ((await get(server.url)).state === 'ready') return;
    await sleep(100);
  }
  throw new Error('not ready in 15 minutes');
}

interface Result { peakMb: number; settledMb: number; restartMb: number; editP50: number; editMax: number; getMax: number; getMaxServer: number; getP99: number; indexS: number }

async function once(side: string, checkout: string): Promise<Result> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-edit-'));
  const folder = path.join(work, 'repo');
  fs.cpSync(path.resolve(values.folder!), folder, { recursive: true });
  const files: string[] = [];
  const list = (d: string) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) list(p); else if (/\.(ts|js)$/.test(e.name)) files.push(p); } };
  list(folder);
  const dataDir = path.join(work, 'data');
  let server = await startCli(checkout, folder, dataDir, KEY, { watch: true });
  try {
    const t0 = performance.now();
    await ready(server);
    const indexS = (performance.now() - t0) / 1000;
    const peakMb = rssMb(server.child.pid!, 'VmHWM');
    await sleep(Number(values.settle) * 1000);
    const settledMb = rssMb(server.child.pid!, 'VmRSS');

    const edits = Number(values.edits);
    const searchable: number[] = [];
    const waits: number[] = [];
    // The waits during which this client was on a core or waiting for one half the time or more are not the server's (client-delay.ts).
    const serverWaits: number[] = [];
    for (let i = 0; i < edits; i++) {
      // a) requests while an edit goes in (no search polling, which would hold the loop itself)
      const quiet = `quietword${process.pid}x${i}q`;
      const file = files[(i * 7919) % files.length];
      fs.appendFileSync(file, `\n// ${quiet}\n`);
      const until = performance.now() + 600;
      while (performance.now() < until) {
        const { ms, startUs, busyMs } = await get(server.url);
        waits.push(ms);
        if (!clientDelayed(ms, busyMs)) serverWaits.push(ms);
        if (values['slow-log'] && ms > 20) {
          fs.appendFileSync(values['slow-log'], `${JSON.stringify({ side, startUs, endUs: Number(process.hrtime.bigint() / 1000n), ms, clientBusyMs: busyMs })}\n`);
        }
      }
      // b) edit → searchable
      const word = `editword${process.pid}x${i}e`;
      const started = performance.now();
      fs.appendFileSync(files[(i * 104729 + 13) % files.length], `\n// ${word}\n`);
      while (!(await found(server.url, word))) {
        if (performance.now() - started > 30_000) throw new Error(`${word} not searchable in 30 s`);
      }
      searchable.push(performance.now() - started);
      await sleep(200);
    }
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
    server = await startCli(checkout, folder, dataDir, KEY, { watch: true });
    await ready(server);
    await sleep(Number(values.settle) * 1000);
    const restartMb = rssMb(server.child.pid!, 'VmRSS');
    const s = [...searchable].sort((a, b) => a - b);
    const w = [...waits].sort((a, b) => a - b);
    return { peakMb, settledMb, restartMb, editP50: s[Math.floor(s.length / 2)], editMax: s[s.length - 1], getMax: w[w.length - 1], getMaxServer: Math.max(...serverWaits), getP99: w[Math.floor(w.length * 0.99)], indexS };
  } finally {
    server.child.kill('SIGKILL');
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const sides = { baseline: values.baseline!, candidate: values.candidate! };
  const results: Record<string, Result[]> = {};
  for (let round = 0; round < Number(values.rounds); round++) {
    const order = (round % 2 ? ['candidate', 'baseline'] : ['baseline', 'candidate']) as (keyof typeof sides)[];
    for (const side of order) {
      const r = await once(side, sides[side]);
      process.stderr.write(`${side}: ${JSON.stringify(r)} load ${os.loadavg()[0].toFixed(1)}\n`);
      (results[side] ??= []).push(r);
    }
  }
  const row = (side: string) => {
    const m = (k: keyof Result) => median(results[side].map((r) => r[k]));
    return `| ${side} | ${m('editP50').toFixed(0)} | ${m('editMax').toFixed(0)} | ${m('getP99').toFixed(1)} | ${m('getMax').toFixed(1)} | ${m('getMaxServer').toFixed(1)} | ${m('peakMb').toFixed(0)} | ${m('settledMb').toFixed(0)} | ${m('restartMb').toFixed(0)} | ${(m('settledMb') / m('restartMb')).toFixed(2)} | ${m('indexS').toFixed(1)} |`;
  };
  process.stdout.write(`Edits through the watcher and memory on ${values.folder}, ${values.edits} edits, medians of ${values.rounds} round(s); ` +
    `${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} at the end.\n\n` +
    '| build | edit → searchable p50 (ms) | max (ms) | GET during edits p99 (ms) | max (ms) | max, client delays aside (ms) | peak RSS (MB) | settled RSS (MB) | restart RSS (MB) | settled / restart | cold index (s) |\n' +
    `|---|---|---|---|---|---|---|---|---|---|---|\n${row('baseline')}\n${row('candidate')}\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
