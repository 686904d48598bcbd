import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import * as esbuild from 'esbuild';
import { FIXTURES } from '../helpers/engine';
import type { WorkerRequest, WorkerResponse } from '../../server/engine/indexer/parse-worker';

const ROOT = path.join(__dirname, '..', '..');

/** The externals of the real build, read from esbuild.mjs so this test follows the shipped configuration. */
function buildExternals(): string[] {
  const source = fs.readFileSync(path.join(ROOT, 'esbuild.mjs'), 'utf8');
  const list = /const nodeExternals = \[([\s\S]*?)\];/.exec(source);
  assert.ok(list, 'esbuild.mjs declares nodeExternals');
  return [...list[1].matchAll(/'([^']+)'/g)].map((m) => m[1]);
}

test('the bundled parse worker finds the tree-sitter runtime and grammars at run time', async () => {
  // Built inside the project (.tmp/ is ignored) so that the externals resolve from node_modules as in dist/.
  fs.mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
  const outdir = fs.mkdtempSync(path.join(ROOT, '.tmp', 'parse-worker-bundle-'));
  try {
    await esbuild.build({
      entryPoints: { 'parse-worker': path.join(ROOT, 'server/engine/indexer/parse-worker.ts') },
      outdir, bundle: true, platform: 'node', format: 'cjs', target: 'node22', logLevel: 'silent',
      external: buildExternals(),
    });
    const worker = new Worker(path.join(outdir, 'parse-worker.js'));
    try {
      const root = path.join(FIXTURES, 'polyglot');
      const jobs = ['py/src/shop/models.py', 'go/store/store.go', 'rust/src/engine/parser.rs', 'cpp/src/main.c'].map((relPath) => {
        const stat = fs.statSync(path.join(root, relPath));
        return { relPath, size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs) };
      });
      const reply = new Promise<WorkerResponse>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      worker.postMessage({ type: 'parse', id: 1, root, options: { maxFileBytes: 1 << 20 }, jobs } satisfies WorkerRequest);
      const response = await reply;
      assert.equal(response.type, 'parsed', JSON.stringify(response));
      const files = response.type === 'parsed' ? response.results.map((r) => (r.kind === 'parsed' ? r.file : null)) : [];
      assert.deepEqual(files.map((f) => f && [f.language, f.symbols.map((s) => s.name), f.imports.map((i) => i.targetPath ?? i.packageName)]), [
        ['python', ['Item', 'sku', 'price_cents', 'label', '_check'], ['dataclasses']],
        ['go', ['MaxItems', 'defaultName', 'Counter', 'Count', 'Store', 'New', 'Add', 'Count', 'reset'], ['sync']],
        ['rust', ['Token', 'split', 'classify'], ['rust/src/config.rs']],
        ['c', ['default_width', 'calls', 'twice', 'clamp', 'main'], ['stdio.h', 'cpp/src/util.h', null]],
      ]);
    } finally {
      await worker.terminate();
    }
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
});
