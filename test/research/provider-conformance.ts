/**
 * The contract every ModelProvider keeps, run once per provider (CONVENTIONS rule 8):
 * it lists well-formed models; a chat streams non-empty text and ends with exactly one usage
 * event; an aborted signal stops it promptly with an AbortError, before or during the stream;
 * a failure surfaces as a LoupeError rather than a raw exception.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoupeError } from '../../server/engine/errors';
import type { GroundingContext } from '../../server/engine/research/grounding';
import type { ChatEvent, ChatRequest, ModelProvider } from '../../server/engine/research/model-provider';
import { buildPrompt } from '../../server/engine/research/prompt';

export interface ConformanceSubject {
  provider: ModelProvider;
  /** A grounding context with at least one file, so every provider has something to say. */
  context: GroundingContext;
  /** A provider set up to fail (server down, model erroring), when the provider can fail. */
  failing?: ModelProvider;
  close?(): Promise<void>;
}

async function collect(stream: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const out: ChatEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

export function providerConformance(name: string, setup: () => Promise<ConformanceSubject>): void {
  const request = async (s: ConformanceSubject, signal: AbortSignal): Promise<ChatRequest> => {
    const [model] = await s.provider.models();
    return { model: model.id, messages: buildPrompt(s.context, [], { contextWindow: model.contextWindow, maxOutput: model.maxOutput }), context: s.context, signal };
  };

  test(`${name}: conforms to the ModelProvider contract`, async (t) => {
    const s = await setup();
    try {
      await t.test('lists well-formed models', async () => {
        const models = await s.provider.models();
        assert.ok(models.length >= 1);
        for (const m of models) {
          assert.match(m.id, /\S/);
          assert.equal(m.provider, s.provider.name);
          assert.ok(m.description.length > 20, 'a description says what the model is');
          assert.ok(Number.isInteger(m.contextWindow) && m.contextWindow > 0);
          assert.ok(Number.isInteger(m.maxOutput) && m.maxOutput > 0 && m.maxOutput <= m.contextWindow);
          assert.ok(m.kind === 'extractive' || m.kind === 'llm');
          assert.ok(m.creditsPer1kTokens >= 0);
        }
      });

      await t.test('streams text, then exactly one usage event last', async () => {
        const events = await collect(s.provider.chat(await request(s, new AbortController().signal)));
        const texts = events.filter((e) => e.type === 'text');
        assert.ok(texts.length >= 2, `streams in pieces, got ${texts.length}`);
        for (const e of texts) assert.ok(e.text.length > 0, 'no empty pieces');
        assert.equal(events.filter((e) => e.type === 'usage').length, 1);
        const last = events.at(-1)!;
        assert.equal(last.type, 'usage');
        if (last.type === 'usage') {
          assert.ok(Number.isInteger(last.usage.inputTokens) && last.usage.inputTokens >= 0);
          assert.ok(Number.isInteger(last.usage.outputTokens) && last.usage.outputTokens > 0);
          assert.equal(typeof last.usage.estimated, 'boolean');
        }
      });

      await t.test('an aborted signal stops it before it starts', async () => {
        const controller = new AbortController();
        controller.abort();
        const events: ChatEvent[] = [];
        await assert.rejects(async () => { for await (const e of s.provider.chat(await request(s, controller.signal))) events.push(e); }, { name: 'AbortError' });
        assert.equal(events.length, 0);
      });

      await t.test('aborting mid-stream stops it within 250 ms', async () => {
        const controller = new AbortController();
        const iterator = s.provider.chat(await request(s, controller.signal))[Symbol.asyncIterator]();
        const first = await iterator.next();
        assert.equal(first.done, false);
        const at = performance.now();
        controller.abort();
        await assert.rejects(async () => { for (;;) { const r = await iterator.next(); if (r.done) break; } }, { name: 'AbortError' });
        assert.ok(performance.now() - at < 250, `stopped after ${Math.round(performance.now() - at)} ms`);
      });

      if (s.failing) {
        await t.test('a failure is a LoupeError naming the cause', async () => {
          const error = await collect(s.failing!.chat(await request({ ...s, provider: s.failing! }, new AbortController().signal))).then(() => null, (e: unknown) => e);
          assert.ok(error instanceof LoupeError, `got ${String(error)}`);
          assert.match(error.message, /\S{8,}/);
        });
      }
    } finally {
      await s.close?.();
    }
  });
}
