import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { copyFixture, createTestApp, indexFolder, tempDir } from '../helpers/engine';
import { startSidecar } from '../../server/host';

/**
 * The official MCP client (@modelcontextprotocol/sdk) against Loupe's MCP server, over
 * Streamable HTTP at /mcp on a real sidecar socket and over stdio (`server/mcp-cli.ts` as an agent
 * starts it): it lists the tools and calls every one, the research answer streaming as progress
 * notifications. The tools run the HTTP operations, so they charge and write history as HTTP does.
 */
const TOOLS = ['blast_radius', 'blueprint', 'file_docs', 'repos', 'research', 'scope', 'search'];
const textOf = (r: unknown) => ((r as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd, stdio: 'pipe' });

/** A copy of the ts-paths fixture as a git repository with one uncommitted change. */
function gitFixture(): string {
  const folder = copyFixture('ts-paths');
  git(folder, 'init', '-q');
  git(folder, 'add', '-A');
  git(folder, 'commit', '-qm', 'fixture');
  fs.appendFileSync(path.join(folder, 'src/lib/math.ts'), '\nexport const TAU_ROUGH = 6.28;\n');
  return folder;
}

/**
 * The progress notifications a transport delivers, read as they arrive. The SDK's client (1.32)
 * dispatches a notification a microtask later but a response at once, so progress that reaches it
 * in the same read as the response is reported as an "unknown token" and never reaches `onprogress`
 * (modelcontextprotocol/typescript-sdk#2580: "a race servers cannot avoid"). What the server sent is
 * what this test checks, so it reads the transport.
 */
function progressOf(transport: Transport): string[] {
  const messages: string[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const m = message as { method?: string; params?: { message?: string } };
    if (m.method === 'notifications/progress' && m.params?.message) messages.push(m.params.message);
    deliver?.(message, extra);
  };
  return messages;
}

/** Calls every tool once and checks what an agent would read. */
async function callEveryTool(client: Client, repo: string | undefined) {
  const tools = (await client.listTools()).tools;
  assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
  // Agents pay for the descriptions in every prompt: about 4 characters a token, 2,000 tokens at most.
  const descriptionChars = JSON.stringify(tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }))).length;
  assert.ok(descriptionChars / 4 < 2000, `${descriptionChars} characters of tool descriptions`);
  const args = (extra: Record<string, unknown>) => ({ ...(repo ? { repo } : {}), ...extra });
  // A shared 2-core machine under load can take longer than the client's 60 s default.
  const slow = { timeout: 180_000 };

  assert.match(textOf(await client.callTool({ name: 'repos', arguments: {} }, undefined, slow)), /ts-paths/);
  const search = textOf(await client.callTool({ name: 'search', arguments: args({ query: 'multiply two numbers' }) }, undefined, slow));
  assert.match(search, /src\/lib\/math\.ts/);
  const grep = textOf(await client.callTool({ name: 'search', arguments: args({ query: 'PI_ROUGH', mode: 'grep_code' }) }, undefined, slow));
  assert.match(grep, /math\.ts:\d+/);
  const chunks = progressOf(client.transport!);
  // onprogress asks the server for progress (it sends a progressToken); what arrives is read above.
  const research = await client.callTool({ name: 'research', arguments: { question: 'where are two numbers multiplied?' } }, undefined, {
    ...slow, onprogress: () => {},
  });
  assert.ok(chunks.length > 1, `${chunks.length} progress chunks; the answer: ${textOf(research).slice(0, 400)}`);
  assert.ok(textOf(research).startsWith(chunks.join('')));
  assert.match(textOf(research), /Sources:\n- .*src\/lib\/math\.ts/);
  assert.match(textOf(research), /conversation_id: [0-9a-f-]{36}/);
  const radius = textOf(await client.callTool({ name: 'blast_radius', arguments: args({ files: ['src/lib/math.ts'] }) }, undefined, slow));
  assert.match(radius, /src\/app\/area\.ts/);
  const diff = textOf(await client.callTool({ name: 'blast_radius', arguments: args({ uncommitted: true }) }, undefined, slow));
  assert.match(diff, /working_tree: 1 changed files/);
  assert.match(diff, /src\/lib\/math\.ts: \d+ dependents/);
  assert.match(textOf(await client.callTool({ name: 'blueprint', arguments: args({}) }, undefined, slow)), /ts-paths/);
  const docs = textOf(await client.callTool({ name: 'file_docs', arguments: args({ path: 'src/lib/math.ts' }) }, undefined, slow));
  assert.match(docs, /math\.ts|being generated/);
  const scope = textOf(await client.callTool({ name: 'scope', arguments: args({ include: ['functions'], name: 'add' }) }, undefined, slow));
  assert.match(scope, /add/);
  // An operation's refusal is a tool error an agent can read, not a protocol failure.
  const missing = await client.callTool({ name: 'file_docs', arguments: args({ path: 'no/such/file.ts' }) }, undefined, slow);
  assert.equal(missing.isError, true);
  assert.match(textOf(missing), /404/);
  // Resources: the blueprint of each repository, file docs by template.
  const resources = (await client.listResources()).resources;
  assert.ok(resources.some((r) => r.uri.endsWith('/blueprint')));
  const blueprint = await client.readResource({ uri: resources.find((r) => r.uri.endsWith('/blueprint'))!.uri });
  assert.match(String((blueprint.contents[0] as { text?: string }).text), /ts-paths/);
}

