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

export function identifierWords(text: string): string {
  const out: string[] = [];
  for (const match of text.matchAll(IDENTIFIER)) {
    const parts = splitIdentifier(match[0]);
    if (parts.length > 1) out.push(parts.join(' '));
  }
  return out.join(' ');
}
