/**
 * Search and keyed requests on one API node of a team server, side by side against another checkout
 * (issue 20, hpgq):
 *   node --import tsx bench/pg-search.ts [--corpus phaser-x4] [--against /path/to/other/checkout]
 *     [--rounds 3] [--reps 2] [--seconds 8] [--clients 16] [--team /tmp/team.json]
 *
 * One private PostgreSQL 15, one index worker and the corpus (phaser ×4 by default) indexed once
 * through an API node, as bench/team-load.ts does (or `--team FILE`: the JSON of an already indexed
 * team server: url, key, repoId, folder). Then, for `--rounds` rounds, alternating this checkout and
 * `--against` (each a fresh `server/serve.ts` process of that checkout on the same database):
 * 1. search: the 14 queries of bench/pg-index.ts as `POST /v2/search` (scope code, the repository's
 *    id, limit 10) one at a time, a warm-up pass then `--reps` passes: client-side p50/p95 (HTTP, key,
 *    reservation, the hybrid search on PostgreSQL's index and the node's vectors, charge, history);
 * 2. keyed GETs: `--clients` keep-alive clients for `--seconds` each on `GET /v2/repos?limit=5` (key,
 *    listing, a charge), `GET /v2/models` (key, no charge) and `GET /health` (nothing): req/s, p50.
 * Prints one JSON object: every round, the medians per side and the ratios (this ÷ against), with the
 * load average beside each part.
 */
import fs from 'node:fs';
import http from 'node:http';
import { request } from './keyed-request';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { corpus } from './corpora';
import { tempDir } from '../test/helpers/engine';
import { indexThroughTeam, startTeamServer, until, type TeamServer } from '../test/helpers/team-server';

const QUERIES = [
  'game object factory', 'texture manager add', 'camera follow', 'tween timeline', 'input keyboard key',
  'arcade physics collide', 'scene manager start', 'WebGLRenderer', 'sound manager play', 'tilemap layer',
  'loader file complete', 'particle emitter', 'matrix transform', 'event emitter once',
];
const GETS = ['/v2/repos?limit=5', '/v2/models', '/health'];
const HERE = path.join(__dirname, '..');

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]! * 10) / 10; };
const median = (xs: number[]) => pct(xs, 0.5);
const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');


interface Team { url: string; key: string; repoId: string; folder: string }

