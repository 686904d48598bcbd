/**
 * What a call leaves in V8's old generation. Garbage there is taken back only by a full (mark-compact)
 * collection, whose pause is on the thread that answers; a request path that leaves some on every call
 * brings one every few seconds under polling (docs/benchmarks.md, "Old-space garbage per call").
 * The engine is real (a SQLite file in a temp data dir); the collector is V8's own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import childProcess from 'node:child_process';
import path from 'node:path';
import { silentLogger } from '../../server/engine/log';
import { ModelRegistry } from '../../server/engine/research/model-registry';
import type { ChatModelInfo, ModelProvider } from '../../server/engine/research/model-provider';

test('a paid call and a model list leave next to nothing in the old generation', () => {
  // Measured in a process of its own (test/fixtures/old-space-probe.ts): see there why.
  const probe = path.join(__dirname, '..', 'fixtures', 'old-space-probe.ts');
  const out = JSON.parse(childProcess.execFileSync(process.execPath, ['--import', 'tsx', probe], { encoding: 'utf8', timeout: 120_000 })) as { paid: number; models: number; reservedLeft: number };
  // Before: a generator function made per call (its generators get a map of their own, and maps live in the
  // old generation) and a Map that lost its only entry on each release (its table made again, there too)
  // left ~600 bytes a paid call; an AbortSignal.timeout per provider and list kept its signal, listener and a
  // pending promise for two seconds, then made an error nobody awaited: ~1 kB a list. Now a few bytes each.
  assert.ok(out.paid < 100, `${out.paid.toFixed(0)} bytes of old-space garbage per paid call`);
  assert.ok(out.models < 100, `${out.models.toFixed(0)} bytes of old-space garbage per model list`);
  assert.equal(out.reservedLeft, 0, 'no reservation left behind');
});

test('listing the chat models ends its timer with the answer: the provider\'s request is not aborted after it answered', async () => {
  let seen: AbortSignal | undefined;
  const quick: ModelProvider = {
    name: 'quick',
    models: async (signal?: AbortSignal): Promise<ChatModelInfo[]> => {
      seen = signal;
      return [{ id: 'quick-1', provider: 'quick', description: 'a model that answers at once', contextWindow: 8_192, maxOutput: 1_024, kind: 'llm', creditsPer1kTokens: 1 }];
    },
  } as ModelProvider;
  const registry = new ModelRegistry(silentLogger, undefined, 50);
  registry.register(quick);
  assert.deepEqual((await registry.list()).map((m) => m.id).sort(), ['loupe-grounded', 'quick-1'].sort());
  await new Promise((r) => setTimeout(r, 120));
  assert.equal(seen?.aborted, false, 'the provider\'s signal is not aborted after it answered');
});

test('a provider that does not answer its list in time is left out, and its request is aborted', async () => {
  let seen: AbortSignal | undefined;
  const stuck = { name: 'stuck', models: (signal?: AbortSignal) => { seen = signal; return new Promise<ChatModelInfo[]>(() => {}); } } as ModelProvider;
  const registry = new ModelRegistry(silentLogger, undefined, 50);
  registry.register(stuck);
  const started = Date.now();
  const ids = (await registry.list()).map((m) => m.id);
  assert.deepEqual(ids, ['loupe-grounded']);
  assert.ok(Date.now() - started < 2_000);
  assert.equal(seen?.aborted, true);
  assert.equal((seen?.reason as { code?: string }).code, 'SERVICE_UNAVAILABLE');
});
