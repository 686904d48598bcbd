/**
 * Whether a text holds one of `words` (lower case) as a whole word, case-insensitively: a word is a run of word
 * characters; a word written with hyphens (`app-header`, a component's name in a template) is matched as a whole
 * hyphenated run too.
 */
export function mentionsAny(text: string, words: ReadonlySet<string>): boolean {
  const lower = text.toLowerCase();
  if ((lower.match(/\w+/g) ?? []).some((w) => words.has(w))) return true;
  return [...words].some((w) => w.includes('-')) && (lower.match(/\w+(?:-\w+)+/g) ?? []).some((w) => words.has(w));
}
