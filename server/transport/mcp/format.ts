/**
 * Compact text renderings of the HTTP answers for a language model: what it needs to act on,
 * without the envelope, timings or account meta (agents pay for every token).
 */
// JSON of no fixed schema (the API answers rendered for a model), walked field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Json = Record<string, any>;

const lines = (range: { start_line?: number; end_line?: number }) =>
  (range.start_line ? `:${range.start_line}${range.end_line && range.end_line !== range.start_line ? `-${range.end_line}` : ''}` : '');

export function searchText(data: Json): string {
  const results = (data.results ?? []) as Json[];
  if (!results.length) return `No hits (${data.search?.mode ?? 'search'}).${warnings(data.search?.warnings)}`;
  const out = results.map((hit) => {
    const where = hit.type === 'repo' ? `[repo] ${hit.repo_name}` : `${hit.repo_name}/${hit.file_path}${lines(hit)}`;
    const what = hit.name ? ` ${hit.kind ?? ''} ${hit.signature ?? hit.name}`.trimEnd() : '';
    const snippet = typeof hit.snippet?.text === 'string' ? `\n    ${hit.snippet.text.split('\n').slice(0, 3).map((l: string) => l.trim()).filter(Boolean).join(' ⏎ ').slice(0, 200)}` : '';
    return `- ${where}${what}${snippet}`;
  });
  return `${data.total} hits (${data.search?.mode}); showing ${results.length}:\n${out.join('\n')}${warnings(data.search?.warnings)}`;
}

const warnings = (list: unknown) => (Array.isArray(list) && list.length ? `\nWarnings: ${list.join('; ')}` : '');

export function sourcesText(files: Json[]): string {
  return files.map((f) => `- ${f.repo_name}/${f.file_path}${lines(f)}`).join('\n');
}

export function radiusText(data: Json): string {
  const s = data.summary ?? {};
  const head = [
    `Blast radius (${data.source}${data.working_tree ? `: ${data.working_tree.files.length} changed files` : ''}): ${s.total_dependents} dependent files`
      + ` (${s.direct_dependents} direct, ${s.type_only_dependents} type-only), max depth ${s.max_depth}, ${s.entry_points} entry points, ${s.tests} tests; risk ${s.risk}.`,
  ];
  for (const t of (data.targets ?? []) as Json[]) {
    if (!t.found) {
      head.push(`\n${t.target}: not found (${t.reason})`);
      continue;
    }
    head.push(`\n${t.target}: ${t.dependents_total} dependents`);
    for (const d of (t.dependents ?? []) as Json[]) head.push(`- ${d.file_path} (depth ${d.depth}${d.type_only ? ', type-only' : ''})`);
    if ((t.dependents?.length ?? 0) < t.dependents_total) head.push(`- … ${t.dependents_total - t.dependents.length} more`);
  }
  return head.join('\n') + warnings(data.warnings);
}

export function reposText(data: Json[]): string {
  if (!data.length) return 'No indexed repositories. Index a folder with POST /v2/repos/index/new (HTTP) or start `npm run mcp -- <folder>`.';
  return data.map((r) => `- ${r.name} (id ${r.repo_id}, ${r.state}, ${r.files_indexed}/${r.files_total} files) ${r.url}`).join('\n');
}
