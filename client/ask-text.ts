/** The research question "Ask about selection" sends. Pure, so unit tests cover it. */

const MAX_SELECTION_CHARS = 4_000;

/**
 * The question, then where the code is and the code itself (cut to a size the search can use): the
 * search finds the code's own words, and the answer knows what "this" means.
 */
export function selectionQuestion(question: string, path: string, selection: { start: number; end: number; text: string } | null): string {
  if (!selection) return `${question}\n\n(about the file ${path})`;
  const where = selection.start === selection.end ? `${path}:${selection.start}` : `${path}:${selection.start}-${selection.end}`;
  const code = selection.text.length > MAX_SELECTION_CHARS ? `${selection.text.slice(0, MAX_SELECTION_CHARS)}\n…` : selection.text;
  return `${question}\n\n(about ${where})\n\`\`\`\n${code}\n\`\`\``;
}
