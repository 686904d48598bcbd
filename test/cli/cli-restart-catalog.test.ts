import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { tempDir } from '../helpers/engine';
import { copyOf, npmPackage } from '../helpers/real-code';
import { killAtEnd, startCli, waitFor } from '../helpers/cli';
import { TRUST_MARGIN_MS } from '../../server/engine/indexer/walk';

const KEY = '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One start of the real CLI until its catch-up run's summary, then Ctrl-C; the summary and the walk's debug line. */
async function restart(t: import('node:test').TestContext, folder: string, dataDir: string) {
  const cli = await startCli([folder, '--port', '0', '--data-dir', dataDir, '--no-watch'], { LOUPE_API_KEY: KEY, LOUPE_LOG: 'debug' });
  killAtEnd(t, cli.child);
  // Generous: a first start trains the corpus model, and a shared CI machine can be slow.
  const summary = await waitFor(() => /^indexed cjs: .*$/m.exec(cli.stderr())?.[0], 240_000, 'the summary line')
    .catch((error: Error) => { throw new Error(`${error.message}; the CLI said:\n${cli.stderr()}`); });
  const walked = /scanned \S+: (\d+) folder\(s\) listed, (\d+) unchanged/.exec(cli.stderr());
  assert.ok(walked, `no walk line in:\n${cli.stderr()}`);
  const search = async (query: string) => {
    const res = await fetch(`${cli.url}/v2/search`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ query, scope: 'code' }) });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return text;
  };
  const stop = async () => {
    cli.child.kill('SIGINT');
    assert.equal(await cli.exited, 0, cli.stderr());
  };
  return { summary, listed: Number(walked[1]), trusted: Number(walked[2]), search, stop };
}

test('a restart of the CLI lists only the folders that changed and finds every change on disk', async (t) => {
  // hono's published CommonJS files: 192 files in 74 folders.
  const folder = copyOf(path.join(npmPackage('hono@4.13.19'), 'dist', 'cjs'), 'loupe-cli-catalog-');
  const dataDir = path.join(tempDir('loupe-cli-catalog-data-'), 'data');
  // Folders written within the trust margin before a walk's stat are listed again at the next walk.
  await sleep(TRUST_MARGIN_MS + 200);
  const first = await restart(t, folder, dataDir);
  assert.match(first.summary, /: [1-9]\d* added/);
  const folders = first.listed;
  assert.ok(folders > 50, `${folders} folders listed on the first start`);
  await first.stop();

  const second = await restart(t, folder, dataDir);
  assert.match(second.summary, /0 added, 0 changed, 0 removed, [1-9]\d* unchanged/);
  assert.equal(second.listed, 0, 'a no-change restart listed folders');
  assert.equal(second.trusted, folders);
  assert.match(await second.search('aws lambda handler streamHandle'), /"adapter\//, 'the adapter folder is searchable before it is deleted');
  await second.stop();

  // A file added in an old folder, whose mtime is then set back to what it was (touch keeps the
  // nanoseconds; the ctime still moves); a file changed with the same size; a folder deleted.
  const utils = path.join(folder, 'utils');
  const reference = path.join(tempDir('loupe-cli-catalog-ref-'), 'ref');
  fs.writeFileSync(reference, '');
  execFileSync('touch', ['-m', '-r', utils, reference]);
  fs.writeFileSync(path.join(utils, 'zebrafinch.js'), 'exports.zebrafinchPlumage = function zebrafinchPlumage() { return "striped"; };\n');
  execFileSync('touch', ['-m', '-r', reference, utils]);
  const changedFile = path.join(folder, 'hono.js');
  const text = fs.readFileSync(changedFile, 'utf8');
  const same = text.replace('require_hono_base', 'require_hono_bass');
  assert.notEqual(same, text);
  assert.equal(Buffer.byteLength(same), Buffer.byteLength(text));
  fs.writeFileSync(changedFile, same);
  const adapterFiles = execFileSync('find', [path.join(folder, 'adapter'), '-type', 'f'], { encoding: 'utf8' }).trim().split('\n').length;
  fs.rmSync(path.join(folder, 'adapter'), { recursive: true });
  await sleep(TRUST_MARGIN_MS + 200);

  const third = await restart(t, folder, dataDir);
  try {
    assert.match(third.summary, new RegExp(`: 1 added, 1 changed, ${adapterFiles} removed, `));
    // The root (adapter/ went) and utils/ (a file came), nothing else.
    assert.equal(third.listed, 2);
    assert.match(await third.search('zebrafinchPlumage'), /utils\/zebrafinch\.js/, 'the added file is not searchable');
    const lambda = await third.search('aws lambda handler streamHandle');
    assert.doesNotMatch(lambda, /"adapter\//, 'a deleted folder\'s files are still found');
  } finally {
    await third.stop();
  }

  const fourth = await restart(t, folder, dataDir);
  assert.match(fourth.summary, /0 added, 0 changed, 0 removed, /);
  assert.equal(fourth.listed, 0);
  await fourth.stop();
});
