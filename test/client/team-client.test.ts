import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { copyFixture, createTestApp, indexFolder, type TestApp } from '../helpers/engine';
import { freePort } from '../e2e/harness/code-server';
import { TeamClient } from '../../client/team/team-client';
import { teamDocument } from '../../client/team/merge';

/**
 * The extension's team server client (undici) against real HTTP: a real Loupe HTTP server (the V2 API on a
 * real SQLite index, listening on 127.0.0.1) for searches and file reads, and the ways a server can be wrong
 * (nothing listening, a refused key, something that is not Loupe), each one sentence for the panel.
 */
let t: TestApp;
let base: URL;
let folder: string;
const others: http.Server[] = [];

before(async () => {
  t = await createTestApp();
  folder = copyFixture('e2e-app');
  await indexFolder(t, folder);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = new URL(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`);
});

after(async () => {
  await Promise.all(others.map((s) => { s.closeAllConnections(); return new Promise((r) => s.close(r)); }));
  await t?.close();
});

async function serve(handler: http.RequestListener): Promise<URL> {
  const server = http.createServer(handler);
  others.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
}

test('search finds the team server\'s hits, labelled with its host, and a hit\'s file reads back as indexed', async () => {
  const client = new TeamClient(base, t.key);
  try {
    const result = await client.search({ query: 'formatPrice', scope: 'code', scan_mode: 'semantic' });
    assert.ok(result.hits.length > 0, 'hits');
    assert.ok(result.hits.every((h) => (h as { source?: { label: string } }).source?.label === base.host));
    const hit = result.hits.find((h) => h.file_path === 'src/util/format.ts');
    assert.ok(hit?.uri, JSON.stringify(result.hits.map((h) => h.file_path)));
    const url = new URL(hit.uri.replace(/^loupe-team:/, 'http:'));
    const doc = teamDocument({ authority: url.host, path: decodeURIComponent(url.pathname), query: decodeURIComponent(url.search.slice(1)) })!;
    assert.equal(doc.host, base.host);
    const file = await client.fileContent(doc.repoId, doc.filePath);
    assert.equal(file.file_path, 'src/util/format.ts');
    assert.equal(file.content, fs.readFileSync(path.join(folder, 'src/util/format.ts'), 'utf8'));
    assert.equal(file.language, 'typescript');
    // A file the index does not hold is the API's 404, said as such.
    await assert.rejects(client.fileContent(doc.repoId, 'src/nope.ts'), /answered 404 NOT_FOUND/);
    await assert.rejects(client.fileContent(doc.repoId, '../etc/passwd'), /answered 400/);
  } finally {
    await client.close();
  }
});

test('a base URL with a path prefix reaches the API under it', async () => {
  const seen: string[] = [];
  const prefixed = await serve((req, res) => {
    seen.push(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: 'success', data: { results: [], total: 0, search: { warnings: [], timings: { totalMs: 3 } } }, meta: {} }));
  });
  const client = new TeamClient(new URL('team/', prefixed), 'k');
  try {
    const result = await client.search({ query: 'anything' });
    assert.deepEqual(result, { hits: [], total: 0, tookMs: 3, warnings: [] });
    assert.deepEqual(seen, ['/team/v2/search']);
  } finally {
    await client.close();
  }
});

test('nothing listening, a refused or missing key, something that is not Loupe: one clear sentence each', async () => {
  const closed = new URL(`http://127.0.0.1:${await freePort()}`);
  const clients: TeamClient[] = [];
  const client = (url: URL, key?: string, timeoutMs?: number) => { const c = new TeamClient(url, key, timeoutMs); clients.push(c); return c; };
  try {
    await assert.rejects(client(closed, 'k').search({ query: 'x' }), new RegExp(`cannot reach the team server at ${closed.origin}: connection refused`));
    await assert.rejects(client(base, 'not-a-key').search({ query: 'formatPrice' }), /refused the API key \(401\): run "Loupe: Set Team Server API Key"/);
    await assert.rejects(client(base, undefined).search({ query: 'formatPrice' }), /no API key for the team server at .*: run "Loupe: Set Team Server API Key"/);
    const html = await serve((_req, res) => { res.statusCode = 404; res.setHeader('content-type', 'text/html'); res.end('<html>Not here</html>'); });
    await assert.rejects(client(html, 'k').search({ query: 'x' }), /\/v2\/search did not answer as a Loupe team server \(HTTP 404: <html>Not here<\/html>\): check loupe.server.url/);
    const silent = await serve(() => { /* never answers */ });
    await assert.rejects(client(silent, 'k', 300).search({ query: 'x' }), /cannot reach the team server at .*: no answer within 300 ms/);
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
});
