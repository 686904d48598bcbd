import path from 'node:path';
import type { RepoRecord } from '../types';
import type { AnalysisContext } from './context';
import { isTestPath } from './entry-points';
import type { ImportGraph } from './import-graph';
import { librariesOf } from './testing-libraries';

export interface Conventions {
  path_prefix: string | null;
  files: number;
  naming: Record<string, unknown>;
  formatting: Record<string, unknown>;
  layout: Record<string, unknown>;
}

/** Files read for formatting measures: enough for stable shares, few enough for an interactive answer. */
const SAMPLE_FILES = 50;
const CODE_LANGUAGES = new Set(['typescript', 'javascript', 'python', 'go', 'rust', 'java', 'csharp', 'ruby', 'php', 'kotlin', 'swift', 'c', 'cpp']);

type Style = 'camelCase' | 'PascalCase' | 'snake_case' | 'UPPER_SNAKE' | 'kebab-case' | 'lowercase' | 'other';

/**
 * The case style of a name. Leading and trailing underscores mark visibility or a special name, not a style
 * (Python's `_private`, `__init__`; `_internal` in JavaScript): they are left out first.
 */
export function styleOf(written: string): Style {
  const name = written.replace(/^_+|_+$/g, '');
  if (/^[a-z][a-z0-9]*$/.test(name)) return 'lowercase';
  if (/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(name) || /^[A-Z]{2,}[0-9]*$/.test(name)) return 'UPPER_SNAKE';
  if (/^[a-z][a-z0-9]*([A-Z][a-z0-9]*)+$/.test(name)) return 'camelCase';
  if (/^[A-Z][a-z0-9]+([A-Z][a-z0-9]*)*$/.test(name)) return 'PascalCase';
  if (/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/.test(name)) return 'snake_case';
  if (/^[a-z][a-z0-9]*(-[a-z0-9]+)+$/.test(name)) return 'kebab-case';
  return 'other';
}

/** The styles a one-word lowercase name (`render`, `init`) also is: it counts for the one of them the code writes most. */
const LOWERCASE_FITS = ['snake_case', 'camelCase', 'kebab-case'];

