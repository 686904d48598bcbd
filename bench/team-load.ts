/**
 * The team server over HTTP, real processes on a private PostgreSQL (issue 20):
 *   node --import tsx bench/team-load.ts [--corpus phaser-x4] [--rounds 3] [--seconds 10] [--clients 16]
 *
 * One index worker indexes the corpus (phaser ×4 by default: bench/corpora.ts) registered through an
 * API node (`server/serve.ts`); then
 * 1. search: the 14 evaluation queries of bench/pg-index.ts as `POST /v2/search` (scope code, the
 *    repository's id) on one node, one at a time, `--rounds` rounds after a warm-up round: p50/p95
 *    of the client-side time (HTTP, key, credits, the search on PostgreSQL's index);
 * 2. cheap GETs: `--clients` keep-alive clients call `GET /v2/repos?limit=5` (1 credit: key, a charge
 *    in the ledger), `GET /v2/models` (the key, no charge) and `GET /health` (nothing) as fast as they can for `--seconds`, against one node and then
 *    spread over two nodes: requests per second and p50/p95 latency, per route.
 * Prints one JSON object (and the load average beside each part).
 */
import fs from 'node:fs';
import http from 'node:http';
import { request } from './keyed-request';
import { parseArgs } from 'node:util';
import { corpus } from './corpora';
import { indexThroughTeam, startTeamServer, type ApiNode } from '../test/helpers/team-server';

const QUERIES = [
  'game object factory', 'texture manager add', 'camera follow', 'tween timeline', 'input keyboard key',
  'arcade physics collide', 'scene manager start', 'WebGLRenderer', 'sound manager play', 'tilemap layer',
  'loader file complete', 'particle emitter', 'matrix transform', 'event emitter once',
];

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]! * 10) / 10; };
const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** One keep-alive request; resolves with the status and the time it took (ms). */

async function throughput(nodes: ApiNode[], path: string, key: string, clients: number, seconds: number) {
  const agents = nodes.map(() => new http.Agent({ keepAlive: true, maxSockets: clients }));
  const times: number[] = [];
  const statuses = new Map<number, number>();
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, async (_, i) => {
    const n = i % nodes.length; // clients spread evenly over the nodes, as a round-robin balancer would
    while (performance.now() < deadline) {
      const r = await request(agents[n]!, nodes[n]!.base, path, key);
      times.push(r.ms);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    }
  }));
  const elapsed = (performance.now() - started) / 1000;
  for (const a of agents) a.destroy();
  return { nodes: nodes.length, requests: times.length, rps: Math.round(times.length / elapsed), p50: pct(times, 0.5), p95: pct(times, 0.95), statuses: Object.fromEntries(statuses), loadavg: loadavg() };
}

async function main() {
  const { values } = parseArgs({ options: {
    corpus: { type: 'string', default: 'phaser-x4' }, rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '10' }, clients: { type: 'string', default: '16' },
  } });
  const folder = corpus(values.corpus!);
  const team = await startTeamServer();
  // Interrupted: the processes and the cluster go too.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => { void team.stop().finally(() => process.exit(130)); });
  try {
    const a = await team.node('a', { allow: [folder] });
    const b = await team.node('b', { allow: [folder] });
    await team.worker();
    const indexStart = performance.now();
    const repoId = await indexThroughTeam(team, a.base, folder, 1_800_000);
    const indexSeconds = Math.round((performance.now() - indexStart) / 100) / 10;
    process.stderr.write(`indexed ${values.corpus} in ${indexSeconds} s\n`);

    const agent = new http.Agent({ keepAlive: true });
    const search = (q: string) => request(agent, a.base, '/v2/search', team.key, 'POST', JSON.stringify({ query: q, scope: 'code', repo_ids: [repoId], limit: 10 }));
    for (const q of QUERIES) {
      const r = await search(q);
      if (r.status !== 200) throw new Error(`search ${q}: ${r.status} ${r.body.slice(0, 300)}`);
    }
    const perRound: { p50: number; p95: number }[] = [];
    const all: number[] = [];
    for (let round = 0; round < Number(values.rounds); round++) {
      const times: number[] = [];
      for (const q of QUERIES) {
        const r = await search(q);
        if (r.status !== 200) throw new Error(`search ${q}: ${r.status}`);
        times.push(r.ms);
      }
      all.push(...times);
      perRound.push({ p50: pct(times, 0.5), p95: pct(times, 0.95) });
    }
    agent.destroy();
    const searchResult = { queries: QUERIES.length, rounds: perRound, p50: pct(all, 0.5), p95: pct(all, 0.95), loadavg: loadavg() };
    process.stderr.write(`search ${JSON.stringify(searchResult)}\n`);

    const clients = Number(values.clients);
    const seconds = Number(values.seconds);
    const gets: Record<string, unknown[]> = {};
    for (const path of ['/v2/repos?limit=5', '/v2/models', '/health']) {
      gets[path] = [];
      for (let round = 0; round < Number(values.rounds); round++) {
        for (const nodes of [[a], [a, b]]) {
          const r = await throughput(nodes, path, team.key, clients, seconds);
          process.stderr.write(`${path} ${JSON.stringify(r)}\n`);
          gets[path]!.push(r);
        }
      }
    }
    process.stdout.write(`${JSON.stringify({ corpus: values.corpus, indexSeconds, search: searchResult, gets }, null, 1)}\n`);
  } finally {
    await team.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
