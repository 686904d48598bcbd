import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { copyFixture, createTestApp, indexFolder, type TestApp } from '../helpers/engine';
import { freePort } from '../e2e/harness/code-server';
import { TeamClient } from '../../client/team/team-client';
import { teamDocument, teamResearchChunks } from '../../client/team/merge';
import type { ResearchEvent } from '../../protocol/api/research';

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

/** Every event of a team research stream (as the panel's chunks too), or the sentence it failed with. */
async function researchAll(client: TeamClient, req: Parameters<TeamClient['research']>[0], signal?: AbortSignal) {
  const events: ResearchEvent[] = [];
  for await (const e of client.research(req, signal)) events.push(e);
  return events;
}

test('research streams the team server\'s answer: search first, the text in pieces, done with files that open from the team server; a follow-up continues its conversation', async () => {
  const client = new TeamClient(base, t.key);
  try {
    const events = await researchAll(client, { question: 'how is a price formatted' });
    assert.equal(events[0].type, 'search');
    assert.equal(events.at(-1)!.type, 'done');
    assert.ok(events.filter((e) => e.type === 'chunk').length > 1, 'the answer comes in pieces');
    const done = events.at(-1) as Extract<ResearchEvent, { type: 'done' }>;
    assert.ok(done.conversation_id, 'a conversation to continue');
    const source = { kind: 'team' as const, label: base.host };
    const chunks = events.flatMap((e) => teamResearchChunks(e, 's1', source));
    const text = chunks.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('');
    assert.match(text, /formatPrice/);
    const citations = chunks.flatMap((c) => (c.type === 'citation' ? [c.citation] : []));
    const cited = citations.find((c) => c.path === 'src/util/format.ts');
    assert.ok(cited, citations.map((c) => c.path).join(', '));
    assert.match(cited.uri, new RegExp(`^loupe-team://${base.host.replace(/\./g, '\\.')}/`));
    // The citation opens as the team server's text: the same file, read through GET /v2/files/{repo}/{file}/content.
    const url = new URL(cited.uri.replace(/^loupe-team:/, 'http:'));
    const doc = teamDocument({ authority: url.host, path: decodeURIComponent(url.pathname), query: decodeURIComponent(url.search.slice(1)) })!;
    assert.equal((await client.fileContent(doc.repoId, doc.filePath)).content, fs.readFileSync(path.join(folder, 'src/util/format.ts'), 'utf8'));
    assert.equal(chunks[0].type, 'status');

    const followUp = await researchAll(client, { question: 'where is it called?', conversationId: done.conversation_id! });
    const second = followUp.at(-1) as Extract<ResearchEvent, { type: 'done' }>;
    assert.equal(second.type, 'done');
    assert.equal(second.conversation_id, done.conversation_id);
    // Refused before the stream: an unknown model is the API's 400, said as such.
    await assert.rejects(researchAll(client, { question: 'how is a price formatted', model: 'no-such-model' }), /answered 400 UNKNOWN_MODEL/);
  } finally {
    await client.close();
  }
});

test('research that fails says so in one sentence: unreachable, refused key, an error line, a stream cut short, not Loupe; Stop aborts it', async () => {
  const closed = new URL(`http://127.0.0.1:${await freePort()}`);
  const line = (o: unknown) => `${JSON.stringify(o)}\n`;
  const search = line({ type: 'search', results: [], total: 3, meta: {} });
  const ndjson = (res: http.ServerResponse) => { res.statusCode = 200; res.setHeader('content-type', 'application/x-ndjson'); };
  const errorLine = await serve((_req, res) => { ndjson(res); res.write(search); res.end(line({ type: 'error', message: 'the model is overloaded', code: 'UPSTREAM' })); });
  const cut = await serve((_req, res) => { ndjson(res); res.write(search); res.write(line({ type: 'chunk', text: 'The price ' })); setTimeout(() => res.destroy(), 50); });
  const short = await serve((_req, res) => { ndjson(res); res.end(search); });
  const html = await serve((_req, res) => { res.statusCode = 200; res.setHeader('content-type', 'text/html'); res.end('<html>hi</html>'); });
  const seen: { accept?: string; body: Record<string, unknown> }[] = [];
  const slow = await serve((req, res) => {
    let body = '';
    req.on('data', (d) => { body += String(d); });
    req.on('end', () => { seen.push({ accept: req.headers.accept, body: JSON.parse(body) as Record<string, unknown> }); ndjson(res); res.write(search); });
  });
  const clients: TeamClient[] = [];
  const client = (url: URL, key?: string) => { const c = new TeamClient(url, key); clients.push(c); return c; };
  try {
    await assert.rejects(researchAll(client(closed, 'k'), { question: 'x y' }), new RegExp(`cannot reach the team server at ${closed.origin}: connection refused`));
    await assert.rejects(researchAll(client(base, 'not-a-key'), { question: 'how is a price formatted' }), /refused the API key \(401\)/);
    await assert.rejects(researchAll(client(errorLine, 'k'), { question: 'x y' }), /the team server at .* could not answer: the model is overloaded \(UPSTREAM\)/);
    await assert.rejects(researchAll(client(cut, 'k'), { question: 'x y' }), /the team server at .* (stopped answering|stopped before its answer was complete)/);
    await assert.rejects(researchAll(client(short, 'k'), { question: 'x y' }), /the team server at .* stopped before its answer was complete/);
    await assert.rejects(researchAll(client(html, 'k'), { question: 'x y' }), /did not answer as a Loupe team server \(HTTP 200: <html>hi<\/html>\)/);
    // Stop: the stream (which would wait for more) ends at once as an abort.
    const controller = new AbortController();
    const events: ResearchEvent[] = [];
    await assert.rejects((async () => {
      for await (const e of client(slow, 'k').research({ question: 'how are prices formatted', conversationId: 'c-1' }, controller.signal)) {
        events.push(e);
        controller.abort();
      }
    })(), (error: Error) => error.name === 'AbortError');
    assert.deepEqual(events.map((e) => e.type), ['search']);
    assert.equal(seen[0].accept, 'application/x-ndjson');
    assert.deepEqual(seen[0].body, { query: 'how are prices formatted', scope: 'code', scan_mode: 'semantic', limit: 50, chat: true, conversation_id: 'c-1' });
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
});
