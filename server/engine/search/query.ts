import { LoupeError } from '../errors';
import { splitIdentifier } from '../util/words';
import { RegexSyntaxError, translateRustRegex } from './rust-regex';
import type { GrepMatcher } from './grep-scan';
import { literalQueryOf, needlesOf, type LiteralQuery } from './regex-plan';
import { stem, STOP_WORDS } from '../embed/terms';

export interface GrepQuery {
  matcher: GrepMatcher;
  /**
   * Literals a file holding a match contains (every one of some list, ASCII case aside; each within
   * one line): the trigram index picks candidate files with them. Null when nothing narrows the search.
   */
  literals: LiteralQuery;
  /** How to say it to ripgrep (tests and benchmarks run the same search with rg). */
  rgArgs: string[];
}

const REGEX_QUERY = /^\/([^]+)\/([A-Za-z]*)$/;

/**
 * `grep_code`/`grep_docs` queries: a literal string, or `/pattern/flags` with flags i (ignore case),
 * m (multi-line: a match may span lines, as `rg -U`) and s (`.` matches a newline too).
 */
export function parseGrepQuery(query: string): GrepQuery {
  const regex = REGEX_QUERY.exec(query);
  if (!regex) {
    if (query.includes('\n')) {
      throw new LoupeError('VALIDATION_FAILED', 'query: a literal grep query must not contain a line break (use /pattern/m to match across lines)', { field: 'query' });
    }
    return { matcher: { kind: 'literal', text: query }, literals: literalQueryOf(query), rgArgs: ['-F', '--', query] };
  }
  const [, pattern, flags] = regex;
  const unknown = [...flags].filter((f) => !'ims'.includes(f));
  if (unknown.length) {
    throw new LoupeError('VALIDATION_FAILED', `query: unknown regular expression flag ${unknown.join(', ')} (allowed: i, m, s)`, { field: 'query' });
  }
  const multiline = flags.includes('m');
  let t;
  try {
    t = translateRustRegex(pattern, { ignoreCase: flags.includes('i'), dotAll: flags.includes('s'), multiline });
  } catch (error) {
    if (error instanceof RegexSyntaxError) {
      throw new LoupeError('VALIDATION_FAILED', `query: invalid regular expression: ${error.message}`, { field: 'query' });
    }
    throw error;
  }
  const rgArgs = [
    ...(flags.includes('i') ? ['-i'] : []),
    ...(multiline ? ['-U'] : []),
    ...(flags.includes('s') && multiline ? ['--multiline-dotall'] : []),
    '-e', flags.includes('s') && !multiline ? `(?s)${pattern}` : pattern,
  ];
  return {
    matcher: {
      kind: 'regex', exact: t.exact, native: t.native, flags: t.flags, nativeFlags: t.nativeFlags, multiline,
      // indexOf is case-sensitive: needles only serve a case-sensitive, line-mode regex.
      ...(t.literals && !multiline && !t.flags.includes('i') ? { needles: needlesOf(t.literals) } : {}),
    },
    literals: t.literals,
    rgArgs,
  };
}

/** A natural-language or identifier query, as the words BM25 and the embedders use. */
export interface QueryTerms {
  /** Lower-case words and identifier sub-words, stop words removed, in query order. */
  words: string[];
  /** Their stems (prefixes that also match other inflections). */
  stems: string[];
  /** Identifier-looking tokens as written (`parseSignedCookie`), for exact symbol lookups. */
  identifiers: string[];
}

export function queryTerms(query: string): QueryTerms {
  const words: string[] = [];
  const identifiers: string[] = [];
  for (const token of query.match(/[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+/g) ?? []) {
    if (/[a-z][A-Z]|_/.test(token) || (/^[A-Z]/.test(token) && token.length > 2)) identifiers.push(token);
    const parts = [token.toLowerCase(), ...splitIdentifier(token)];
    for (const p of parts) {
      if (p.length < 2 || STOP_WORDS.has(p) || words.includes(p)) continue;
      words.push(p);
    }
  }
  const stems = [...new Set(words.map(stem))];
  return { words, stems, identifiers: [...new Set(identifiers)] };
}

/** FTS5 expression: any word, or any word sharing a stem (prefix), ranks by BM25. */
export function ftsExpression(terms: QueryTerms): string | null {
  const parts = new Set<string>();
  for (const w of terms.words) parts.add(`"${w.replace(/"/g, '""')}"`);
  // Prefix matches cost a term expansion each: only for real stems (shorter than the word) of 4+ letters.
  for (const s of terms.stems) if (s.length >= 4 && !terms.words.includes(s)) parts.add(`"${s.replace(/"/g, '""')}"*`);
  return parts.size ? [...parts].join(' OR ') : null;
}
