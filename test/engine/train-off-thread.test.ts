import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import * as esbuild from 'esbuild';
import { deserializeModel, trainCorpusModel } from '../../server/engine/embed/corpus-model';
import { trainCorpusModelOffThread, trainSerializedOffThread } from '../../server/engine/embed/train-off-thread';
import { walk } from '../../server/engine/indexer/walk';
import { npmPackage } from '../helpers/real-code';
import { assertSameBits } from '../helpers/same-bits';
import { threadNice } from '../helpers/thread-nice';
import type { TrainRequest, TrainResponse } from '../../server/engine/embed/train-worker';

const ROOT = path.join(__dirname, '..', '..');

/** Small but real code-like documents: enough words and documents for the SVD to have something to find. */
function corpus(): string[] {
  const topics = [
    ['parseSignedCookie', 'cookie', 'signature', 'secret', 'header', 'value'],
    ['renderSprite', 'texture', 'frame', 'canvas', 'draw', 'pixel'],
    ['connectDatabase', 'pool', 'query', 'transaction', 'commit', 'rollback'],
    ['tweenPosition', 'easing', 'duration', 'timeline', 'delay', 'repeat'],
  ];
  const texts: string[] = [];
  for (let i = 0; i < 240; i++) {
    const words = topics[i % topics.length];
    texts.push(`function ${words[0]}${i}(${words[1]}, ${words[2]}) {\n  // ${words.slice(1).join(' ')}\n  return ${words[3]}.${words[4]}(${words[5]}, ${i});\n}`);
  }
  return texts;
}

test('the corpus model trained in a worker thread equals the one trained in this thread', async () => {
  const texts = corpus();
  const here = trainCorpusModel(texts, { dims: 16 });
  const there = await trainCorpusModelOffThread(texts, { dims: 16 });
  assert.ok(here && there);
  assert.deepEqual(there.terms, here.terms);
  assert.equal(there.dims, here.dims);
  assert.deepEqual(Array.from(there.idf), Array.from(here.idf));
  assert.deepEqual(Array.from(there.vectors), Array.from(here.vectors));
  assert.equal(await trainCorpusModelOffThread(['too', 'few'], { dims: 16 }), null, 'too little text is no model, as in this thread');
});

test('a large sample trains on two threads where there are two cores, into the model one thread trains, to the bit', async () => {
  // 20-line pieces of hono's published modules: code nobody here wrote, past the two-thread threshold (1,000 texts).
  const root = path.join(npmPackage('hono@4.13.19'), 'dist');
  const texts: string[] = [];
  for (const e of walk(root).filter((f) => f.relPath.endsWith('.js'))) {
    const lines = fs.readFileSync(path.join(root, e.relPath), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i += 20) texts.push(lines.slice(i, i + 20).join('\n'));
  }
  assert.ok(texts.length >= 1000, `${texts.length} texts`);
  const here = trainCorpusModel(texts, { dims: 64 });
  const trained = await trainSerializedOffThread(texts, { dims: 64 });
  assert.ok(here && trained);
  assert.equal(trained.threads, os.availableParallelism() > 1 ? 2 : 1, 'threads the products ran on');
  const there = deserializeModel(trained.data);
  assert.deepEqual(there.terms, here.terms);
  assertSameBits(there.vectors, here.vectors, 'the vectors');
  // Below the threshold: one thread (a helper's start is more than such a training).
  assert.equal((await trainSerializedOffThread(corpus(), { dims: 16 }))?.threads, 1);
});

test('an aborted training stops its worker and rejects with AbortError', async () => {
  const controller = new AbortController();
  const texts = Array.from({ length: 20 }, () => corpus()).flat();
  const training = trainCorpusModelOffThread(texts, { dims: 64, maxDocs: 4800 }, controller.signal);
  setTimeout(() => controller.abort(), 20);
  await assert.rejects(training, (error: Error) => error.name === 'AbortError');
  await assert.rejects(trainCorpusModelOffThread(texts, { dims: 8 }, controller.signal), (error: Error) => error.name === 'AbortError');
});

test('the bundled training worker runs from dist as the CLI and the language server start it', async () => {
  fs.mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
  const outdir = fs.mkdtempSync(path.join(ROOT, '.tmp', 'train-worker-bundle-'));
  try {
    await esbuild.build({
      entryPoints: { 'train-worker': path.join(ROOT, 'server/engine/embed/train-worker.ts') },
      outdir, bundle: true, platform: 'node', format: 'cjs', target: 'node22', logLevel: 'silent',
    });
    const worker = new Worker(path.join(outdir, 'train-worker.js'));
    try {
      const reply = new Promise<TrainResponse>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      worker.postMessage({ texts: corpus(), options: { dims: 8 } } satisfies TrainRequest);
      const response = await reply;
      assert.equal(response.type, 'trained', JSON.stringify(response));
      assert.ok(response.type === 'trained' && response.model && response.model.byteLength > 0);
    } finally {
      await worker.terminate();
    }
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
});

/** The nice value of each of this process's threads, by thread id (Linux: a nice value is a thread's). */
function threadNices(): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of fs.readdirSync('/proc/self/task').map(Number)) {
    const nice = threadNice(tid); // null: the thread ended between the listing and the read
    if (nice !== null) nices.set(tid, nice);
  }
  return nices;
}

test('training runs ten nice levels below the thread that answers requests (Linux, where a nice value is a thread\'s), which keeps its own everywhere', async () => {
  const linux = process.platform === 'linux';
  const main = os.getPriority();
  const texts = Array.from({ length: 30 }, () => corpus()).flat();
  const seen = new Set<number>();
  // Elsewhere a nice value is the process's: the worker must leave it alone (checked below), so there is nothing to watch.
  const poll = linux ? setInterval(() => { for (const [tid, nice] of threadNices()) if (tid !== process.pid) seen.add(nice); }, 2) : undefined;
  try {
    assert.ok(await trainCorpusModelOffThread(texts, { dims: 32 }));
  } finally {
    clearInterval(poll);
  }
  if (linux) assert.ok(seen.has(Math.min(19, main + 10)), `a thread at nice ${Math.min(19, main + 10)} while training (seen: ${[...seen].join(', ')})`);
  assert.equal(os.getPriority(), main, 'the main thread keeps its priority');
});
