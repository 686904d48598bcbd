import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { copyFixture, createTestApp, indexFolder } from '../helpers/engine';
import { startSidecar } from '../../server/host';

const run = promisify(execFile);
const VERSION = '2.12.0';

/**
 * The MCP Inspector's CLI (an independent client from the MCP project) lists Loupe's tools and
 * calls one against the running sidecar. It is installed from the npm registry into a cache on
 * first use (about 110 MB, kept in ~/.cache/loupe-mcp-inspector), not as a project dependency.
 */
async function inspectorCli(): Promise<string> {
  const dir = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'loupe-mcp-inspector', VERSION);
  const entry = path.join(dir, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
  if (!fs.existsSync(entry)) {
    fs.mkdirSync(dir, { recursive: true });
    await run('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--prefix', dir, `@modelcontextprotocol/inspector@${VERSION}`], { timeout: 600_000 });
  }
  return entry;
}

test('the MCP Inspector CLI lists the tools and calls one against the running sidecar', { timeout: 660_000 }, async () => {
  const cli = await inspectorCli();
  const t = await createTestApp();
  await indexFolder(t, copyFixture('ts-paths'));
  const sidecar = await startSidecar(t.engine, { host: '127.0.0.1', port: 0 });
  const inspector = (...args: string[]) => run(process.execPath, [cli, '--cli', `${sidecar.url}/mcp`, '--transport', 'http', '--header', `X-API-Key: ${t.key}`, ...args],
    { timeout: 60_000, env: { ...process.env, MCP_CATALOG_PATH: path.join(os.tmpdir(), `loupe-inspector-${process.pid}.json`) } });
  try {
    const listed = JSON.parse((await inspector('--method', 'tools/list')).stdout) as { tools: { name: string }[] };
    assert.deepEqual(listed.tools.map((x) => x.name).sort(), ['blast_radius', 'blueprint', 'file_docs', 'repos', 'research', 'scope', 'search']);
    const called = JSON.parse((await inspector('--method', 'tools/call', '--tool-name', 'search', '--tool-arg', 'query=multiply two numbers')).stdout);
    assert.match(JSON.stringify(called.content), /src\/lib\/math\.ts/);
    // Without the key the sidecar refuses, and the Inspector says so.
    await assert.rejects(run(process.execPath, [cli, '--cli', `${sidecar.url}/mcp`, '--transport', 'http', '--method', 'tools/list'], { timeout: 60_000 }));
  } finally {
    await sidecar.close();
    await t.close();
  }
});
