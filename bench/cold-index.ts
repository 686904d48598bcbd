/**
 * Cold index, all phases, against a one-thread TypeScript parse of the same files; peak, settled and
 * restart RSS; on two builds side by side (issue 17's throughput and memory targets).
 *
 *   node --import tsx bench/cold-index.ts --folder <dir> --baseline <checkout> [--candidate <checkout>] [--rounds 3] [--settle 10]
 *     [--peer codegraph=<path of its bin>]
 *
 * Each round, in fresh processes, round-robin:
 * - parse: this checkout's walk lists the folder; every TypeScript/JavaScript file is read and given to
 *   `ts.createSourceFile` on one thread (the yardstick: "≤ 3× a one-thread parse");
 * - each build's CLI (`<checkout>/dist/cli.js --no-watch`, build it first) indexes the folder into a fresh
 *   data dir: the wall time from spawn until `GET /v2/repos` says ready (all phases: files, links,
 *   vectors), the time until every file was written (core), the process's CPU time over that (cores
 *   used), peak RSS (VmHWM), and the RSS `--settle` seconds after ready;
 * - the same CLI started again on that data dir (a no-change restart): its RSS `--settle` seconds after
 *   it is ready. Settled / restart is the memory target (≤ 1.2).
 * - `--peer codegraph=BIN` (@colbymchenry/codegraph, installed outside this checkout): `BIN init -y` on a
 *   copy of the folder made once (it writes `.codegraph/` into the folder; removed before each round),
 *   telemetry off; the wall time until it exits and the sampled peak RSS of its process tree.
 *
 * Prints one line per measurement to stderr and a Markdown table of medians with the load average.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { execFileSync, spawn } from 'node:child_process';
import { startCli, type CliServer } from './cli-server';

const ROOT = path.join(__dirname, '..');
const KEY = '5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One-thread parse of the folder's script files, in this (fresh) process; prints JSON. */
async function parseOnly(folder: string): Promise<void> {
  const { walk } = await import('../server/engine/indexer/walk');
  const { detectLanguage, isScriptLanguage } = await import('../server/engine/indexer/languages');
  const ts = (await import('typescript')).default;
  const kinds: Record<string, number> = { ts: ts.ScriptKind.TS, mts: ts.ScriptKind.TS, cts: ts.ScriptKind.TS, tsx: ts.ScriptKind.TSX, js: ts.ScriptKind.JS, mjs: ts.ScriptKind.JS, cjs: ts.ScriptKind.JS, jsx: ts.ScriptKind.JSX };
  const entries = walk(folder);
  const scripts = entries.filter((e) => e.size <= 1024 * 1024 && isScriptLanguage(detectLanguage(path.basename(e.relPath))));
  const t0 = performance.now();
  let nodes = 0;
  for (const e of scripts) {
    const text = fs.readFileSync(path.join(folder, e.relPath), 'utf8');
    const ext = e.relPath.slice(e.relPath.lastIndexOf('.') + 1);
    const sf = ts.createSourceFile(e.relPath, text, ts.ScriptTarget.Latest, false, kinds[ext] ?? ts.ScriptKind.TS);
    nodes += sf.statements.length;
  }
  const ms = performance.now() - t0;
  process.stdout.write(`${JSON.stringify({ files: entries.length, scripts: scripts.length, ms, nodes })}\n`);
}

const status = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
/** User + system CPU seconds of a process (all its threads). */
const cpuSeconds = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

async function repoState(server: CliServer): Promise<{ state?: string; done: number; total: number }> {
  const res = await fetch(`${server.url}/v2/repos?limit=5`, { headers: { 'x-api-key': KEY } });
  const body = await res.json() as { data?: { state: string; files_indexed?: number; files_total?: number; progress?: { done: number; total: number } }[] };
  const r = body.data?.[0];
  return { state: r?.state, done: r?.progress?.done ?? r?.files_indexed ?? 0, total: r?.progress?.total ?? r?.files_total ?? 0 };
}

/** RSS of a process and its children (parse worker processes), MB; `deep`: their children too. */
function treeRssMb(pid: number, deep = false): number {
  let total = status(pid, 'VmRSS');
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) total += deep ? treeRssMb(Number(entry), true) : status(Number(entry), 'VmRSS');
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

interface Run { wallS: number; coreS: number; cores: number; peakMb: number; treePeakMb: number; settledMb: number; restartMb: number }

