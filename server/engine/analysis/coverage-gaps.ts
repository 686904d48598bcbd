import fs from 'node:fs';
import path from 'node:path';
import type { RepoRecord } from '../types';
import type { AnalysisContext } from './context';
import { holdsTests, isTestPath } from './entry-points';
import { isBesideProject } from '../search/file-role';
import type { ImportGraph } from './import-graph';
import { findNameUses, usesByName } from './name-usages';
import type { RepoSymbolRow } from '../store/analysis-store';
import { librariesOf } from './testing-libraries';

export interface CoverageOptions { pathPrefix?: string; limit: number; offset: number }

export interface CoverageResult {
  summary: { source_files: number; test_files: number; untested_files: number; exported_functions: number; untested_functions: number; file_coverage: number };
  lcov: { path: string; files: number; lines_found: number; lines_hit: number; line_rate: number } | null;
  untested_files: { file_path: string; lines: number; exported_functions: number; dependents: number; line_rate: number | null }[];
  untested_functions: { file_path: string; name: string; line: number; reason: string }[];
  pagination: { total: number; limit: number; offset: number; has_more: boolean };
}

const CODE = new Set(['typescript', 'javascript', 'python', 'go', 'rust', 'java', 'csharp', 'ruby', 'php', 'kotlin', 'swift', 'c', 'cpp', 'scala', 'dart', 'lua']);
const LCOV_CANDIDATES = ['coverage/lcov.info', 'lcov.info', 'coverage/lcov/lcov.info'];

interface Reach { reached: Set<number>; used: Set<string> }
const reachCache = new WeakMap<ImportGraph, Reach>();

/**
 * Test-coverage gaps from structure: source files no test reaches through imports (a file holding its own
 * tests, as Rust's `#[cfg(test)] mod tests`, is reached, and reaches what it imports), and exported
 * functions of reached files that nothing on a test's import path uses by name. Generated files are not
 * source here; examples' and benchmarks' files come after the project's own. An lcov report in
 * the repository, when there is one, adds measured line rates.
 */
