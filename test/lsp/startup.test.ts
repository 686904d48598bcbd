import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { copyFixture, tempDir } from '../helpers/engine';
import { startLspClient, type TestLspClient } from '../helpers/lsp-client';

// The real server process over stdio, started twice on one data dir: a warm start answers its first
// lenses from the persisted index before anything else competes for the thread (the catch-up run,
// the HTTP sidecar), and says in its log where the start-up's time went.
const started: TestLspClient[] = [];
after(async () => { for (const lsp of started) await lsp.stop(); });

type Lens = { command: { title: string } };

/** The `start-up +T ms: <step>` lines of a server's log, as step → T. */
function steps(logs: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of logs.join('\n').split('\n')) {
    const m = /start-up \+(\d+) ms: ([^(]+?)(?: \(|$)/.exec(line);
    if (m) out.set(m[2], Number(m[1]));
  }
  return out;
}

async function waitForSteps(lsp: TestLspClient, names: string[], timeoutMs = 30_000): Promise<Map<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = steps(lsp.logs);
    if (names.every((n) => found.has(n))) return found;
    if (Date.now() > deadline) throw new Error(`missing start-up steps ${names.filter((n) => !found.has(n)).join(', ')}:\n${lsp.logs.join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a warm start answers the first lens before its catch-up run and before the sidecar starts; the log times each step', async () => {
  assert.ok(fs.existsSync(path.join(__dirname, '..', '..', 'dist', 'server.js')), 'run `npm run build` first');
  const folder = copyFixture('e2e-app');
  const dataDir = tempDir('loupe-lsp-startup-');
  const key = randomUUID();
  const sidecar = { sidecar: { enabled: true, port: 0 } };

  const cold = await startLspClient(folder, dataDir, key, sidecar);
  started.push(cold);
  await cold.ready();
  // Nobody asked for a lens: the sidecar still starts (after the start-up deadline at most).
  const coldSteps = await waitForSteps(cold, ['sidecar listening', 'first index run finished']);
  assert.ok(!coldSteps.has('first lens answered'));
  await cold.stop();

  const warm = await startLspClient(folder, dataDir, key, sidecar);
  started.push(warm);
  const uri = warm.uri('src/util/format.ts');
  const found = (await warm.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } })) as Lens[];
  assert.equal(found[0]?.command.title, '5 dependents · 1 entry point · 1 test', 'the persisted index answers before any run');
  const at = await waitForSteps(warm, [
    'server loaded', 'initialize received', 'index opened', 'initialize answered', 'initialized',
    'first lens request', 'first lens answered', 'first index run started', 'first index run finished', 'sidecar listening',
  ]);
  assert.ok(at.get('first lens answered')! <= at.get('first index run started')!, `the catch-up run waited for the lens: ${JSON.stringify([...at])}`);
  assert.ok(at.get('first lens answered')! <= at.get('sidecar listening')!, 'the sidecar waited for the lens');
  assert.ok(at.get('server loaded')! <= at.get('initialize received')! && at.get('index opened')! <= at.get('initialize answered')!);
  assert.match(warm.logs.join('\n'), /indexed e2e-app: \d+ files in \d+ ms \(no change\)/, 'the catch-up run still happens');
});

test('initialize and the first lenses do not wait for the owner\'s key: a server whose key arrives late answers lenses first; what acts as the owner waits for the key, then works', async () => {
  const folder = copyFixture('e2e-app');
  const dataDir = tempDir('loupe-lsp-startup-');
  const key = randomUUID();
  const search = (lsp: TestLspClient) => lsp.connection.sendRequest('loupe/search', { query: 'formatPrice', scan_mode: 'grep_code', scope: 'code' }) as Promise<{ total: number }>;

  // The first start ever, without a key (the editor's SecretStorage has not answered): the folder is indexed
  // for the owner all the same; the key, when it comes, is the owner's.
  const cold = await startLspClient(folder, dataDir, '', { sidecar: { enabled: true, port: 0 } });
  started.push(cold);
  await cold.ready();
  await cold.connection.sendNotification('loupe/ownerKey', { key });
  await waitForSteps(cold, ['owner key adopted', 'sidecar listening']);
  assert.ok((await search(cold)).total > 0);
  const { url } = (await cold.connection.sendRequest('loupe/sidecar')) as { url: string };
  assert.equal((await fetch(`${url}/v2/repos`, { headers: { 'x-api-key': key } })).status, 200, 'the sidecar takes the key that came late');
  await cold.stop();
  // The owner holds exactly that key: none was minted while it was on its way (a key nobody holds).
  const accounts = new Database(path.join(dataDir, 'accounts.db'), { readonly: true });
  const keys = accounts.prepare('SELECT key_hash, state FROM api_keys').all() as { key_hash: string; state: string }[];
  accounts.close();
  assert.deepEqual(keys, [{ key_hash: createHash('sha256').update(key).digest('hex'), state: 'active' }]);

  // A warm start whose key is late: initialize and the lenses are answered; a search (it acts as the owner) waits.
  const warm = await startLspClient(folder, dataDir, '');
  started.push(warm);
  const uri = warm.uri('src/util/format.ts');
  const lenses = (await warm.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } })) as Lens[];
  assert.equal(lenses[0]?.command.title, '5 dependents · 1 entry point · 1 test', 'lenses without the key');
  let searched = false;
  const pending = search(warm).then((r) => { searched = true; return r; });
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(searched, false, 'the search waits for the owner\'s key');
  await warm.connection.sendNotification('loupe/ownerKey', { key });
  assert.ok((await pending).total > 0, 'and runs as the owner once it came');
  const at = await waitForSteps(warm, ['initialize without the owner key', 'initialize answered', 'first lens answered', 'owner key received', 'owner key adopted']);
  assert.ok(at.get('first lens answered')! <= at.get('owner key received')!, `lenses before the key: ${JSON.stringify([...at])}`);
  // The same key again (a restart's initialize carries it; the client sends it once running) changes nothing.
  await warm.connection.sendNotification('loupe/ownerKey', { key });
  assert.ok((await search(warm)).total > 0);
});

test('a warm start with a document open holds its catch-up run past the 4 s deadline until VS Code asks for that document\'s lenses', async () => {
  const folder = copyFixture('e2e-app');
  const dataDir = tempDir('loupe-lsp-startup-');
  const key = randomUUID();
  const cold = await startLspClient(folder, dataDir, key);
  started.push(cold);
  await cold.ready();
  await cold.stop();

  const warm = await startLspClient(folder, dataDir, key);
  started.push(warm);
  await warm.open('src/util/format.ts', fs.readFileSync(path.join(folder, 'src/util/format.ts'), 'utf8'));
  // VS Code asks late while its extension host activates the other extensions (5–10 s after initialize).
  await new Promise((r) => setTimeout(r, 6_000));
  assert.ok(!steps(warm.logs).has('first index run started'), `the catch-up run waited for the open document's lenses:\n${warm.logs.join('\n')}`);
  const lenses = (await warm.connection.sendRequest('textDocument/codeLens', { textDocument: { uri: warm.uri('src/util/format.ts') } })) as Lens[];
  assert.equal(lenses[0]?.command.title, '5 dependents · 1 entry point · 1 test');
  const at = await waitForSteps(warm, ['first lens answered', 'first index run started', 'first index run finished']);
  assert.ok(at.get('first lens answered')! <= at.get('first index run started')!, JSON.stringify([...at]));
});

