import { type Embedder, normalize } from './embedder';
import { hash32, textTerms } from './terms';

/**
 * Feature hashing of stemmed sub-words and their character trigrams: no training, no download.
 * It is lexical (it knows no synonyms), so it is what the corpus embedder uses until enough code
 * is indexed to learn a model from.
 */
export class HashedEmbedder implements Embedder {
  readonly id: string;
  constructor(readonly dims = 256) {
    this.id = `hashed-v1-${dims}`;
  }

  async embed(texts: string[]): Promise<(Float32Array | null)[]> {
    return texts.map((t) => this.embedOne(t));
  }

  embedOne(text: string): Float32Array | null {
    const counts = new Map<string, number>();
    for (const term of textTerms(text)) counts.set(term, (counts.get(term) ?? 0) + 1);
    const v = new Float32Array(this.dims);
    for (const [term, n] of counts) {
      const w = 1 + Math.log(n);
      add(v, term, w);
      // Trigrams let inflections and compounds that the stemmer misses still overlap a little.
      const padded = `^${term}$`;
      for (let i = 0; i + 3 <= padded.length; i++) add(v, `#${padded.slice(i, i + 3)}`, w * 0.25);
    }
    return normalize(v);
  }
}

function add(v: Float32Array, feature: string, weight: number): void {
  const h = hash32(feature);
  v[h % v.length] += (h & 0x80000000) ? -weight : weight;
}
