import { type Embedder, normalize } from './embedder';
import type { CorpusModel } from './corpus-model';
import { textTerms } from './terms';

/**
 * Embeds with a model learned from the indexed code (see corpus-model.ts): a text's vector is the
 * log-tf·idf weighted sum of its words' vectors (LSA fold-in). Words the model never saw add nothing.
 */
export class CorpusEmbedder implements Embedder {
  readonly dims: number;
  private readonly index: Map<string, number>;

  constructor(readonly id: string, private readonly model: CorpusModel) {
    this.dims = model.dims;
    this.index = new Map(model.terms.map((t, i) => [t, i]));
    this.counts = new Int32Array(model.terms.length);
    this.seen = new Int32Array(model.terms.length);
  }

  async embed(texts: string[]): Promise<(Float32Array | null)[]> {
    return texts.map((t) => this.embedOne(t));
  }

  /**
   * Term counts in an array as long as the model's words, and the words seen in first-seen order (a Map per text
   * cost ~20% of embedding a repository); both are left zeroed for the next text. The sums are the same, in the
   * same order, as with a Map.
   */
  private readonly counts: Int32Array;
  private readonly seen: Int32Array;

  embedOne(text: string): Float32Array | null {
    const { counts, seen } = this;
    let n = 0;
    for (const term of textTerms(text)) {
      const j = this.index.get(term);
      if (j !== undefined && counts[j]++ === 0) seen[n++] = j;
    }
    if (!n) return null;
    const v = new Float32Array(this.dims);
    const { vectors, idf } = this.model;
    const d = this.dims;
    for (let t = 0; t < n; t++) {
      const j = seen[t];
      const w = (1 + Math.log(counts[j])) * idf[j];
      counts[j] = 0;
      const o = j * d;
      for (let k = 0; k < d; k++) v[k] += w * vectors[o + k];
    }
    return normalize(v);
  }

  /** The model's words nearest to a word (for inspection and tests). */
  neighbours(word: string, count = 10): string[] {
    const j = this.index.get(word);
    if (j === undefined) return [];
    const d = this.dims;
    const { vectors } = this.model;
    const norm = (o: number) => Math.sqrt(vectors.subarray(o, o + d).reduce((s, x) => s + x * x, 0)) || 1;
    const nj = norm(j * d);
    const scored: [string, number][] = this.model.terms.map((t, i) => {
      let s = 0;
      for (let k = 0; k < d; k++) s += vectors[i * d + k] * vectors[j * d + k];
      return [t, s / (norm(i * d) * nj)];
    });
    return scored.filter(([t]) => t !== word).sort((a, b) => b[1] - a[1]).slice(0, count).map(([t]) => t);
  }
}
