/**
 * The panel's search over two sources: the language server's index of this window's folders and the team server
 * (`loupe.server.url`). Pure (no `vscode`, no I/O), so it is unit-tested as it is (test/client/team-merge.test.ts):
 * which source each hit is from, where a team hit opens (a `loupe-team:` document read through the team server's
 * API), and how two ranked answers become one list.
 */
import type { SearchHit as ApiSearchHit } from '../../protocol/api/search';
import type { ResearchEvent } from '../../protocol/api/research';
import type { Citation, ResearchChunk, SearchResult } from '../../protocol/lsp';
import type { HitSource, PanelHit, PanelSearchResult } from '../../protocol/webview';

/** The scheme of a team server's file opened in the editor (a read-only virtual document). */
export const TEAM_SCHEME = 'loupe-team';

export const LOCAL_SOURCE: HitSource = { kind: 'local', label: 'local' };

/** A team server is labelled with its host (and port), as the user wrote it in `loupe.server.url`. */
export function teamSource(base: URL): HitSource {
  return { kind: 'team', label: base.host };
}

/** The source a configured `loupe.server.url` stands for (labelled as written when it is not a usable URL); null when unset. */
export function configuredSource(raw: string): HitSource | null {
  const parsed = parseServerUrl(raw);
  if (!parsed) return null;
  return 'url' in parsed ? teamSource(parsed.url) : { kind: 'team', label: raw.trim() };
}

/** An answer, or why there is none. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * Where a team hit opens: `loupe-team://<host>/<repository>/<file path>?repo=<repository id>`. The path ends with the
 * file's own name (the editor's tab and language come from it); the repository's name is one segment (its slashes
 * replaced), so everything after it is the file's path (`teamDocument` reads it back).
 */
export function teamDocumentUri(host: string, hit: { repo_id: string; repo_name: string; file_path: string }): string {
  const repo = hit.repo_name.replace(/[/\\]/g, '-') || 'repository';
  const path = [repo, ...hit.file_path.split('/')].map(encodeURIComponent).join('/');
  return `${TEAM_SCHEME}://${host}/${path}?repo=${encodeURIComponent(hit.repo_id)}`;
}

/** The repository id and file path a `loupe-team:` URI names (its path and query as `vscode.Uri` decodes them). */
export function teamDocument(uri: { authority: string; path: string; query: string }): { host: string; repoId: string; filePath: string } | null {
  const repoId = new URLSearchParams(uri.query).get('repo');
  const filePath = uri.path.split('/').slice(2).join('/');
  if (!repoId || !filePath) return null;
  return { host: uri.authority, repoId, filePath };
}

/** A team server's hit as the panel shows it: the API's hit, labelled, opening as a `loupe-team:` document. */
export function teamHit(hit: ApiSearchHit, source: HitSource): PanelHit {
  const line = hit.snippet?.highlights[0]?.line ?? hit.snippet?.start_line ?? hit.start_line ?? 1;
  const uri = hit.file_path ? teamDocumentUri(source.label, { repo_id: hit.repo_id, repo_name: hit.repo_name, file_path: hit.file_path }) : null;
  return { ...hit, uri, line, source };
}

/**
 * Two ranked lists as one: each list keeps its own order (the API's ranking is not by score alone: a name the
 * query states, source before tests), and at each step the list whose next hit scores higher goes first; scores
 * are relative to each answer's best hit of the same kind (1), so both sources' best hits come to the top. A tie
 * goes to the first list (the local index), so the order never depends on which answer came back first.
 */
export function interleave<T extends { score: number }>(first: T[], second: T[]): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < first.length || j < second.length) {
    if (j >= second.length || (i < first.length && first[i].score >= second[j].score)) out.push(first[i++]);
    else out.push(second[j++]);
  }
  return out;
}

/**
 * The panel's result from the local answer and (when a team server is configured) the team server's. A failed
 * source becomes a message in `errors`; the other's hits still show.
 */
export function mergeSearch(local: Outcome<SearchResult>, team: { source: HitSource; outcome: Outcome<SearchResult> } | null): PanelSearchResult {
  const sources: PanelSearchResult['sources'] = [];
  const errors: PanelSearchResult['errors'] = [];
  const lists: PanelHit[][] = [];
  let total = 0;
  let tookMs = 0;
  // A warning both sources give (no embedding model yet) is said once, naming both.
  const warned = new Map<string, string[]>();
  const parts: [HitSource, Outcome<SearchResult>][] = [[LOCAL_SOURCE, local], ...(team ? [[team.source, team.outcome] as [HitSource, Outcome<SearchResult>]] : [])];
  for (const [source, outcome] of parts) {
    if (!outcome.ok) {
      errors.push({ source, message: outcome.message });
      lists.push([]);
      continue;
    }
    const r = outcome.value;
    lists.push(r.hits.map((h) => ({ ...h, source: (h as Partial<PanelHit>).source ?? source })));
    sources.push({ source, total: r.total });
    total += r.total;
    tookMs = Math.max(tookMs, r.tookMs);
    for (const w of r.warnings) warned.set(w, [...(warned.get(w) ?? []), source.label]);
  }
  const warnings = [...warned].map(([w, labels]) => (team ? `${labels.join(' and ')}: ${w}` : w));
  return { hits: interleave(lists[0], lists[1] ?? []), total, tookMs, warnings, sources, errors };
}

/**
 * One event of the team server's research stream as the panel's chunks (the same shapes the language server sends
 * for the local answer): the search's count as a status, the answer's pieces as text, and at `done` the files it
 * was grounded on as citations that open as read-only `loupe-team:` documents. `error` lines never get here (the
 * client ends the stream with their message).
 */
export function teamResearchChunks(event: ResearchEvent, streamId: string, source: HitSource): ResearchChunk[] {
  switch (event.type) {
    case 'search':
      return [{ streamId, type: 'status', message: `${event.total} results on ${source.label}; writing the answer…` }];
    case 'chunk':
      return [{ streamId, type: 'text', text: event.text }];
    case 'done':
      return event.context_files.map((f): ResearchChunk => {
        const citation: Citation = {
          path: f.file_path, uri: teamDocumentUri(source.label, f), startLine: f.start_line ?? 1, endLine: f.end_line ?? f.start_line ?? 1,
        };
        return { streamId, type: 'citation', citation };
      });
    default:
      return [];
  }
}

/** `loupe.server.url` as a base URL, or why it is not one. Empty: no team server. */
export function parseServerUrl(raw: string): { url: URL } | { error: string } | null {
  const text = raw.trim();
  if (!text) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { error: `loupe.server.url is not a URL: "${text}"` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: `loupe.server.url must be an http:// or https:// URL, not "${text}"` };
  if (url.username || url.password) return { error: 'loupe.server.url must not hold credentials: the API key is kept in the secret storage ("Loupe: Set Team Server API Key")' };
  if (url.search || url.hash) return { error: `loupe.server.url must be the server's base URL, without ?query or #fragment: "${text}"` };
  return { url };
}
