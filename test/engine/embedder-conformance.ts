import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Embedder } from '../../server/engine/embed/embedder';

/**
 * The contract every embedding provider keeps (CONVENTIONS rule 8): one suite, run for each.
 * `texts` are texts the provider can represent; `related`/`unrelated` pairs are checked when the
 * provider claims to carry meaning (a random test model does not).
 */
export interface ConformanceOptions {
  name: string;
  make: () => Promise<Embedder>;
  texts: string[];
  semantic?: { anchor: string; related: string; unrelated: string };
}

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

export function embedderConformance(o: ConformanceOptions): void {
  test(`${o.name}: identity and width`, async () => {
    const e = await o.make();
    assert.ok(typeof e.id === 'string' && e.id.length > 0);
    assert.ok(Number.isInteger(e.dims) && e.dims > 0);
    assert.deepEqual(await e.embed([], 'document'), []);
  });

  test(`${o.name}: one finite unit vector of the declared width per text, for documents and queries`, async () => {
    const e = await o.make();
    for (const kind of ['document', 'query'] as const) {
      const out = await e.embed(o.texts, kind);
      assert.equal(out.length, o.texts.length);
      for (const v of out) {
        assert.ok(v instanceof Float32Array, 'a text the provider can represent has a vector');
        assert.equal(v.length, e.dims);
        assert.ok(v.every(Number.isFinite));
        assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-4, 'unit length');
      }
    }
  });

  test(`${o.name}: deterministic, order-preserving, and a batch equals its parts`, async () => {
    const e = await o.make();
    const [a, b] = o.texts;
    const together = await e.embed([a, b], 'document');
    const swapped = await e.embed([b, a], 'document');
    const [alone] = await e.embed([a], 'document');
    assert.ok(cosine(together[0]!, alone!) > 0.9999);
    assert.ok(cosine(swapped[1]!, together[0]!) > 0.9999);
    assert.ok(cosine(swapped[0]!, together[1]!) > 0.9999);
  });

  test(`${o.name}: long and empty texts do not fail`, async () => {
    const e = await o.make();
    const long = `${o.texts[0]} `.repeat(5000);
    const [v, empty] = await e.embed([long, ''], 'document');
    assert.ok(v === null || v.length === e.dims);
    assert.ok(empty === null || empty.length === e.dims);
  });

  if (o.semantic) {
    const s = o.semantic;
    test(`${o.name}: related texts are closer than unrelated ones`, async () => {
      const e = await o.make();
      const [anchor, related, unrelated] = await e.embed([s.anchor, s.related, s.unrelated], 'query');
      assert.ok(cosine(anchor!, related!) > cosine(anchor!, unrelated!), `${cosine(anchor!, related!)} vs ${cosine(anchor!, unrelated!)}`);
    });
  }
}
