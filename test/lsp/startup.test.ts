import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
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
