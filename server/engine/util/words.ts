import { boundedMemo } from './bounded-memo';

/**
 * Splits identifiers into their sub-words so that full-text search finds `parseSignedCookie` for
 * "signed cookie" and `MAX_RETRY_COUNT` for "retry count". Returns only the words that splitting
 * adds (the original tokens are indexed as they are).
 */
const IDENTIFIER = /[A-Za-z][A-Za-z0-9]*(?:[A-Z][a-z0-9]+)+|[a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z]{2,}[a-z][A-Za-z0-9]*/g;
const PARTS = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;

export function splitIdentifier(identifier: string): string[] {
  return (identifier.match(PARTS) ?? []).map((p) => p.toLowerCase());
}

/**
 * The sub-words of a text's identifiers, as `IDENTIFIER` finds them scanning the whole text. That pattern
 * matches ASCII letters and digits only, so its matches never cross another character: the text is read as
 * runs of letters and digits, each run's words are its own, and a run without a capital letter has none (every
 * branch needs one), so only the runs around a capital are read. Code repeats its identifiers, so each run's
 * words are kept once made (a bounded memo): the index writer spent ~2 s of a payload
 * cold index in the pattern, finding the same words again and again.
 */
export function identifierWords(text: string): string {
  let out = '';
  const n = text.length;
  CAPITAL.lastIndex = 0;
  while (CAPITAL.test(text)) {
    const at = CAPITAL.lastIndex - 1;
    let i = at;
    while (i > 0 && isAlnum(text.charCodeAt(i - 1))) i--;
    let j = at + 1;
    while (j < n && isAlnum(text.charCodeAt(j))) j++;
    const words = runWords(text.slice(i, j));
    if (words) out = out ? `${out} ${words}` : words;
    CAPITAL.lastIndex = j;
  }
  return out;
}

const CAPITAL = /[A-Z]/g;
/** One run's words, as identifierWords joins them (up to 65,536 runs kept). */
const runWords = boundedMemo(65_536, (run) => {
  const out: string[] = [];
  for (const match of run.matchAll(IDENTIFIER)) {
    const parts = splitIdentifier(match[0]);
    if (parts.length > 1) out.push(parts.join(' '));
  }
  return out.join(' ');
});

const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
