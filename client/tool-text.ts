/** What the language model tools answer, as plain text a model reads well. Pure, so unit tests cover it. */
import type { RadiusResult, SearchResult } from '../protocol/lsp';
import { byDepth, radiusSummary } from './dependents-text';

const MAX_DEPENDENTS_LISTED = 60;

export function searchText(query: string, result: SearchResult): string {
  if (!result.hits.length) return `No results for "${query}".`;
  const lines = [`${result.total} results for "${query}" (best first):`];
  for (const hit of result.hits) {
    const where = hit.file_path ? `${hit.file_path}:${hit.line}` : hit.repo_name;
    const title = hit.name ? ` ${hit.name}${hit.signature ? ` — ${hit.signature}` : ''}` : '';
    lines.push('', `${where}${title}`);
    if (hit.snippet) lines.push('```', hit.snippet.text.split('\n').slice(0, 8).join('\n'), '```');
  }
  if (result.warnings.length) lines.push('', `Warnings: ${result.warnings.join('; ')}`);
  return lines.join('\n');
}

export function radiusText(radius: RadiusResult): string {
  if (radius.note) return `${radius.path}: ${radius.note}`;
  if (!radius.dependents.length) return `${radius.path}: no file depends on it.`;
  const lines = [`${radius.path}: ${radiusSummary(radius)}.`];
  let listed = 0;
  for (const [depth, files] of byDepth(radius.dependents)) {
    if (listed >= MAX_DEPENDENTS_LISTED) break;
    const shown = files.slice(0, MAX_DEPENDENTS_LISTED - listed);
    listed += shown.length;
    lines.push(`Depth ${depth} (${files.length}): ${shown.map((f) => `${f.path}${f.isTest ? ' [test]' : f.isEntryPoint ? ' [entry point]' : ''}`).join(', ')}${shown.length < files.length ? `, … ${files.length - shown.length} more` : ''}`);
  }
  return lines.join('\n');
}

export function fileDocText(doc: { path: string; markdown: string; processing: boolean }): string {
  if (doc.processing) return `${doc.path}: Loupe is still writing this file's documentation.${doc.markdown ? ` Its description: ${doc.markdown}` : ''}`;
  return doc.markdown;
}

export function blueprintText(repos: { repoName: string; markdown: string }[]): string {
  if (!repos.length) return 'No workspace folder is indexed.';
  return repos.map((r) => (repos.length > 1 ? `# ${r.repoName}\n\n${r.markdown}` : r.markdown)).join('\n\n---\n\n');
}
