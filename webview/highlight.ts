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
 * Hits grouped by file, the files in the order of each one's first hit in the answer, which is its best (the API
 * ranks hits best first, and for scope `all` lists the files by their own rank before functions and code): the
 * panel shows the API's order. Consecutive files of one repository share a repository heading; a repository whose
 * files are not adjacent in the ranking gets a heading again. Rows are drawn in this order, so selecting and
 * opening must index `displayOrder()`, not the list as it came.
 */
export function groupHits<T extends { repo_name: string; file_path: string | null }>(hits: T[]): { repo: string; files: { path: string | null; hits: T[] }[] }[] {
  const files = new Map<string, { repo: string; path: string | null; hits: T[] }>();
  for (const hit of hits) {
    const key = `${hit.repo_name}\0${hit.file_path ?? ''}`;
    let file = files.get(key);
    if (!file) files.set(key, (file = { repo: hit.repo_name, path: hit.file_path ?? null, hits: [] }));
    file.hits.push(hit);
  }
  const runs: { repo: string; files: { path: string | null; hits: T[] }[] }[] = [];
  for (const { repo, path, hits: list } of files.values()) {
    const last = runs[runs.length - 1];
    if (last?.repo === repo) last.files.push({ path, hits: list });
    else runs.push({ repo, files: [{ path, hits: list }] });
  }
  return runs;
}

/** The hits in the order the grouped list draws them: row i of the panel is element i. */
export function displayOrder<T extends { repo_name: string; file_path: string | null }>(hits: T[]): T[] {
  return groupHits(hits).flatMap((repo) => repo.files.flatMap((file) => file.hits));
}
