import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { orthonormalize, productWithTranspose, trainCorpusModel, type CorpusModel } from '../../server/engine/embed/corpus-model';
import { walk } from '../../server/engine/indexer/walk';
import { npmPackage } from '../helpers/real-code';

/** 20-line pieces of hono's published modules (code nobody here wrote); an odd count, so the 4-row blocks leave a remainder. */
function honoPieces(): string[] {
  const root = path.join(npmPackage('hono@4.13.19'), 'dist');
  const pieces: string[] = [];
  for (const e of walk(root).filter((f) => f.relPath.endsWith('.js'))) {
    const lines = fs.readFileSync(path.join(root, e.relPath), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i += 20) pieces.push(lines.slice(i, i + 20).join('\n'));
  }
  return pieces.length % 2 ? pieces : pieces.slice(1);
}

const column = (m: CorpusModel, c: number) => {
  const v = new Float64Array(m.terms.length);
  for (let r = 0; r < m.terms.length; r++) v[r] = m.vectors[r * m.dims + c];
  return v;
};
const dot = (a: Float64Array, b: Float64Array) => a.reduce((s, x, i) => s + x * b[i], 0);

test('the corpus model\'s term vectors are orthonormal singular vectors, the leading ones as a converged solve finds them', () => {
  const pieces = honoPieces();
  assert.ok(pieces.length > 500, `${pieces.length} pieces`);
  const model = trainCorpusModel(pieces, { dims: 48 })!;
  assert.ok(model.terms.length > 500, `${model.terms.length} terms`);
  assert.notEqual(model.terms.length % 4, 0, 'the terms should not fill whole blocks of four');

  // Right singular vectors: unit length and mutually orthogonal (stored as float32).
  const columns = Array.from({ length: model.dims }, (_, c) => column(model, c));
  for (let i = 0; i < model.dims; i++) {
    assert.ok(Math.abs(dot(columns[i], columns[i]) - 1) < 1e-4, `column ${i} has length² ${dot(columns[i], columns[i])}`);
    for (let j = 0; j < i; j++) assert.ok(Math.abs(dot(columns[i], columns[j])) < 1e-4, `columns ${i} and ${j}: ${dot(columns[i], columns[j])}`);
  }

  // Many more power iterations converge on the exact leading subspace: the first components are the same
  // directions (up to sign) as with the default two.
  const converged = trainCorpusModel(pieces, { dims: 48, powerIterations: 12 })!;
  assert.deepEqual(converged.terms, model.terms);
  for (let c = 0; c < 8; c++) {
    const cosine = Math.abs(dot(columns[c], column(converged, c)));
    assert.ok(cosine > 0.99, `component ${c}: |cos| ${cosine.toFixed(4)} against the converged solve`);
  }
});

test('orthonormalize: the columns come out orthonormal, spanning what they spanned, a dependent column as zero', () => {
  // 1,003 × 37, not a multiple of the four rows done at a time; a seeded generator, column 5 = 2 × column 3.
  const m = 1003;
  const l = 37;
  let seed = 7;
  const random = () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed / 2 ** 31 - 0.5; };
  const A = new Float64Array(m * l);
  for (let r = 0; r < m; r++) for (let c = 0; c < l; c++) A[r * l + c] = c === 5 ? 2 * A[r * l + 3] : random() + (c === 0 ? 3 : 0);
  const original = Float64Array.from(A);
  orthonormalize(A, m, l);
  const col = (M: Float64Array, c: number) => Float64Array.from({ length: m }, (_, r) => M[r * l + c]);
  for (let i = 0; i < l; i++) {
    const a = col(A, i);
    if (i === 5) { assert.ok(a.every((x) => Math.abs(x) < 1e-9), 'the dependent column is not zero'); continue; }
    assert.ok(Math.abs(dot(a, a) - 1) < 1e-9, `column ${i}: length² ${dot(a, a)}`);
    for (let j = 0; j < i; j++) if (j !== 5) assert.ok(Math.abs(dot(a, col(A, j))) < 1e-9, `columns ${i}, ${j}: ${dot(a, col(A, j))}`);
  }
  // The last row (past the blocks of four) is solved like the others: each original column is still in the span.
  for (const c of [0, 17, 36]) {
    const target = col(original, c);
    const residual = Float64Array.from(target);
    for (let j = 0; j < l; j++) {
      if (j === 5) continue;
      const q = col(A, j);
      const coefficient = dot(q, target);
      for (let r = 0; r < m; r++) residual[r] -= coefficient * q[r];
    }
    assert.ok(Math.sqrt(dot(residual, residual)) < 1e-9 * Math.sqrt(dot(target, target)), `column ${c} left the span`);
  }
});

test('productWithTranspose: each element is the row-by-row dot product to the bit, the rows past the blocks of four too', () => {
  const [m, n, p] = [1003, 37, 11];
  let seed = 11;
  const random = () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed / 2 ** 31 - 0.5; };
  const A = Float64Array.from({ length: m * n }, random);
  const B = Float64Array.from({ length: p * n }, random);
  const out = productWithTranspose(A, m, n, B, p);
  for (let r = 0; r < m; r++) {
    for (let c = 0; c < p; c++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += A[r * n + i] * B[c * n + i];
      assert.equal(out[r * p + c], Math.fround(s), `element ${r}, ${c}`);
    }
  }
});
