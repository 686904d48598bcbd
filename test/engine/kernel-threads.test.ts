import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runKernel, serialKernels, type KernelArgs, type KernelName, type KernelRunner } from '../../server/engine/embed/corpus-model';
import { TwoThreadKernels } from '../../server/engine/embed/kernel-threads';
import { tempDir } from '../helpers/engine';
import { assertSameBits } from '../helpers/same-bits';

const TRAIN_WORKER = path.join(__dirname, '..', '..', 'server', 'engine', 'embed', 'train-worker.ts');

function random(seed: number): () => number {
  return () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed / 2 ** 31 - 0.5; };
}

/**
 * Every kernel's arguments at sizes that leave remainders everywhere (rows not a multiple of four, an odd
 * number of columns), filled from `kernels` (shared memory for two threads). `fresh` gives the outputs anew.
 */
function cases(kernels: KernelRunner): { name: KernelName; args: () => KernelArgs<KernelName>; out: (a: KernelArgs<KernelName>) => Float64Array | Float32Array }[] {
  const next = random(7);
  const f64 = (n: number) => { const a = kernels.float64(n); for (let i = 0; i < n; i++) a[i] = next(); return a; };
  const [rows, V, l] = [1003, 517, 37];
  const ptr = kernels.int32(rows + 1);
  const cols: number[] = [];
  for (let r = 0; r < rows; r++) {
    for (let k = 0; k < 1 + (r % 9); k++) cols.push((r * 31 + k * 97) % V);
    ptr[r + 1] = cols.length;
  }
  const col = kernels.int32(cols.length);
  col.set(cols);
  const val = kernels.float32(cols.length);
  for (let i = 0; i < val.length; i++) val[i] = next();
  const X = { rows, ptr, col, val };
  const M = f64(V * l), Q = f64(rows * l), A = f64(rows * l), B = f64(11 * l);
  const Rt = kernels.float64(l * l);
  for (let j = 0; j < l; j++) for (let k = 0; k <= j; k++) Rt[j * l + k] = k === j ? 1.5 + next() : next();
  const inverse = kernels.float64(l);
  for (let j = 0; j < l; j++) inverse[j] = 1 / Rt[j * l + j];
  const copy = (a: Float64Array) => { const c = kernels.float64(a.length); c.set(a); return c; };
  return [
    { name: 'mulXM', args: () => ({ ...X, M, l, Y: kernels.float64(rows * l) }), out: (a) => (a as KernelArgs<'mulXM'>).Y },
    { name: 'mulXtQ', args: () => ({ ...X, Q, l, Z: kernels.float64(V * l) }), out: (a) => (a as KernelArgs<'mulXtQ'>).Z },
    { name: 'gram', args: () => ({ A, m: rows, l, G: kernels.float64(l * l) }), out: (a) => (a as KernelArgs<'gram'>).G },
    { name: 'divideByUpper', args: () => ({ A: copy(A), m: rows, l, Rt, inverse }), out: (a) => (a as KernelArgs<'divideByUpper'>).A },
    { name: 'productWithTranspose', args: () => ({ A, m: rows, n: l, B, p: 11, out: kernels.float32(rows * 11) }), out: (a) => (a as KernelArgs<'productWithTranspose'>).out },
  ] as ReturnType<typeof cases>;
}

test('each of training\'s kernels computed in two parts writes what one part writes, to the bit, the remainders too', () => {
  for (const { name, args, out } of cases(serialKernels)) {
    const whole = args();
    runKernel(name, whole, 0, 1);
    const split = args();
    runKernel(name, split, 1, 2);
    runKernel(name, split, 0, 2);
    assert.ok(out(whole).some((x) => x !== 0), `${name} wrote something`);
    assertSameBits(out(split), out(whole), name);
  }
});

test('on two threads each kernel gives what one thread gives, to the bit, with the helper\'s part done by the helper', async () => {
  const two = TwoThreadKernels.start(TRAIN_WORKER, { kernels: true });
  try {
    const mine = cases(two);
    for (const [i, { name, args, out }] of cases(serialKernels).entries()) {
      const one = args();
      serialKernels.run(name, one);
      const shared = mine[i].args();
      two.run(name, shared);
      assertSameBits(mine[i].out(shared), out(one), name);
    }
    assert.equal(two.helped, 5, 'the helper computed its part of every kernel');
  } finally {
    await two.close();
  }
});

test('two threads refuse an array a copy of which the helper would write, and a helper that never answers or never starts fails the kernel instead of hanging', async () => {
  const two = TwoThreadKernels.start(TRAIN_WORKER, { kernels: true });
  try {
    const l = 8;
    assert.throws(() => two.run('gram', { A: new Float64Array(4 * l), m: 4, l, G: two.float64(l * l) }), /A is not in shared memory/);
  } finally {
    await two.close();
  }
  // A thread that takes the task and never sets the flag.
  const dir = tempDir('loupe-kernels-');
  const silent = path.join(dir, 'silent.js');
  fs.writeFileSync(silent, "require('node:worker_threads').parentPort.on('message', () => {});\n");
  const mute = TwoThreadKernels.start(silent, null, 200);
  try {
    const l = 8;
    const started = Date.now();
    assert.throws(() => mute.run('gram', { A: mute.float64(4 * l), m: 4, l, G: mute.float64(l * l) }), /did not answer \(gram\)/);
    assert.ok(Date.now() - started < 5000, `gave up after ${Date.now() - started} ms`);
  } finally {
    await mute.close();
  }
  // A helper whose file throws as it loads: the kernel fails the same way, and nothing throws in this thread.
  const broken = path.join(dir, 'broken.js');
  fs.writeFileSync(broken, "throw new Error('no helper here');\n");
  const dead = TwoThreadKernels.start(broken, null, 200);
  try {
    const l = 8;
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.throws(() => dead.run('gram', { A: dead.float64(4 * l), m: 4, l, G: dead.float64(l * l) }), /did not answer \(gram\)/);
  } finally {
    await dead.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
