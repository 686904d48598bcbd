/** A definition's line span: a symbol row, or anything with one. */
export interface LineSpan {
  startLine: number;
  endLine: number;
}

/** The innermost (shortest) span around `line`, or undefined; among equal spans, the first. */
export function innermostAround<T extends LineSpan>(spans: readonly T[], line: number): T | undefined {
  let best: T | undefined;
  for (const s of spans) {
    if (s.startLine > line || s.endLine < line) continue;
    if (!best || s.endLine - s.startLine < best.endLine - best.startLine) best = s;
  }
  return best;
}