async function index(checkout: string, folder: string, settleS: number): Promise<Run> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-cold-'));
  let server: CliServer | null = null;
  try {
    const t0 = performance.now();
    server = await startCli(checkout, folder, dataDir, KEY);
    const pid = server.child.pid!;
    let coreS = NaN;
    let treePeakMb = 0;
    for (;;) {
      // Sampled every 100 ms: the server's own peak is VmHWM; its children's (parse workers) add to it.
      treePeakMb = Math.max(treePeakMb, treeRssMb(pid));
      const s = await repoState(server);
      if (Number.isNaN(coreS) && s.total > 0 && s.done >= s.total) coreS = (performance.now() - t0) / 1000;
      if (s.state === 'ready') break;
      if (s.state === 'failed') throw new Error(`${checkout}: indexing failed`);
      await sleep(100);
    }
    const wallS = (performance.now() - t0) / 1000;
    // CPU of the server process (its threads); parse worker processes that exited are not in it.
    const cores = cpuSeconds(pid) / wallS;
    const peakMb = status(pid, 'VmHWM');
    await sleep(settleS * 1000);
    const settledMb = status(pid, 'VmRSS');
    server.child.kill('SIGTERM');
    await new Promise((r) => server!.child.once('exit', r));
    server = await startCli(checkout, folder, dataDir, KEY);
    while ((await repoState(server)).state !== 'ready') await sleep(100);
    await sleep(settleS * 1000);
    const restartMb = status(server.child.pid!, 'VmRSS');
    return { wallS, coreS: Number.isNaN(coreS) ? wallS : coreS, cores, peakMb, treePeakMb: Math.max(treePeakMb, peakMb), settledMb, restartMb };
  } finally {
    server?.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The peer's cold index of its own copy of the folder: wall time to exit, sampled peak RSS of its tree. */
async function peerIndex(bin: string, copy: string): Promise<{ wallS: number; treePeakMb: number }> {
  fs.rmSync(path.join(copy, '.codegraph'), { recursive: true, force: true });
  const t0 = performance.now();
  const child = spawn(bin, ['init', '-y', copy], { env: { ...process.env, CODEGRAPH_TELEMETRY: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let treePeakMb = 0;
  let code: number | null | undefined;
  try {
    while (code === undefined) {
      try {
        treePeakMb = Math.max(treePeakMb, treeRssMb(child.pid!, true));
      } catch {
        // exited between the check and the read
      }
      code = await Promise.race([exited, sleep(100).then(() => undefined)]);
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  if (code !== 0) throw new Error(`${bin} exited with ${code}: ${stderr.slice(-2000)}`);
  return { wallS: (performance.now() - t0) / 1000, treePeakMb };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => os.loadavg().map((x) => x.toFixed(1)).join(' / ');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      folder: { type: 'string' }, baseline: { type: 'string' }, candidate: { type: 'string', default: ROOT },
      rounds: { type: 'string', default: '3' }, settle: { type: 'string', default: '10' }, 'parse-only': { type: 'boolean', default: false },
      peer: { type: 'string' },
    },
  });
  const folder = path.resolve(values.folder ?? '');
  if (!values.folder) throw new Error('--folder <dir> is required');
  if (values['parse-only']) return parseOnly(folder);
  const sides: Record<string, string> = { ...(values.baseline ? { baseline: path.resolve(values.baseline) } : {}), candidate: path.resolve(values.candidate!) };
  const peer = values.peer ? /^codegraph=(.+)$/.exec(values.peer)?.[1] : undefined;
  if (values.peer && !peer) throw new Error('--peer: codegraph=<path of its bin> is the one peer known');
  const peerCopy = peer ? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-peer-')), path.basename(folder)) : '';
  if (peer) fs.cpSync(folder, peerCopy, { recursive: true });
  const peerRuns: { wallS: number; treePeakMb: number }[] = [];
  const parses: number[] = [];
  const results: Record<string, Run[]> = {};
  let scripts = 0;
  let files = 0;
  const loads: string[] = [load()];
  for (let round = 0; round < Number(values.rounds); round++) {
    const out = execFileSync(process.execPath, [...process.execArgv, __filename, '--folder', folder, '--parse-only'], { encoding: 'utf8' });
    const p = JSON.parse(out) as { files: number; scripts: number; ms: number };
    parses.push(p.ms / 1000);
    scripts = p.scripts;
    files = p.files;
    process.stderr.write(`parse: ${(p.ms / 1000).toFixed(2)} s (${p.scripts} script files of ${p.files}) load ${load()}\n`);
    const names = Object.keys(sides);
    for (const side of round % 2 ? [...names].reverse() : names) {
      const r = await index(sides[side], folder, Number(values.settle));
      process.stderr.write(`${side}: ${JSON.stringify(r)} load ${load()}\n`);
      (results[side] ??= []).push(r);
    }
    if (peer) {
      const r = await peerIndex(peer, peerCopy);
      process.stderr.write(`codegraph: ${JSON.stringify(r)} load ${load()}\n`);
      peerRuns.push(r);
    }
    loads.push(load());
  }
  if (peer) fs.rmSync(path.dirname(peerCopy), { recursive: true, force: true });
  const parseS = median(parses);
  const rows = Object.keys(sides).map((side) => {
    const m = (k: keyof Run) => median(results[side].map((r) => r[k]));
    return `| ${side} | ${m('wallS').toFixed(1)} | ${(m('wallS') / parseS).toFixed(1)}× | ${m('coreS').toFixed(1)} | ${m('cores').toFixed(2)} | ${m('peakMb').toFixed(0)} | ${m('treePeakMb').toFixed(0)} | ${m('settledMb').toFixed(0)} | ${m('restartMb').toFixed(0)} | ${(m('settledMb') / m('restartMb')).toFixed(2)} |`;
  });
  process.stdout.write(`Cold index of ${folder} (${files} files, ${scripts} TypeScript/JavaScript), medians of ${values.rounds} round(s); ` +
    `one-thread parse ${parseS.toFixed(2)} s; ${os.cpus().length} cores; load average ${loads.join(' → ')}.\n\n` +
    '| build | cold index, all phases (s) | vs one-thread parse | core phase (s) | cores used | peak RSS (MB) | peak RSS with child processes, sampled (MB) | settled RSS (MB) | restart RSS (MB) | settled / restart |\n' +
    `|---|---|---|---|---|---|---|---|---|---|\n${rows.join('\n')}\n`);
  if (peer) {
    const wall = median(peerRuns.map((r) => r.wallS));
    const candidate = median(results.candidate.map((r) => r.wallS));
    process.stdout.write(`\ncodegraph (\`init -y\`, its own copy of the folder): each round ${peerRuns.map((r) => r.wallS.toFixed(1)).join(', ')} s, ` +
      `median ${wall.toFixed(1)} s (${(wall / parseS).toFixed(1)}× the one-thread parse), peak RSS of its processes ${median(peerRuns.map((r) => r.treePeakMb)).toFixed(0)} MB; ` +
      `candidate / codegraph ${(candidate / wall).toFixed(2)}.\n`);
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
