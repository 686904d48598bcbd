import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, tempDir } from '../helpers/engine';
import { killAtEnd, startCli, waitFor } from '../helpers/cli';

const KEY = '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f';

/**
 * The bundles load the TypeScript compiler on first use (esbuild.mjs): it is ~50 MB once loaded, and the
 * server's main thread, which answers requests, never parses. A module that reads the compiler when it is
 * imported (a constant computed from it) loads it there for the life of the server: on payload that was
 * +50 MB of peak and +16 MB after the cold index. A hook in every process and thread of the CLI records
 * who loads the compiler.
 */
test('a cold index loads the TypeScript compiler where files are parsed and imports resolved, never on the server\'s main thread', async (t) => {
  const dir = tempDir('loupe-lazy-compiler-');
  const out = path.join(dir, 'loads.txt');
  const hook = path.join(dir, 'record.cjs');
  fs.writeFileSync(hook, `const fs = require('node:fs'); const { threadId } = require('node:worker_threads');
require('node:module').registerHooks({ load(url, context, next) {
  if (url.includes('/node_modules/typescript/lib/typescript.js')) fs.appendFileSync(${JSON.stringify(out)}, process.pid + ' ' + threadId + '\\n');
  return next(url, context);
} });\n`);
  const cli = await startCli([copyFixture('ts-paths'), '--port', '0', '--data-dir', path.join(dir, 'data'), '--no-watch'],
    { LOUPE_API_KEY: KEY, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${hook}` });
  killAtEnd(t, cli.child);
  await waitFor(() => /^indexed ts-paths: [1-9]\d* added/m.test(cli.stderr()) || undefined, 30_000, 'the summary line');
  const loads = fs.existsSync(out) ? fs.readFileSync(out, 'utf8').trim().split('\n').filter(Boolean) : [];
  assert.ok(loads.length > 0, 'the parse loads the compiler somewhere (the hook works)');
  assert.deepEqual(loads.filter((l) => l === `${cli.child.pid} 0`), [], `loaded by the server's main thread: ${loads.join(', ')}`);
  cli.child.kill('SIGINT');
  assert.equal(await cli.exited, 0, cli.stderr());
});
