/** Snippet lines with their highlighted ranges marked, HTML-escaped. */
import type { SearchHighlight } from '../protocol/lsp';
import { escapeHtml } from './markdown';

export interface SnippetLine { number: number; html: string; hasMatch: boolean }

/**
 * `wholeWords`: a match inside an identifier (`Cookie` of `setCookie`, as semantic search matches
 * sub-words) is marked on the whole identifier, so the eye finds the name rather than a piece of it.
 * Grep results keep their exact ranges.
 */
export function snippetLines(startLine: number, text: string, highlights: SearchHighlight[], wholeWords = false): SnippetLine[] {
  return text.split('\n').map((line, i) => {
    const number = startLine + i;
    const ranges = highlights
      .filter((h) => h.line === number && h.end > h.start)
      .map((h) => (wholeWords ? widenToWord(line, h) : h))
      .sort((a, b) => a.start - b.start);
    let html = '';
    let at = 0;
    for (const r of ranges) {
      const start = Math.max(r.start, at);
      const end = Math.min(r.end, line.length);
      if (end <= start) continue;
      html += `${escapeHtml(line.slice(at, start))}<mark>${escapeHtml(line.slice(start, end))}</mark>`;
      at = end;
    }
    html += escapeHtml(line.slice(at));
    return { number, html, hasMatch: ranges.length > 0 };
  });
}

const WORD = /[\p{L}\p{N}_$]/u;

/** The range grown to the identifier around it. */
export function widenToWord<T extends { start: number; end: number }>(line: string, range: T): T {
  let { start, end } = range;
  while (start > 0 && WORD.test(line[start - 1])) start--;
  while (end < line.length && WORD.test(line[end])) end++;
  return { ...range, start, end };
}

/**
 * Hits grouped by repository, then file, keeping the order of the first hit of each. Rows are drawn
 * in this order, so selecting and opening must index `displayOrder()`, not the list as it came.
 */
export function groupHits<T extends { repo_name: string; file_path: string | null }>(hits: T[]): { repo: string; files: { path: string | null; hits: T[] }[] }[] {
  const repos = new Map<string, Map<string, T[]>>();
  for (const hit of hits) {
    let files = repos.get(hit.repo_name);
    if (!files) repos.set(hit.repo_name, (files = new Map()));
    const key = hit.file_path ?? '';
    if (!files.has(key)) files.set(key, []);
    files.get(key)!.push(hit);
  }
  return [...repos].map(([repo, files]) => ({ repo, files: [...files].map(([path, list]) => ({ path: path || null, hits: list })) }));
}

/** The hits in the order the grouped list draws them: row i of the panel is element i. */
export function displayOrder<T extends { repo_name: string; file_path: string | null }>(hits: T[]): T[] {
  return groupHits(hits).flatMap((repo) => repo.files.flatMap((file) => file.hits));
}
