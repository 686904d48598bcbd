/** Hover's pieces of text: links that open files, the users line, radius and doc summaries. */
import type { EditorOperations } from '../../../engine/operations/editor';
import type { ParsedSymbol, RepoRecord } from '../../../engine/types';

const MAX_USERS_LISTED = 6;
const MAX_EXPORTS_LISTED = 6;
const MAX_SUMMARY_CHARS = 240;

/** A Markdown link VS Code opens in the editor (`#L12` selects the line). */
export function fileLink(label: string, uri: string): string {
  const safe = label.replace(/[[\]\\`*_]/g, (c) => `\\${c}`);
  return `[${safe}](${uri.replace(/[()\s]/g, (c) => encodeURIComponent(c))})`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "5 dependents · 1 entry point · 1 test" (the file lens' words). */
export function radiusLine(impact: { dependents: unknown[]; entryPoints: number; tests: number }): string {
  const parts = [plural(impact.dependents.length, 'dependent', 'dependents')];
  if (impact.entryPoints) parts.push(plural(impact.entryPoints, 'entry point', 'entry points'));
  if (impact.tests) parts.push(plural(impact.tests, 'test', 'tests'));
  return parts.join(' · ');
}

/** "`name` is used in 7 files: a.ts, b.ts, … and 2 more; tests: x.test.ts" — non-tests first. */
export function usersLine(name: string, users: { path: string; uri: string; test: boolean }[]): string {
  if (!users.length) return `\`${name}\` is exported but no other file of the workspace uses it.`;
  const code = users.filter((u) => !u.test);
  const tests = users.filter((u) => u.test);
  const list = (items: typeof users, max: number) => {
    const shown = items.slice(0, max).map((u) => fileLink(u.path.split('/').pop()!, u.uri)).join(', ');
    return items.length > max ? `${shown} and ${items.length - max} more` : shown;
  };
  const parts = [`\`${name}\` is used in **${plural(users.length, 'file', 'files')}**`];
  if (code.length) parts.push(`: ${list(code, MAX_USERS_LISTED)}`);
  if (tests.length) parts.push(`${code.length ? '; ' : ': '}${plural(tests.length, 'test', 'tests')}: ${list(tests, Math.max(2, MAX_USERS_LISTED - code.length))}`);
  return parts.join('');
}

/** "`a`, `b`, `c` and 4 more" */
export function exportList(names: string[]): string {
  const shown = names.slice(0, MAX_EXPORTS_LISTED).map((n) => `\`${n}\``).join(', ');
  return names.length > MAX_EXPORTS_LISTED ? `${shown} and ${names.length - MAX_EXPORTS_LISTED} more` : shown;
}

/** The first paragraph of a file's doc (what it is for), without headings, cut to a line or two. */
export function docSummary(markdown: string): string {
  const paragraph = markdown.split(/\n\s*\n/).map((p) => p.trim()).find((p) => p && !p.startsWith('#') && !p.startsWith('_')) ?? '';
  // The doc's own "Used by N files…" sentence repeats the radius shown beside it.
  const flat = paragraph.replace(/\s+/g, ' ').replace(/\s*(Used by \d+ files? directly|No indexed file imports it)[^]*$/, '');
  return flat.length > MAX_SUMMARY_CHARS ? `${flat.slice(0, MAX_SUMMARY_CHARS - 1).replace(/\s+\S*$/, '')}…` : flat;
}

/** The symbol `name` declared in `relPath`, following re-exports (barrels) a few levels. */
export function declarationOf(editor: EditorOperations, repo: RepoRecord, relPath: string, name: string, depth = 0): { symbol: ParsedSymbol; path: string } | null {
  const file = editor.file(repo, relPath);
  if (!file) return null;
  const symbol = editor.symbols(file).find((s) => s.name === name && s.parent === null);
  if (symbol) return { symbol, path: relPath };
  if (depth >= 3) return null;
  for (const i of editor.imports(file)) {
    if ((i.kind === 'export' || i.kind === 'export-all') && i.targetPath && (i.names.includes(name) || i.names.includes('*'))) {
      const found = declarationOf(editor, repo, i.targetPath, name, depth + 1);
      if (found) return found;
    }
  }
  return null;
}