const share = (measured: Map<string, number>) => {
  const counts = new Map(measured);
  const fit = LOWERCASE_FITS.filter((s) => counts.has(s)).sort((a, b) => counts.get(b)! - counts.get(a)!)[0];
  if (fit && counts.has('lowercase')) {
    counts.set(fit, counts.get(fit)! + counts.get('lowercase')!);
    counts.delete('lowercase');
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const entries = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  return {
    dominant: entries[0]?.[0] ?? null,
    share: total ? Math.round((entries[0][1] / total) * 1000) / 1000 : 0,
    counts: Object.fromEntries(entries),
  };
};

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

const cache = new WeakMap<ImportGraph, Map<string, Conventions>>();

/** Naming, formatting and layout profile measured from the code (under `prefix` when given); kept per index generation. */
export async function measureConventions(ctx: AnalysisContext, repo: Pick<RepoRecord, 'id'>, graph: ImportGraph, prefix: string | null): Promise<Conventions> {
  let byPrefix = cache.get(graph);
  if (!byPrefix) cache.set(graph, (byPrefix = new Map()));
  let result = byPrefix.get(prefix ?? '');
  if (!result) byPrefix.set(prefix ?? '', (result = await measure(ctx, repo, graph, prefix)));
  return result;
}

async function measure(ctx: AnalysisContext, repo: Pick<RepoRecord, 'id'>, graph: ImportGraph, prefix: string | null): Promise<Conventions> {
  const norm = prefix ? prefix.replace(/^\.?\//, '') : null;
  const inScope = graph.files.map((f, i) => ({ f, i })).filter(({ f }) => CODE_LANGUAGES.has(f.language ?? '') && (!norm || f.path.startsWith(norm)));
  const step = Math.max(1, Math.ceil(inScope.length / SAMPLE_FILES));
  const sample = inScope.filter((_, k) => k % step === 0);
  const naming = { functions: new Map<string, number>(), classes: new Map<string, number>(), constants: new Map<string, number>(), variables: new Map<string, number>(), files: new Map<string, number>() };
  for (const { f } of inScope) bump(naming.files, styleOf(path.posix.basename(f.path).replace(/(\.(test|spec|d))?\.[^.]+$/, '')));
  // Symbol names from the same evenly spread sample as formatting: per-file reads, not the whole symbol table.
  // The sample's symbols and texts are read together, before the loops.
  const [sampleSymbols, sampleTexts] = await Promise.all([
    Promise.all(sample.map(({ i }) => ctx.fileSymbols(graph, i))),
    Promise.all(sample.map(({ f }) => ctx.store.fileText(repo.id, f.path))),
  ]);
  for (const symbols of sampleSymbols) {
    for (const s of symbols) {
      if (s.parent !== null && s.kind !== 'method') continue;
      const bucket = s.kind === 'function' || s.kind === 'method' ? naming.functions
        : s.kind === 'class' || s.kind === 'interface' || s.kind === 'type' || s.kind === 'enum' || s.kind === 'struct' ? naming.classes
          : s.kind === 'constant' ? naming.constants : s.kind === 'variable' ? naming.variables : null;
      if (bucket && s.name !== 'constructor') bump(bucket, styleOf(s.name));
    }
  }

  const indent = new Map<string, number>();
  const quotes = new Map<string, number>();
  let statementLines = 0;
  let semicolonLines = 0;
  let trailing = 0;
  let totalLines = 0;
  const lengths: number[] = [];
  for (const [k, { f }] of sample.entries()) {
    const text = sampleTexts[k] ?? '';
    const isScript = f.language === 'typescript' || f.language === 'javascript';
    for (const line of text.split('\n')) {
      totalLines++;
      lengths.push(line.length);
      if (/[ \t]+$/.test(line)) trailing++;
      const lead = /^([ \t]+)\S/.exec(line)?.[1];
      if (lead) bump(indent, lead.startsWith('\t') ? 'tabs' : lead.length % 4 === 0 && lead.length >= 4 && !/^( {2}| {6})\S/.test(line) ? '4 spaces' : lead.length % 2 === 0 ? '2 spaces' : 'other');
      if (!isScript) continue;
      const trimmed = line.trim();
      if (!trimmed || /^(\/\/|\*|\/\*)/.test(trimmed) || /[{}(,[]$/.test(trimmed) || /^[}\])]/.test(trimmed)) continue;
      statementLines++;
      if (trimmed.endsWith(';')) semicolonLines++;
      const single = (trimmed.match(/'[^'\n]*'/g) ?? []).length;
      const double = (trimmed.match(/"[^"\n]*"/g) ?? []).length;
      if (single) quotes.set('single', (quotes.get('single') ?? 0) + single);
      if (double) quotes.set('double', (quotes.get('double') ?? 0) + double);
    }
  }
  lengths.sort((a, b) => a - b);
  const pct = (p: number) => (lengths.length ? lengths[Math.min(lengths.length - 1, Math.floor(lengths.length * p))] : 0);

  const libraries = librariesOf(graph);
  const tests = graph.files.filter((f) => isTestPath(f.path, libraries) && (!norm || f.path.startsWith(norm)));
  const dirs = new Set(inScope.map(({ f }) => path.posix.dirname(f.path)));
  const alongside = tests.filter((t) => dirs.has(path.posix.dirname(t.path)) && !/(^|\/)(tests?|__tests__|spec)\//.test(t.path)).length;
  const barrels = inScope.filter(({ f }) => /(^|\/)(index|mod|__init__)\.[^.]+$/.test(f.path)).length;
  const avgLines = inScope.length ? Math.round(inScope.reduce((a, { f }) => a + f.lines, 0) / inScope.length) : 0;
  const topDirs = new Map<string, number>();
  for (const { f } of inScope) bump(topDirs, f.path.includes('/') ? f.path.split('/')[0] : '.');

  return {
    path_prefix: norm,
    files: inScope.length,
    naming: {
      functions: share(naming.functions), types: share(naming.classes), constants: share(naming.constants),
      variables: share(naming.variables), file_names: share(naming.files),
    },
    formatting: {
      indentation: share(indent),
      quotes: share(quotes),
      semicolons: statementLines ? Math.round((semicolonLines / statementLines) * 1000) / 1000 : null,
      line_length_p50: pct(0.5), line_length_p95: pct(0.95), line_length_max: lengths.at(-1) ?? 0,
      trailing_whitespace_share: totalLines ? Math.round((trailing / totalLines) * 10000) / 10000 : 0,
      sampled_files: sample.length,
    },
    layout: {
      top_directories: Object.fromEntries([...topDirs.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10)),
      test_files: tests.length,
      tests_alongside_sources: tests.length ? Math.round((alongside / tests.length) * 1000) / 1000 : null,
      index_files: barrels,
      average_file_lines: avgLines,
    },
  };
}
