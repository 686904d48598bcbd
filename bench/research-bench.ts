/**
 * Research latency: time to the first `chunk` of POST /v2/search with chat: true and the built-in
 * model, as a client sees it over 127.0.0.1 (undici, reading lines as they arrive).
 *
 *   node_modules/.bin/node --import tsx bench/research-bench.ts [corpus=phaser] [--write]
 *
 * Indexes the corpus into a temporary data dir, warms up, then asks each question once and
 * reports medians and p95 of: the `search` line, the first `chunk`, the `done` line. With
 * --write the section between the research markers of docs/benchmarks.md is rewritten.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { EngineCore } from '../server/engine/core';
import { silentLogger } from '../server/engine/log';
import { startSidecar } from '../server/host';
import { newId } from '../server/engine/util/ids';
import { corpus } from './corpora';

const QUESTIONS = [
  'how does the camera follow a sprite', 'where are textures loaded from image files', 'how are tween easing functions applied',
  'how are pointer input events dispatched to game objects', 'how does the sound manager play audio', 'arcade physics collision between two bodies',
  'how is the game loop step timed', 'where is the canvas renderer created', 'how does a scene start and stop', 'how are tilemap layers drawn',
  'how are particles emitted', 'how does the loader report progress', 'keyboard key down handling', 'how is a bitmap text measured',
  'how does the data manager store values', 'how are animations played on a sprite', 'where are webgl shaders compiled', 'geometry rectangle contains point',
  'how are timers scheduled in the clock', 'how does the scale manager resize the game',
];

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

async function ask(base: string, key: string, query: string) {
  const t0 = performance.now();
  const res = await request(`${base}/v2/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/x-ndjson', 'x-api-key': key },
    body: JSON.stringify({ query, chat: true }),
  });
  if (res.statusCode !== 200) throw new Error(`${query}: ${res.statusCode} ${await res.body.text()}`);
  const at: Record<string, number> = {};
  let buffered = '';
  let chunks = 0;
  for await (const piece of res.body) {
    buffered += (piece as Buffer).toString('utf8');
    let cut: number;
    while ((cut = buffered.indexOf('\n')) >= 0) {
      const event = JSON.parse(buffered.slice(0, cut)) as { type: string; message?: string };
      buffered = buffered.slice(cut + 1);
      if (event.type === 'error') throw new Error(`${query}: ${event.message}`);
      if (event.type === 'chunk') chunks++;
      at[event.type] ??= performance.now() - t0;
    }
  }
  return { search: at.search, chunk: at.chunk, done: at.done, chunks };
}

async function main() {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { write: { type: 'boolean', default: false } } });
  const name = positionals[0] ?? 'phaser';
  const folder = corpus(name);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-research-bench-'));
  const engine = new EngineCore({ dataDir, log: silentLogger, allowedRoots: [folder] });
  try {
    const key = newId();
    const { userId } = engine.accounts.ensureOwner(key);
    const t0 = performance.now();
    engine.repos.registerLocalFolder(userId, folder);
    await engine.queue.idle();
    // Background work (vectors, file docs) would compete for the CPU with the measured requests.
    await engine.search.vectors.idle();
    await engine.docs.idle();
    process.stderr.write(`indexed ${name} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    const sidecar = await startSidecar(engine, { host: '127.0.0.1', port: 0 });
    try {
      const load = os.loadavg()[0];
      for (const q of QUESTIONS.slice(0, 3)) await ask(sidecar.url, key, q); // warm-up (JIT, statement cache)
      const samples = [];
      for (const q of QUESTIONS) samples.push(await ask(sidecar.url, key, q));
      const row = (label: string, xs: number[], digits = 0) => `| ${label} | ${pct(xs, 50).toFixed(digits)} ms | ${pct(xs, 95).toFixed(digits)} ms |`;
      const section = `<!-- bench:research:start -->
## Research: time to first chunk (built-in model)

Command: \`node_modules/.bin/node --import tsx bench/research-bench.ts ${name} --write\` on ${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)},
load average ${load.toFixed(1)} at the start of the run (the machine is shared).
${QUESTIONS.length} natural-language questions over ${name} (after 3 warm-up questions), POST /v2/search with \`chat: true\` and the default
model \`loupe-grounded\`, read line by line with undici over 127.0.0.1; times from sending the request.
Median ${Math.round(pct(samples.map((s) => s.chunks), 50))} chunks per answer.

| line | median | p95 |
|---|---|---|
${row('`search` (hits ready)', samples.map((s) => s.search))}
${row('first `chunk`', samples.map((s) => s.chunk))}
${row('`done`', samples.map((s) => s.done))}
${row('research\'s own share: first `chunk` − `search`', samples.map((s) => s.chunk - s.search), 1)}

Target (issue 3): first \`chunk\` ≤ 300 ms with the built-in model.
<!-- bench:research:end -->`;
      process.stdout.write(`${section}\n`);
      if (values.write) {
        const doc = path.join(__dirname, '..', 'docs', 'benchmarks.md');
        const current = fs.existsSync(doc) ? fs.readFileSync(doc, 'utf8') : '# Benchmarks\n';
        const marker = /<!-- bench:research:start -->[\s\S]*<!-- bench:research:end -->/;
        fs.writeFileSync(doc, marker.test(current) ? current.replace(marker, section) : `${current.trimEnd()}\n\n${section}\n`);
      }
    } finally {
      await sidecar.close();
    }
  } finally {
    await engine.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
