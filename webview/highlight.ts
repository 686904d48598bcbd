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

/** What the grouping reads of a hit: its repository, file and, when the panel searched two places, its source. */
export interface GroupableHit { repo_name: string; file_path: string | null; source?: { kind: string; label: string } }

export interface HitGroup<T> { repo: string; source?: { kind: string; label: string }; files: { path: string | null; hits: T[] }[] }

/**
 * Hits grouped by file, the files in the order of each one's first hit in the answer, which is its best (the API
 * ranks hits best first, and for scope `all` lists the files by their own rank before functions and code): the
 * panel shows the API's order. Consecutive files of one repository share a repository heading; a repository whose
 * files are not adjacent in the ranking gets a heading again. A hit's source (the local index or the team server)
 * is part of its file's identity: a repository of the same name in both places is two groups, each labelled.
 * Rows are drawn in this order, so selecting and opening must index `displayOrder()`, not the list as it came.
 */
export function groupHits<T extends GroupableHit>(hits: T[]): HitGroup<T>[] {
  const sourceKey = (hit: T) => (hit.source ? `${hit.source.kind}:${hit.source.label}` : '');
  const files = new Map<string, { repo: string; source: T['source']; key: string; path: string | null; hits: T[] }>();
  for (const hit of hits) {
    const key = `${sourceKey(hit)}\0${hit.repo_name}`;
    const fileKey = `${key}\0${hit.file_path ?? ''}`;
    let file = files.get(fileKey);
    if (!file) files.set(fileKey, (file = { repo: hit.repo_name, source: hit.source, key, path: hit.file_path ?? null, hits: [] }));
    file.hits.push(hit);
  }
  const runs: (HitGroup<T> & { key: string })[] = [];
  for (const { repo, source, key, path, hits: list } of files.values()) {
    const last = runs[runs.length - 1];
    if (last?.key === key) last.files.push({ path, hits: list });
    else runs.push({ repo, ...(source ? { source } : {}), key, files: [{ path, hits: list }] });
  }
  return runs.map(({ key: _key, ...run }) => run as HitGroup<T>);
}

/** The hits in the order the grouped list draws them: row i of the panel is element i. */
export function displayOrder<T extends GroupableHit>(hits: T[]): T[] {
  return groupHits(hits).flatMap((repo) => repo.files.flatMap((file) => file.hits));
}
