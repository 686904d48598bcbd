import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { copyFixture, tempDir } from '../helpers/engine';
import { ROOT } from '../helpers/cli';
import { startSlowChatServer } from '../helpers/slow-chat-server';

const WORKER = path.join(__dirname, 'workers', 'sidecar.ts');
const KEY = '6c1f0a2b-8d3e-4f5a-9b6c-7d8e9f0a1b2c';

async function startSidecarProcess(dataDir: string, folder: string, config: object): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, dataDir, folder, KEY, JSON.stringify(config)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => { err += d; });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no READY:\n${err}`)), 30_000);
    child.stdout!.on('data', (d) => { out += d; const m = /READY (\S+)/.exec(out); if (m) { clearTimeout(timer); resolve(m[1]); } });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`exited ${code}:\n${err}`)); });
  });
  return { child, url };
}

const killed = (child: ChildProcess) => new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGKILL'); });

test('kill -9 during paid calls and a research stream: every acknowledged charge kept with its history row, nothing charged for the unfinished stream', { timeout: 120_000 }, async (t) => {
  const chat = await startSlowChatServer({ chunks: 400, intervalMs: 25 });
  const folder = copyFixture('ts-paths');
  const dataDir = tempDir('loupe-kill-paid-');
  const config = { research: { openai: { baseUrl: chat.baseUrl, models: ['slow-model'], idleTimeoutMs: 30_000 } } };
  const { child, url } = await startSidecarProcess(dataDir, folder, config);
  // A timed-out test keeps running: kill what it started so the file ends (it hung for 20 minutes on a loaded machine).
  const children = [child];
  let stop = false;
  t.signal.addEventListener('abort', () => { for (const c of children) c.kill('SIGKILL'); void chat.close(); });
  const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
  try {
    // Wait for the folder to be indexed, so the stream has something to ground on.
    let repoId = '';
    for (let i = 0; i < 200; i++) {
      const res = await request(`${url}/v2/repos`, { headers });
      const body = await res.body.json() as any;
      repoId = body.data?.[0]?.repo_id ?? '';
      if (body.data?.[0]?.state === 'ready') break;
      await new Promise((r) => setTimeout(r, 100));
    }

    // A research stream, read until the model is mid-answer.
    const stream = await request(`${url}/v2/search`, {
      method: 'POST', headers: { ...headers, accept: 'application/x-ndjson' },
      body: JSON.stringify({ query: 'how is the area computed', chat: true, model: 'slow-model' }),
    });
    assert.equal(stream.statusCode, 200);
    let received = '';
    for await (const piece of stream.body) {
      received += piece;
      if ((received.match(/"type":"chunk"/g) ?? []).length >= 5) break;
    }
    assert.ok(chat.active() >= 1, 'the model is still answering');

    // Paid calls that write a history row (a file search: a plain listing writes none) in flight
    // from several clients; the process dies under them.
    let sent = 0;
    let acknowledged = 0;
    const loop = async () => {
      while (!stop) {
        sent++;
        try {
          const res = await request(`${url}/v2/files/${repoId}?search=area&limit=5`, { headers });
          await res.body.text();
          if (res.statusCode === 200) acknowledged++;
        } catch { return; }
      }
    };
    const loops = Array.from({ length: 8 }, loop);
    const deadline = Date.now() + 60_000;
    while (acknowledged < 30) {
      if (Date.now() > deadline || t.signal.aborted) { stop = true; throw new Error(`only ${acknowledged} of 30 calls acknowledged in 60 s`); }
      await new Promise((r) => setTimeout(r, 5));
    }
    await killed(child);
    stop = true;
    await Promise.all(loops);
    assert.doesNotMatch(received, /"type":"done"/, 'the stream was cut before it finished');

    const db = new Database(path.join(dataDir, 'accounts.db'));
    try {
      assert.equal(db.pragma('quick_check', { simple: true }), 'ok');
      const charges = (db.prepare("SELECT coalesce(sum(calls), 0) AS n, coalesce(sum(credits), 0) AS c FROM credit_ledger WHERE operation = 'files.list'").get() as { n: number; c: number });
      const history = (db.prepare("SELECT count(*) AS n, count(DISTINCT id) AS d FROM history WHERE operation = 'files.list'").get() as { n: number; d: number });
      assert.ok(charges.n >= acknowledged, `every acknowledged call is charged: ${charges.n} charges, ${acknowledged} acknowledged`);
      assert.ok(charges.n <= sent + 200, 'no call charged twice');
      assert.equal(history.n, charges.n, 'one history row per charge: none lost, none doubled');
      assert.equal(history.d, history.n);
      const research = db.prepare("SELECT count(*) AS n FROM credit_ledger WHERE operation NOT IN ('repos.list', 'files.list')").get() as { n: number };
      const polls = db.prepare("SELECT count(*) AS n FROM history WHERE operation = 'repos.list'").get() as { n: number };
      assert.equal(polls.n, 0, 'the readiness polls were charged but wrote no history');
      assert.equal(research.n, 0, 'nothing charged for the research that never finished');
      const researchHistory = db.prepare("SELECT count(*) AS n FROM history WHERE category = 'research'").get() as { n: number };
      assert.equal(researchHistory.n, 0, 'no history row for it either');
    } finally {
      db.close();
    }

    // After a restart the same research runs to the end and is charged once.
    const again = await startSidecarProcess(dataDir, folder, config);
    children.push(again.child);
    try {
      const res = await request(`${again.url}/v2/search`, {
        method: 'POST', headers: { ...headers, accept: 'application/x-ndjson' },
        body: JSON.stringify({ query: 'how is the area computed', chat: true, model: 'slow-model' }),
      });
      const text = await res.body.text();
      const done = text.trim().split('\n').map((l) => JSON.parse(l)).find((e) => e.type === 'done');
      assert.ok(done, text.slice(-300));
      assert.ok(done.credits_used > 0);
    } finally {
      await killed(again.child);
    }
    const db2 = new Database(path.join(dataDir, 'accounts.db'), { readonly: true });
    try {
      const rows = db2.prepare("SELECT count(*) AS n FROM history WHERE category = 'research'").get() as { n: number };
      assert.equal(rows.n, 1);
    } finally {
      db2.close();
    }
  } finally {
    stop = true;
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await chat.close();
  }
});

test('a client that hangs up mid-stream stops the model call at once', { timeout: 60_000 }, async (t) => {
  const chat = await startSlowChatServer({ chunks: 400, intervalMs: 25 });
  const folder = copyFixture('ts-paths');
  const { child, url } = await startSidecarProcess(tempDir('loupe-hangup-'), folder, { research: { openai: { baseUrl: chat.baseUrl, models: ['slow-model'] } } });
  t.signal.addEventListener('abort', () => { child.kill('SIGKILL'); void chat.close(); });
  try {
    const controller = new AbortController();
    const stream = await request(`${url}/v2/search`, {
      method: 'POST', signal: controller.signal,
      headers: { 'x-api-key': KEY, 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify({ query: 'how is the area computed', chat: true, model: 'slow-model' }),
    });
    let received = '';
    try {
      for await (const piece of stream.body) {
        received += piece;
        if ((received.match(/"type":"chunk"/g) ?? []).length >= 3) break;
      }
    } catch { /* aborted */ }
    assert.equal(chat.active(), 1);
    const hungUp = Date.now();
    controller.abort();
    while (chat.active() > 0 && Date.now() - hungUp < 5000) await new Promise((r) => setTimeout(r, 10));
    assert.equal(chat.active(), 0, 'the model request was cancelled');
    assert.equal(chat.disconnects(), 1);
    assert.ok(Date.now() - hungUp < 1000, `stopped ${Date.now() - hungUp} ms after the client left`);
  } finally {
    await killed(child);
    await chat.close();
  }
});
