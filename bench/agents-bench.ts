/**
 * Agents: A2A text questions and MCP tool calls against the same sidecar, side by side with the
 * plain HTTP calls they run, in one run.
 *
 *   node_modules/.bin/node --import tsx bench/agents-bench.ts [corpus=phaser] [--write]
 *
 * - A2A: time to the first text artifact chunk of a question sent as plain text on message/stream
 *   (JSON-RPC, SSE read with undici), beside the first `chunk` line of POST /v2/search with
 *   chat: true over HTTP, question by question (built-in model).
 * - MCP: the `search` tool through the official client over Streamable HTTP, beside the same
 *   POST /v2/search over HTTP, interleaved; the overhead is the difference of the medians.
 * - The tools' descriptions and input schemas as an agent receives them (tools/list), in tokens
 *   (o200k, gpt-tokenizer).
 * With --write the section between the agents markers of docs/benchmarks.md is rewritten.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { encode } from 'gpt-tokenizer';
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
];
const SEARCHES = ['camera follow sprite', 'texture loader image', 'tween easing', 'pointer input events', 'sound manager play', 'arcade collision',
  'game loop step', 'canvas renderer', 'scene start stop', 'tilemap layer render'];

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Milliseconds to the first `chunk` line of research over HTTP. */
async function httpFirstChunk(base: string, key: string, query: string): Promise<number> {
  const t0 = performance.now();
  const res = await request(`${base}/v2/search`, {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/x-ndjson', 'x-api-key': key },
    body: JSON.stringify({ query, chat: true }),
  });
  let first = NaN;
  let buffered = '';
  for await (const piece of res.body) {
    buffered += (piece as Buffer).toString('utf8');
    if (Number.isNaN(first) && buffered.includes('"type":"chunk"')) first = performance.now() - t0;
  }
  if (Number.isNaN(first)) throw new Error(`${query}: no chunk (${res.statusCode})`);
  return first;
}

/** Milliseconds to the first text artifact chunk of a plain-text question on A2A message/stream. */
async function a2aFirstChunk(base: string, key: string, question: string): Promise<number> {
  const t0 = performance.now();
  const res = await request(`${base}/a2a/jsonrpc`, {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/stream', params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: question }] } } }),
  });
  let first = NaN;
  let buffered = '';
  for await (const piece of res.body) {
    buffered += (piece as Buffer).toString('utf8');
    if (Number.isNaN(first) && /"kind":"artifact-update"[^\n]*"kind":"text"/.test(buffered)) first = performance.now() - t0;
  }
  if (Number.isNaN(first)) throw new Error(`${question}: no text chunk over A2A (${res.statusCode}): ${buffered.slice(0, 300)}`);
  return first;
}

async function httpSearch(base: string, key: string, query: string): Promise<number> {
  const t0 = performance.now();
  const res = await request(`${base}/v2/search`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ query, limit: 10 }) });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`search ${res.statusCode}`);
  return performance.now() - t0;
}

async function main() {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { write: { type: 'boolean', default: false } } });
  const name = positionals[0] ?? 'phaser';
  const folder = corpus(name);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-agents-bench-'));
  const engine = new EngineCore({ dataDir, log: silentLogger, allowedRoots: [folder] });
  try {
    const key = newId();
    const { userId } = engine.accounts.ensureOwner(key);
    engine.repos.registerLocalFolder(userId, folder);
    await engine.queue.idle();
    await engine.search.vectors.idle();
    await engine.docs.idle();
    const sidecar = await startSidecar(engine, { host: '127.0.0.1', port: 0 });
    const client = new Client({ name: 'agents-bench', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${sidecar.url}/mcp`), { requestInit: { headers: { 'X-API-Key': key } } }));
    try {
      const load = os.loadavg()[0];
      const tools = (await client.listTools()).tools;
      const toolTokens = encode(JSON.stringify(tools)).length;
      const descriptionTokens = encode(tools.map((t) => `${t.name}: ${t.description}`).join('\n')).length;

      // Warm-up (JIT, statement caches) on both paths.
      for (const q of QUESTIONS.slice(0, 2)) { await httpFirstChunk(sidecar.url, key, q); await a2aFirstChunk(sidecar.url, key, q); }
      for (const q of SEARCHES.slice(0, 3)) { await httpSearch(sidecar.url, key, q); await client.callTool({ name: 'search', arguments: { query: q } }); }

      const http: number[] = [];
      const a2a: number[] = [];
      for (const q of QUESTIONS) {
        http.push(await httpFirstChunk(sidecar.url, key, q));
        a2a.push(await a2aFirstChunk(sidecar.url, key, q));
      }
      const plain: number[] = [];
      const mcp: number[] = [];
      for (let round = 0; round < 3; round++) {
        for (const q of SEARCHES) {
          plain.push(await httpSearch(sidecar.url, key, q));
          const t0 = performance.now();
          const result = await client.callTool({ name: 'search', arguments: { query: q } });
          if (result.isError) throw new Error(JSON.stringify(result.content));
          mcp.push(performance.now() - t0);
        }
      }
      const ms = (x: number) => `${x.toFixed(1)} ms`;
      const section = `<!-- bench:agents:start -->
## Agents: A2A text questions and MCP tool calls

Command: \`node_modules/.bin/node --import tsx bench/agents-bench.ts ${name} --write\` on ${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)},
load average ${load.toFixed(1)} at the start of the run (the machine is shared). One sidecar on 127.0.0.1 over ${name}, built-in model.

| measure | median | baseline in the same run | ratio |
|---|---|---|---|
| A2A: first text artifact chunk of a plain-text question (\`message/stream\`, ${QUESTIONS.length} questions) | ${ms(median(a2a))} | HTTP research first \`chunk\`: ${ms(median(http))} | ${(median(a2a) / median(http)).toFixed(2)} |
| MCP: \`search\` tool over Streamable HTTP, official client (${mcp.length} calls) | ${ms(median(mcp))} | the same \`POST /v2/search\` over HTTP: ${ms(median(plain))} | ${(median(mcp) / median(plain)).toFixed(2)} |
| MCP overhead per call (difference of the medians) | ${ms(median(mcp) - median(plain))} | | |

Tool list as an agent receives it (\`tools/list\`: ${tools.length} tools, names, descriptions and input schemas): ${toolTokens} tokens
(o200k); the descriptions alone ${descriptionTokens} tokens.

Targets (issue 16): first artifact chunk ≤ 300 ms; MCP overhead ≤ 5 ms median; tool descriptions ≤ 2,000 tokens.
<!-- bench:agents:end -->`;
      process.stdout.write(`${section}\n`);
      if (values.write) {
        const doc = path.join(__dirname, '..', 'docs', 'benchmarks.md');
        const current = fs.readFileSync(doc, 'utf8');
        const marker = /<!-- bench:agents:start -->[\s\S]*<!-- bench:agents:end -->/;
        fs.writeFileSync(doc, marker.test(current) ? current.replace(marker, section) : `${current.trimEnd()}\n\n${section}\n`);
      }
    } finally {
      await client.close();
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
