import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NearestK } from '../../server/engine/embed/vector-index';

// The API node scans the vectors it holds for a team server's repository (vector-index.ts,
// nearestRemote) into a bounded heap instead of sorting an object per chunk. The k it keeps must be
// exactly the first k of a sort by (distance, chunk id), ties included.
function reference(pairs: { chunkId: number; distance: number }[], k: number) {
  return [...pairs].sort((a, b) => a.distance - b.distance || a.chunkId - b.chunkId).slice(0, k);
}

function kept(pairs: { chunkId: number; distance: number }[], k: number) {
  const heap = new NearestK(k);
  for (const p of pairs) heap.offer(p.chunkId, p.distance);
  return heap.items().sort((a, b) => a.distance - b.distance || a.chunkId - b.chunkId);
}

test('the k nearest equal a full sort, with ties broken by chunk id', () => {
  // A fixed linear congruential sequence: the same cases on every run.
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (const n of [0, 1, 5, 200, 201, 3000]) {
    for (const k of [0, 1, 10, 200, 5000]) {
      // Few distinct distances, so many ties; chunk ids shuffled.
      const ids = Array.from({ length: n }, (_, i) => i + 1).sort(() => next() - 0.5);
      const pairs = ids.map((chunkId) => ({ chunkId, distance: Math.round(next() * 20) / 20 }));
      assert.deepEqual(kept(pairs, k), reference(pairs, k), `n ${n}, k ${k}`);
    }
  }
});

test('offers in order, in reverse and all equal', () => {
  const up = Array.from({ length: 500 }, (_, i) => ({ chunkId: i + 1, distance: i / 500 }));
  assert.deepEqual(kept(up, 50), reference(up, 50));
  assert.deepEqual(kept([...up].reverse(), 50), reference(up, 50));
  const flat = Array.from({ length: 500 }, (_, i) => ({ chunkId: 500 - i, distance: 0.25 }));
  assert.deepEqual(kept(flat, 7).map((p) => p.chunkId), [1, 2, 3, 4, 5, 6, 7]);
});