export async function coverageGaps(ctx: AnalysisContext, repo: RepoRecord, o: CoverageOptions): Promise<CoverageResult> {
  const graph = await ctx.graph(repo.id);
  const prefix = o.pathPrefix?.replace(/^\.?\//, '') ?? '';
  // Test files, and source files holding their own tests (Rust's `#[cfg(test)] mod tests`): those stay source files.
  // A testing library (django/test/) is source: it is what tests are written with (testing-libraries.ts).
  const libraries = librariesOf(graph);
  const tests = graph.files.map((f, i) => ({ f, i })).filter(({ f }) => holdsTests(f, libraries)).map(({ i }) => i);
  const { reached, used } = await reach(ctx, repo, graph, tests);
  const lcov = readLcov(repo.rootPath);
  const symbols = await ctx.symbols(repo.id, graph);
  // Code a tool wrote is not code anyone writes tests for (payload's top gap was an example's payload-types.ts).
  const source = graph.files.map((f, i) => ({ f, i }))
    .filter(({ f }) => CODE.has(f.language ?? '') && !isTestPath(f.path, libraries) && !f.path.endsWith('.d.ts') && !f.generated && f.path.startsWith(prefix));
  const exportedFns = (i: number) => (symbols.get(i) ?? []).filter((s) => s.exported && s.parent === null && (s.kind === 'function' || s.kind === 'class'));

  // Ranked by direct importers (cheap for every file), the project's own code before examples' and benchmarks'; the
  // full dependents count only for the page returned.
  const aside = (p: string) => (isBesideProject(p) ? 1 : 0);
  const untested = source.filter(({ i, f }) => !reached.has(i) && !(lcov?.files.get(f.path)?.hit))
    .sort((a, b) => aside(a.f.path) - aside(b.f.path) || graph.in[b.i].length - graph.in[a.i].length || b.f.lines - a.f.lines || a.f.path.localeCompare(b.f.path));

  const untestedFunctions: CoverageResult['untested_functions'] = [];
  let exportedTotal = 0;
  for (const { f, i } of source) {
    for (const s of exportedFns(i)) {
      exportedTotal++;
      const measured = lcov?.functions.get(`${f.path}\0${s.name}`);
      if (measured !== undefined) {
        if (measured === 0) untestedFunctions.push({ file_path: f.path, name: s.name, line: s.startLine, reason: 'lcov: never called' });
        continue;
      }
      if (!reached.has(i)) untestedFunctions.push({ file_path: f.path, name: s.name, line: s.startLine, reason: 'no test reaches its file' });
      // Which functions of a file its own tests call is not known here: none of them is called unused.
      else if (!f.holdsTests && !used.has(`${i}\0${s.name}`)) untestedFunctions.push({ file_path: f.path, name: s.name, line: s.startLine, reason: 'its file is reached, but nothing on a test path uses it' });
    }
  }
  const total = untested.length;
  return {
    summary: {
      source_files: source.length, test_files: tests.length, untested_files: total, exported_functions: exportedTotal,
      untested_functions: untestedFunctions.length,
      file_coverage: source.length ? Math.round(((source.length - total) / source.length) * 1000) / 1000 : 1,
    },
    lcov: lcov ? { path: lcov.path, files: lcov.files.size, lines_found: lcov.found, lines_hit: lcov.hit, line_rate: lcov.found ? Math.round((lcov.hit / lcov.found) * 1000) / 1000 : 0 } : null,
    untested_files: untested.slice(o.offset, o.offset + o.limit).map(({ f, i }) => ({
      file_path: f.path, lines: f.lines, exported_functions: exportedFns(i).length,
      dependents: graph.dependents([i]).length,
      line_rate: lcov?.files.get(f.path) ? rate(lcov.files.get(f.path)!) : null,
    })),
    untested_functions: untestedFunctions.slice(o.offset, o.offset + o.limit),
    pagination: { total: Math.max(total, untestedFunctions.length), limit: o.limit, offset: o.offset, has_more: o.offset + o.limit < Math.max(total, untestedFunctions.length) },
  };
}

/** Files reachable from tests, and the (file, exported name) pairs used along those paths. */
async function reach(ctx: AnalysisContext, repo: RepoRecord, graph: ImportGraph, tests: number[]): Promise<Reach> {
  const cached = reachCache.get(graph);
  if (cached) return cached;
  const reached = graph.reachableFrom(tests);
  const used = new Set<string>();
  let symbols: Map<number, RepoSymbolRow[]> | null = null;
  for (const user of reached) {
    if (usesByName(graph.files[user].language) && graph.out[user].length) {
      // Languages without import bindings: the names the file's code says, of the files it reaches directly.
      symbols ??= await ctx.symbols(repo.id, graph);
      const declaredBy = new Map<string, number[]>();
      for (const e of graph.out[user]) {
        for (const sym of symbols.get(e.to) ?? []) if (sym.parent === null) declaredBy.set(sym.name, [...(declaredBy.get(sym.name) ?? []), e.to]);
      }
      const text = (await ctx.store.fileText(repo.id, graph.path(user))) ?? '';
      for (const u of findNameUses(graph.files[user].language!, text, new Set(declaredBy.keys()))) {
        for (const to of declaredBy.get(u.name)!) used.add(`${to}\0${u.name}`);
      }
      continue;
    }
    const bySpecifier = new Map<string, number>();
    for (const s of graph.statements[user]) {
      const to = s.targetPath === null ? undefined : graph.indexOfPath.get(s.targetPath);
      if (to !== undefined) bySpecifier.set(s.specifier, to);
    }
    if (bySpecifier.size === 0) continue;
    for (const u of await ctx.usagesIn(repo.id, graph, user, new Set(bySpecifier.keys()))) {
      const to = bySpecifier.get(u.specifier)!;
      used.add(`${to}\0${u.importedName}`);
      // A re-export passes the use on to where the name is declared.
      if (u.kind === 'reexport' && u.importedName === '*') for (const e of graph.out[to]) if (e.reexport) used.add(`${e.to}\0*`);
    }
  }
  // Names reached through `export *` barrels: a use of any name of the barrel may land in the target.
  for (const key of [...used]) {
    const [file, name] = key.split('\0');
    for (const e of graph.out[Number(file)]) if (e.reexport) used.add(`${e.to}\0${name}`);
  }
  const result = { reached, used };
  reachCache.set(graph, result);
  return result;
}

interface Lcov { path: string; files: Map<string, { found: number; hit: number }>; functions: Map<string, number>; found: number; hit: number }

const rate = (f: { found: number; hit: number }) => (f.found ? Math.round((f.hit / f.found) * 1000) / 1000 : 0);

/** Parses an lcov tracefile (SF, LF/LH, FNDA records); paths are made relative to the repository. */
export function readLcov(root: string): Lcov | null {
  const found = LCOV_CANDIDATES.map((c) => path.join(root, c)).find((p) => fs.existsSync(p));
  if (!found) return null;
  const text = fs.readFileSync(found, 'utf8');
  const files = new Map<string, { found: number; hit: number }>();
  const functions = new Map<string, number>();
  let current: string | null = null;
  let totalFound = 0;
  let totalHit = 0;
  for (const line of text.split('\n')) {
    const [tag, value = ''] = [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)];
    if (tag === 'SF') {
      const abs = path.resolve(root, value.trim());
      current = path.relative(root, abs).split(path.sep).join('/');
      files.set(current, { found: 0, hit: 0 });
    } else if (current && tag === 'LF') { files.get(current)!.found = Number(value); totalFound += Number(value); }
    else if (current && tag === 'LH') { files.get(current)!.hit = Number(value); totalHit += Number(value); }
    else if (current && tag === 'FNDA') {
      const [count, name] = value.split(',');
      functions.set(`${current}\0${name}`, Math.max(functions.get(`${current}\0${name}`) ?? 0, Number(count)));
    } else if (line.trim() === 'end_of_record') current = null;
  }
  return { path: path.relative(root, found).split(path.sep).join('/'), files, functions, found: totalFound, hit: totalHit };
}
