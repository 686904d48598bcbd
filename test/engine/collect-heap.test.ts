import { test } from 'node:test';
import assert from 'node:assert/strict';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { collectHeap } from '../../server/engine/util/heap';

// Its own file, so its own process: the first collectHeap call here is the process's first vm.measureMemory call.
test("collectHeap collects a finished run's garbage incrementally, with no forced full collection, and prints no warning", async () => {
  let garbage: { text: string; n: number[] }[] | null = [];
  for (let i = 0; i < 1_000_000; i++) garbage.push({ text: `chunk ${i} `.repeat(3), n: [i] });
  const before = process.memoryUsage();
  garbage = null;
  const gcs: { kind: number; flags: number }[] = [];
  const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) gcs.push((e as unknown as { detail: { kind: number; flags: number } }).detail); });
  observer.observe({ entryTypes: ['gc'] });
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  const listeners = process.listeners('warning');
  // Resources that keep the event loop alive: V8 ends the collection in tasks that hold none, so collectHeap holds
  // a timer (a test or script awaiting a run, with the run's threads gone, exited under the pending promise).
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const held = timers();
  try {
    const collecting = collectHeap();
    assert.equal(timers(), held + 1, 'the event loop is held while V8 collects');
    await collecting;
    assert.equal(timers(), held, 'and let go once it is done');
    await new Promise((resolve) => setTimeout(resolve, 100)); // the observer's entries and the warning come on later ticks
    assert.deepEqual(process.listeners('warning'), listeners, "Node's listeners (and this test's) are back once the warning went by");
    process.emitWarning('a later warning', 'LoupeTestWarning');
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    observer.disconnect();
    process.removeListener('warning', onWarning);
  }
  const after = process.memoryUsage();
  const mb = (x: number) => (x / 2 ** 20).toFixed(0);
  assert.ok(before.heapUsed - after.heapUsed > 60 * 2 ** 20, `heapUsed ${mb(before.heapUsed)} → ${mb(after.heapUsed)} MB`);
  // Marked in steps beside the thread (an incremental kind), and nothing forced: a forced full collection stops the thread for all of it.
  assert.ok(gcs.some((g) => g.kind === constants.NODE_PERFORMANCE_GC_INCREMENTAL), `incremental marking (kinds seen: ${gcs.map((g) => g.kind).join(', ')})`);
  assert.ok(gcs.every((g) => !(g.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED)), 'no forced collection');
  // vm.measureMemory's ExperimentalWarning would land in the editor's log as if something were wrong; other warnings still arrive.
  assert.deepEqual(warnings, ['LoupeTestWarning: a later warning']);
});
