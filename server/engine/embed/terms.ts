import { boundedMemo } from '../util/bounded-memo';

/**
 * The words code is made of, as the embedders and BM25 see them: identifiers split into sub-words
 * (`parseSignedCookie` → parse, signed, cookie), lower-cased, common English stop words dropped,
 * then reduced to a light stem so "rotating", "rotation" and `rotate` meet.
 */

export const STOP_WORDS = new Set((
  'a an and are as at be been but by can could do does did for from had has have how i if in into is it its '
  + 'me my no not of on or our so such that the their them then there these they this those to use used uses using '
  + 'was we were what when where which while who why will with would you your all any some each via about also '
  + 'should find show get gets code function functions method methods thing things work works '
  + 'var let const return true false null undefined new')
  .split(/\s+/).filter(Boolean));

// Keywords and comment markup that say nothing about what code does (JSDoc tags are kept: @param names are useful).
const NOISE = new Set('this return const var let function if else for while new true false null undefined typeof instanceof break continue case switch default export import from require module exports prototype private public protected static void string number boolean object any type since method memberof param returns type'.split(' '));

const SUFFIXES: [string, number][] = [
  ['ational', 5], ['ization', 5], ['ations', 4], ['ation', 3], ['ities', 3], ['ness', 4], ['ments', 5], ['ment', 4],
  ['ings', 4], ['ing', 3], ['ions', 4], ['ion', 3], ['ies', 3], ['ied', 3], ['ers', 3], ['er', 2], ['ed', 2], ['es', 2],
  ['ly', 2], ['s', 1], ['e', 1], ['y', 1],
];

/** A light stem: strips one common suffix, keeping at least 3 letters. Used as a prefix, so it may be short. */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  for (const [suffix, cut] of SUFFIXES) {
    if (word.endsWith(suffix) && word.length - cut >= 3) {
      if (suffix === 's' && word.endsWith('ss')) return word;
      let w = word.slice(0, word.length - cut);
      // running → runn → run; stopped → stopp → stop
      if ((suffix === 'ing' || suffix === 'ed') && w.length > 3 && w[w.length - 1] === w[w.length - 2] && !/[aeiouls]/.test(w[w.length - 1])) w = w.slice(0, -1);
      return w;
    }
  }
  return word;
}

const PARTS = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;

/**
 * The stemmed terms of one token, as textTerms splits it. Code repeats its identifiers (phaser ×4: 2.3
 * million terms from ~60,000 distinct tokens), so each token's terms are kept once made: the derived
 * phase's embedding and training spent most of their time splitting and stemming the same words again.
 * The memory is bounded: past 65,536 tokens the memo starts over.
 */
const tokenTerms = boundedMemo(65_536, (token): readonly string[] => {
  const terms: string[] = [];
  for (const raw of token.match(PARTS) ?? [token]) {
    const p = raw.toLowerCase();
    if (p.length < 2 || p.length > 30 || STOP_WORDS.has(p) || NOISE.has(p)) continue;
    terms.push(stem(p));
  }
  return terms;
});

/** The stemmed terms of a text, in order, with repeats (embedders weight by frequency). */
export function textTerms(text: string): string[] {
  const out: string[] = [];
  // Its tokens (a letter, then letters and digits), found without a regular expression's match objects.
  const n = text.length;
  for (let i = 0; i < n;) {
    const c = text.charCodeAt(i);
    if (!isLetter(c)) { i++; continue; }
    let j = i + 1;
    while (j < n && isLetterOrDigit(text.charCodeAt(j))) j++;
    for (const term of tokenTerms(text.slice(i, j))) out.push(term);
    i = j;
  }
  return out;
}

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isLetterOrDigit = (c: number) => isLetter(c) || (c >= 48 && c <= 57);

/** FNV-1a, for hashed features. */
export function hash32(text: string, seed = 0x811c9dc5): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
