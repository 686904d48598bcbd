import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GrepPool } from '../../server/engine/search/grep-pool';

test('concurrent greps share a bounded set of worker threads, and a runaway one frees its place', { timeout: 60_000 }, async () => {
  const pool = new GrepPool(1, 2);
  let most = 0;
  const watch = setInterval(() => { most = Math.max(most, (pool as unknown as { slots: unknown[] }).slots.length); }, 1);
  try {
    const text = `${'x'.repeat(1000)}\nneedle here\n`;
    const tasks = Array.from({ length: 40 }, (_, key) => ({ key, text }));
    const runs = Array.from({ length: 12 }, () => pool.scan({ kind: 'literal', text: 'needle' }, tasks, 10, 10_000));
    // A catastrophic one among them: its worker is terminated at the budget and replaced.
    const runaway = pool.scan({ kind: 'regex', exact: '(a+)+$', native: '(a+)+$', flags: 'gu', nativeFlags: 'gu', multiline: false },
      [{ key: 0, text: `${'a'.repeat(40)}!` }], 10, 300).then(() => 'finished', (e: Error) => e.message);
    const results = await Promise.all(runs);
    for (const r of results) {
      assert.equal(r.size, 40);
      assert.equal(r.get(0)![0].line, 2);
    }
    assert.match(await runaway, /did not finish within 300 ms/);
    assert.ok(most <= 2, `at most 2 workers at once, saw ${most}`);
    const after = await pool.scan({ kind: 'literal', text: 'needle' }, tasks.slice(0, 1), 10, 10_000);
    assert.equal(after.size, 1, 'the pool still works');
  } finally {
    clearInterval(watch);
    await pool.close();
  }
});