test('Node\'s compile cache is written while the server runs, so a start after a killed one (a window reload) still reads it', async () => {
  const cache = tempDir('loupe-lsp-compile-cache-');
  const lsp = await startLspClient(copyFixture('e2e-app'), tempDir('loupe-lsp-startup-'), randomUUID(), {}, { ...process.env, NODE_COMPILE_CACHE: cache });
  started.push(lsp);
  await lsp.ready();
  const entries = () => fs.readdirSync(cache, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  const deadline = Date.now() + 10_000;
  while (!entries().some((e) => fs.statSync(path.join(e.parentPath, e.name)).size > 100_000) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  lsp.child.kill('SIGKILL');
  assert.ok(entries().some((e) => fs.statSync(path.join(e.parentPath, e.name)).size > 100_000), 'the bundle\'s compiled code is on disk before any exit');
});

// The language server's bundle holds what the first lens needs; the HTTP sidecar's packages (Fastify,
// OpenAPI, MCP, A2A, Ajv) and the engine's occasional ones (undici, nodemailer, …) are in dist/vendor.js,
// loaded when first used (esbuild.mjs). A hook in the server process records every file it loads.
function recordLoads(dir: string): { env: NodeJS.ProcessEnv; loaded(): { file: string; at: number }[] } {
  const hook = path.join(dir, 'record-loads.cjs');
  const out = path.join(dir, 'loads.txt');
  fs.writeFileSync(hook, `const fs = require('node:fs');
require('node:module').registerHooks({
  load(url, context, next) { fs.appendFileSync(${JSON.stringify(out)}, Math.round(performance.now()) + ' ' + url + '\\n'); return next(url, context); },
});\n`);
  return {
    env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${hook}` },
    loaded: () => (fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '').trim().split('\n').filter(Boolean)
      .map((line) => ({ at: Number(line.split(' ')[0]), file: line.slice(line.indexOf(' ') + 1) })),
  };
}

test('the built server answers initialize and lenses without loading the HTTP stack; its sidecar binds the port at once, builds on the first request and serves the whole API', async () => {
  const dist = path.join(__dirname, '..', '..', 'dist');
  assert.ok(fs.existsSync(path.join(dist, 'vendor.js')), 'run `npm run build` first');
  const folder = copyFixture('e2e-app');
  const dataDir = tempDir('loupe-lsp-startup-');
  const key = randomUUID();
  const isVendor = (f: { file: string }) => f.file.endsWith('/dist/vendor.js');

  // Sidecar off: a cold start indexes, answers lenses; vendor.js never loads.
  const off = recordLoads(tempDir('loupe-lsp-loads-'));
  const quiet = await startLspClient(folder, dataDir, key, { sidecar: { enabled: false, port: 0 } }, off.env);
  started.push(quiet);
  await quiet.ready();
  const uri = quiet.uri('src/util/format.ts');
  const lenses = (await quiet.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } })) as Lens[];
  assert.equal(lenses[0]?.command.title, '5 dependents · 1 entry point · 1 test');
  await waitForSteps(quiet, ['first index run finished']);
  assert.ok(off.loaded().some((f) => f.file.endsWith('/dist/server.js')), 'the hook sees the server load');
  assert.deepEqual(off.loaded().filter(isVendor), [], 'no sidecar, no vendor.js');
  await quiet.stop();

  // Sidecar on (a warm start): the port is bound after the first lens, but nothing of the HTTP stack loads
  // until a request comes; then the sidecar serves HTTP, A2A and MCP, behind its guard.
  const on = recordLoads(tempDir('loupe-lsp-loads-'));
  const lsp = await startLspClient(folder, dataDir, key, { sidecar: { enabled: true, port: 0 } }, on.env);
  started.push(lsp);
  const warm = (await lsp.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } })) as Lens[];
  assert.equal(warm[0]?.command.title, '5 dependents · 1 entry point · 1 test');
  await waitForSteps(lsp, ['first lens answered', 'sidecar listening', 'first index run finished']);
  const { url } = (await lsp.connection.sendRequest('loupe/sidecar')) as { url: string };
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.deepEqual(on.loaded().filter(isVendor), [], 'listening loads nothing of the HTTP stack');
  // The server has the application's limits before the application: a header block over 16 KiB is a 431 in the error shape.
  const big = await fetch(`${url}/v2/repos`, { headers: { 'x-api-key': key, 'x-pad': 'a'.repeat(20_000) } });
  assert.equal(big.status, 431);
  assert.equal(((await big.json()) as { code: string }).code, 'HEADERS_TOO_LARGE');
  assert.deepEqual(on.loaded().filter(isVendor), [], 'a refused request builds nothing');

  // The first request, from a page that rebinds a name to 127.0.0.1: the application is built for it and refuses it.
  const port = Number(new URL(url).port);
  const rebound = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/v2/repos', headers: { host: 'evil.example', 'x-api-key': key } }, (res) => {
      let body = '';
      res.on('data', (d) => { body += String(d); });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(rebound.status, 403);
  assert.equal((JSON.parse(rebound.body) as { code: string }).code, 'HOST_NOT_ALLOWED');
  assert.ok(on.loaded().some(isVendor), 'the first request loaded vendor.js');

  const get = (p: string) => fetch(`${url}${p}`, { headers: { 'x-api-key': key } });
  const openapi = (await (await get('/openapi.json')).json()) as { paths: Record<string, unknown> };
  assert.ok(openapi.paths['/v2/search'] && openapi.paths['/v2/repos'], 'the OpenAPI document lists the routes');
  const repos = (await (await get('/v2/repos')).json()) as { data: { name: string }[] };
  assert.ok(repos.data.some((r) => r.name === 'e2e-app'), JSON.stringify(repos));
  // An engine error crosses into the HTTP error handler as the one LoupeError class: a 404 in the error shape, not a 500.
  const missing = await get(`/v2/files/${randomUUID()}`);
  assert.equal(missing.status, 404);
  assert.equal(((await missing.json()) as { code: string }).code, 'NOT_FOUND');
  assert.equal((await get('/.well-known/agent-card.json')).status, 200);
  const mcp = new Client({ name: 'startup-test', version: '1' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
  try {
    assert.ok((await mcp.listTools()).tools.some((t) => t.name === 'search'));
  } finally {
    await mcp.close();
  }
});
