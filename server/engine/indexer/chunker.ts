import type { ParsedChunk, ParsedSymbol } from '../types';

const MIN_LINES = 12;
const MAX_LINES = 60;

/**
 * Cuts a file into contiguous, non-overlapping chunks that cover every line, preferring to start a
 * chunk where a top-level symbol starts. Joining the chunks with newlines gives the file back.
 */
export function chunkFile(lines: string[], symbols: ParsedSymbol[]): ParsedChunk[] {
  const boundaries = new Set(symbols.filter((s) => s.parent === null).map((s) => s.startLine));
  const chunks: ParsedChunk[] = [];
  let start = 1;
  const flush = (end: number) => {
    if (end < start) return;
    const inside = symbols.filter((s) => s.startLine >= start && s.startLine <= end).map((s) => s.name);
    chunks.push({ startLine: start, endLine: end, symbols: [...new Set(inside)], content: lines.slice(start - 1, end).join('\n') });
    start = end + 1;
  };
  for (let line = 2; line <= lines.length; line++) {
    const size = line - start;
    if ((boundaries.has(line) && size >= MIN_LINES) || size >= MAX_LINES) flush(line - 1);
  }
  flush(lines.length);
  if (chunks.length === 0) chunks.push({ startLine: 1, endLine: 1, symbols: [], content: '' });
  return chunks;
}
