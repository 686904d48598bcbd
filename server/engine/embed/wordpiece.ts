/**
 * BERT's WordPiece tokenizer (what all-MiniLM, bge, e5 and most sentence-embedding models use),
 * read from the model folder's vocab.txt or tokenizer.json.
 */
import { LoupeError } from '../errors';
export interface WordPieceOptions { lowercase: boolean; maxTokens: number }

export class WordPiece {
  private readonly cls: number;
  private readonly sep: number;
  private readonly unk: number;

  constructor(private readonly vocab: Map<string, number>, private readonly options: WordPieceOptions) {
    const id = (t: string) => {
      const v = vocab.get(t);
      if (v === undefined) throw new LoupeError('VALIDATION_FAILED', `the vocabulary has no ${t} token`);
      return v;
    };
    this.cls = id('[CLS]');
    this.sep = id('[SEP]');
    this.unk = id('[UNK]');
  }

  /** vocab.txt: one token per line, the line number is its id. */
  static fromVocabTxt(text: string, options: WordPieceOptions): WordPiece {
    const vocab = new Map<string, number>();
    text.split(/\r?\n/).forEach((t, i) => { if (t && !vocab.has(t)) vocab.set(t, i); });
    return new WordPiece(vocab, options);
  }

  /** tokenizer.json of a WordPiece model (Hugging Face tokenizers format). */
  static fromTokenizerJson(json: { model?: { type?: string; vocab?: Record<string, number> }; normalizer?: { lowercase?: boolean } | null }, maxTokens: number): WordPiece {
    if (json.model?.type !== 'WordPiece' || !json.model.vocab) throw new LoupeError('VALIDATION_FAILED', 'tokenizer.json is not a WordPiece tokenizer');
    return new WordPiece(new Map(Object.entries(json.model.vocab)), { lowercase: json.normalizer?.lowercase ?? true, maxTokens });
  }

  encode(text: string): number[] {
    let t = text;
    if (this.options.lowercase) t = t.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
    const words = t.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? [];
    const ids = [this.cls];
    const room = this.options.maxTokens - 1;
    for (const w of words) {
      for (const piece of this.pieces(w)) {
        if (ids.length >= room) break;
        ids.push(piece);
      }
      if (ids.length >= room) break;
    }
    ids.push(this.sep);
    return ids;
  }

  private pieces(word: string): number[] {
    if (word.length > 100) return [this.unk];
    const out: number[] = [];
    let start = 0;
    while (start < word.length) {
      let end = word.length;
      let found: number | undefined;
      while (start < end) {
        const sub = (start > 0 ? '##' : '') + word.slice(start, end);
        found = this.vocab.get(sub);
        if (found !== undefined) break;
        end--;
      }
      if (found === undefined) return [this.unk];
      out.push(found);
      start = end;
    }
    return out;
  }
}