test('MCP over Streamable HTTP at /mcp: the official client lists and calls every tool; keys by X-API-Key or Bearer; the guard holds', async () => {
  const t = await createTestApp();
  const folder = gitFixture();
  await indexFolder(t, folder);
  const sidecar = await startSidecar(t.engine, { host: '127.0.0.1', port: 0 });
  const connect = async (headers: Record<string, string>) => {
    const client = new Client({ name: 'loupe-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${sidecar.url}/mcp`), { requestInit: { headers } }));
    return client;
  };
  try {
    const client = await connect({ 'X-API-Key': t.key });
    try {
      await callEveryTool(client, folder);
    } finally {
      await client.close();
    }
    const bearer = await connect({ Authorization: `Bearer ${t.key}` });
    assert.match(textOf(await bearer.callTool({ name: 'repos', arguments: {} })), /ts-paths/);
    await bearer.close();

    // No key, a bad key: 401 with WWW-Authenticate. A foreign Host: the guard's 403.
    const post = (headers: Record<string, string>) => fetch(`${sidecar.url}/mcp`, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    for (const headers of [{}, { 'x-api-key': 'not-a-key' }, { authorization: 'Bearer 00000000-0000-4000-8000-000000000000' }] as Record<string, string>[]) {
      const res = await post(headers);
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /X-API-Key/);
    }
    const { request } = await import('node:http');
    const foreign = await new Promise<number>((resolve, reject) => {
      const req = request(`${sidecar.url}/mcp`, { method: 'POST', headers: { host: 'evil.example', 'x-api-key': t.key, 'content-type': 'application/json' } }, (res) => { res.resume(); resolve(res.statusCode!); });
      req.on('error', reject);
      req.end('{}');
    });
    assert.equal(foreign, 403);
    assert.equal((await fetch(`${sidecar.url}/mcp`, { headers: { 'x-api-key': t.key } })).status, 405);
  } finally {
    await sidecar.close();
    await t.close();
  }
});

test('MCP over stdio: `server/mcp-cli.ts <folder>` as an agent starts it; the official client calls every tool', async () => {
  const folder = gitFixture();
  const dataDir = tempDir('loupe-mcp-data-');
  const root = path.join(__dirname, '..', '..');
  const transport = new StdioClientTransport({
    command: process.execPath, args: ['--import', 'tsx', path.join(root, 'server', 'mcp-cli.ts'), folder, '--data-dir', dataDir, '--no-watch'],
    cwd: root, stderr: 'pipe', env: { ...process.env, LOUPE_HOME: dataDir } as Record<string, string>,
  });
  const client = new Client({ name: 'loupe-test', version: '1.0.0' });
  try {
    await client.connect(transport);
    // The folder is indexed on start; the repos tool says when it is ready.
    const deadline = Date.now() + 60_000;
    while (!/ready/.test(textOf(await client.callTool({ name: 'repos', arguments: {} }, undefined, { timeout: 180_000 })))) {
      assert.ok(Date.now() < deadline, 'indexing did not finish');
      await new Promise((r) => setTimeout(r, 200));
    }
    await callEveryTool(client, undefined);
  } finally {
    await client.close();
  }
});
