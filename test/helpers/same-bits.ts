import assert from 'node:assert/strict';

/**
 * The same numbers to the bit, element by element; on a difference, where (assert.deepEqual's diff of arrays this
 * long would take minutes to print).
 */
export function assertSameBits(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < actual.length; i++) {
    if (!Object.is(actual[i], expected[i])) assert.fail(`${what}: element ${i} is ${actual[i]}, not ${expected[i]}`);
  }
}