/** One API node of the checkout at `root` on the team's database; resolves its base URL and a stop function. */
async function startNode(root: string, team: Team) {
  const dataDir = tempDir('loupe-pg-search-');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'server', 'serve.ts'), '--database', team.url, '--port', '0',
    '--data-dir', dataDir, '--allow', team.folder], {
    cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOUPE_API_KEY: team.key, LOUPE_HOME: dataDir, LOUPE_LOG: 'warn' },
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { err += d; });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const proc = { child, out: () => out, err: () => err, exited: () => exited };
  const base = await until(`API node of ${root}`, proc, () => /Loupe API: (http:\/\/\S+)/.exec(out)?.[1]);
  return {
    base,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.kill('SIGTERM');
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function measure(root: string, team: Team, o: { reps: number; seconds: number; clients: number }) {
  const node = await startNode(root, team);
  try {
    const agent = new http.Agent({ keepAlive: true, maxSockets: o.clients });
    const search = (q: string) => request(agent, node.base, '/v2/search', team.key, 'POST', JSON.stringify({ query: q, scope: 'code', repo_ids: [team.repoId], limit: 10 }));
    // Warm-up: the node reads the repository's vectors into memory on its first search.
    for (const q of QUERIES) {
      const r = await search(q);
      if (r.status !== 200) throw new Error(`search ${q}: ${r.status} ${r.body.slice(0, 300)}`);
    }
    await new Promise((r) => setTimeout(r, 1500));
    for (const q of QUERIES) await search(q);
    const times: number[] = [];
    for (let rep = 0; rep < o.reps; rep++) {
      for (const q of QUERIES) {
        const r = await search(q);
        if (r.status !== 200) throw new Error(`search ${q}: ${r.status}`);
        times.push(r.ms);
      }
    }
    const result: Record<string, unknown> = { search: { p50: pct(times, 0.5), p95: pct(times, 0.95), n: times.length, loadavg: loadavg() } };
    for (const route of GETS) {
      const lat: number[] = [];
      const statuses = new Map<number, number>();
      const deadline = performance.now() + o.seconds * 1000;
      const started = performance.now();
      await Promise.all(Array.from({ length: o.clients }, async () => {
        while (performance.now() < deadline) {
          const r = await request(agent, node.base, route, team.key);
          lat.push(r.ms);
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        }
      }));
      const rps = Math.round(lat.length / ((performance.now() - started) / 1000));
      if ([...statuses.keys()].some((s) => s !== 200)) throw new Error(`${route}: ${JSON.stringify(Object.fromEntries(statuses))}`);
      result[route] = { rps, p50: median(lat), loadavg: loadavg() };
    }
    agent.destroy();
    return result;
  } finally {
    await node.stop();
  }
}

async function main() {
  const { values } = parseArgs({ options: {
    corpus: { type: 'string', default: 'phaser-x4' }, against: { type: 'string' }, team: { type: 'string' },
    rounds: { type: 'string', default: '3' }, reps: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '8' }, clients: { type: 'string', default: '16' },
  } });
  const o = { reps: Number(values.reps), seconds: Number(values.seconds), clients: Number(values.clients) };
  let server: TeamServer | null = null;
  let team: Team;
  if (values.team) team = JSON.parse(fs.readFileSync(values.team, 'utf8')) as Team;
  else {
    const folder = corpus(values.corpus!);
    server = await startTeamServer();
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => { void server!.stop().finally(() => process.exit(130)); });
    const a = await server.node('a', { allow: [folder] });
    await server.worker();
    const started = performance.now();
    const repoId = await indexThroughTeam(server, a.base, folder, 1_800_000);
    process.stderr.write(`indexed ${values.corpus} in ${Math.round((performance.now() - started) / 1000)} s\n`);
    // The indexing node's and worker's work is done; the measured nodes are started fresh.
    team = { url: server.url, key: server.key, repoId, folder };
  }
  try {
    const sides: [string, string][] = [['this', HERE], ...(values.against ? [['against', path.resolve(values.against)] as [string, string]] : [])];
    const rounds: Record<string, unknown>[] = [];
    for (let round = 0; round < Number(values.rounds); round++) {
      // Alternate which side goes first, so neither always meets the same moment of the machine's load.
      const order = round % 2 ? [...sides].reverse() : sides;
      const row: Record<string, unknown> = { round };
      for (const [name, root] of order) {
        row[name] = await measure(root, team, o);
        process.stderr.write(`round ${round} ${name} ${JSON.stringify(row[name])}\n`);
      }
      rounds.push(row);
    }
    const pick = (side: string, f: (r: any) => number) => median(rounds.map((r) => f(r[side])));
    const summary: Record<string, unknown> = {};
    for (const [name] of sides) {
      summary[name] = {
        searchP50: pick(name, (r) => r.search.p50), searchP95: pick(name, (r) => r.search.p95),
        ...Object.fromEntries(GETS.map((g) => [g, { rps: pick(name, (r) => r[g].rps), p50: pick(name, (r) => r[g].p50) }])),
      };
    }
    if (values.against) {
      // Per round (the two sides measured minutes apart), then the median of the rounds, to two decimals.
      const ratio = (f: (r: any) => number) => {
        const each = rounds.map((r) => f(r.this) / f(r.against)).sort((a, b) => a - b);
        return Math.round(each[Math.floor(each.length / 2)]! * 100) / 100;
      };
      summary.ratios = {
        searchP50: ratio((r) => r.search.p50), searchP95: ratio((r) => r.search.p95),
        ...Object.fromEntries(GETS.map((g) => [`${g} rps`, ratio((r) => r[g].rps)])),
      };
    }
    process.stdout.write(`${JSON.stringify({ corpus: values.corpus, rounds, summary }, null, 1)}\n`);
  } finally {
    await server?.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
