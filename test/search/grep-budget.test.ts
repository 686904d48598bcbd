import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GrepPool } from '../../server/engine/search/grep-pool';

// A regular expression's time budget is for matching, not for starting a thread: on a loaded machine (or
// under tsx, as here) a new grep worker takes hundreds of milliseconds to load, and a plain pattern on a
// cold pool was refused as "catastrophic" (seen in search-modes.test.ts at load 18).
test('a new worker\'s start-up does not count against the time budget; a runaway pattern still does', { timeout: 60_000 }, async () => {
  const pool = new GrepPool(1, 2);
  try {
    const plain = { kind: 'regex' as const, exact: 'ne+dle', native: 'ne+dle', flags: 'gu', nativeFlags: 'gu', multiline: false };
    const found = await pool.scan(plain, [{ key: 0, text: 'a needle\n' }], 10, 150);
    assert.equal(found.get(0)?.[0].line, 1);
    const runaway = { kind: 'regex' as const, exact: '(a+)+$', native: '(a+)+$', flags: 'gu', nativeFlags: 'gu', multiline: false };
    // A fresh worker replaces the one a runaway pattern costs; its start is again outside the budget.
    await assert.rejects(pool.scan(runaway, [{ key: 0, text: `${'a'.repeat(40)}!` }], 10, 150), /did not finish within 150 ms/);
    await pool.close();
    const again = await pool.scan(plain, [{ key: 0, text: 'needle\n' }], 10, 150);
    assert.equal(again.size, 1);
  } finally {
    await pool.close();
  }
});
