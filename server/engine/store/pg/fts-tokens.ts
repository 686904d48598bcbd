/**
 * The lexical index's terms on PostgreSQL, made exactly as SQLite's FTS5 makes them for `chunks_fts`
 * (migration 001: `tokenize='unicode61 remove_diacritics 2'`), so that both backends count the same
 * terms and the same document lengths, and BM25 ranks alike.
 *
 * - The three columns are composed as `SqliteFilesStore.writeOne` composes them: the path with its
 *   identifier sub-words, the chunk's symbol names with theirs, the chunk's text with its sub-words
 *   appended (`identifierWords`, the same TypeScript on both sides).
 * - unicode61: a token is a run of ASCII letters and digits and of the non-ASCII characters FTS5 takes
 *   as token characters (fts-token-chars.ts, read from SQLite: its Unicode tables, not JavaScript's);
 *   everything else separates (so `_`, `$` and `.` split identifiers). Tokens are folded to lower case
 *   and lose their diacritics (`café` is `cafe`; a token of diacritics alone is none), so token counts
 *   (document lengths) are FTS5's exactly. The folded spelling of a non-ASCII token follows JavaScript's
 *   case mapping and NFD, which can differ from FTS5's for a few letters: that only matters to a query
 *   term, and query terms are ASCII (search/query.ts). ASCII, nearly all of code, takes a fast path.
 */
import { identifierWords } from '../../util/words';
import { LoupeError } from '../../errors';
import { isFts5TokenChar } from './fts-token-chars';

function fold(token: string): string {
  if (/^[\x00-\x7f]*$/.test(token)) return token.toLowerCase();
  return token.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').normalize('NFC');
}

/** The tokens of one column's text, as FTS5 unicode61 (remove_diacritics 2) emits them, in order. */
export function ftsTokens(text: string): string[] {
  const out: string[] = [];
  let start = -1;
  let ascii = true;
  const flush = (end: number) => {
    if (start < 0) return;
    const raw = text.slice(start, end);
    const token = ascii ? raw.toLowerCase() : fold(raw);
    if (token) out.push(token);
    start = -1;
    ascii = true;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) {
        if (start < 0) start = i;
      } else flush(i);
      continue;
    }
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    if (isFts5TokenChar(cp)) {
      if (start < 0) start = i;
      ascii = false;
    } else flush(i);
    i += width - 1;
  }
  flush(text.length);
  return out;
}

/** The three FTS columns of one chunk (path, symbols, body), composed as the SQLite store composes them. */
export function ftsColumns(path: string, symbols: string[], content: string): [string, string, string] {
  const joined = symbols.join(' ');
  return [
    `${path} ${identifierWords(path)}`,
    symbols.length ? `${joined} ${identifierWords(joined)}` : '',
    `${content}\n${identifierWords(content)}`,
  ];
}

/** A chunk's postings: each term's count in the path, symbols and body columns; and its length in tokens (all columns). */
export function ftsPostings(columns: [string, string, string]): { terms: Map<string, [number, number, number]>; tokens: number } {
  const terms = new Map<string, [number, number, number]>();
  let tokens = 0;
  columns.forEach((text, col) => {
    for (const t of ftsTokens(text)) {
      tokens++;
      let tf = terms.get(t);
      if (!tf) terms.set(t, (tf = [0, 0, 0]));
      tf[col]++;
    }
  });
  return { terms, tokens };
}

/** One phrase of an FTS5 query: its tokens, and whether the last one is a prefix (`"stem"*`). */
export interface FtsPhrase { tokens: string[]; prefix: boolean }

/**
 * The expressions `ftsExpression` (search/query.ts) builds: quoted phrases, each maybe followed by `*`,
 * joined by OR. Anything else is refused rather than misread.
 */
export function parseFtsMatch(match: string): FtsPhrase[] {
  const phrases: FtsPhrase[] = [];
  const re = /\s*"((?:[^"]|"")*)"(\*?)\s*(?:OR|$)/gy;
  let m: RegExpExecArray | null;
  let end = 0;
  while (end < match.length && (m = re.exec(match))) {
    phrases.push({ tokens: ftsTokens(m[1]!.replace(/""/g, '"')), prefix: m[2] === '*' });
    end = re.lastIndex;
  }
  if (end !== match.length) throw new LoupeError('INTERNAL', `not a full-text expression of ours: ${match}`);
  return phrases;
}
