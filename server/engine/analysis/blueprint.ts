import path from 'node:path';
import type { RepoRecord } from '../types';
import type { AnalysisContext } from './context';
import { measureConventions, type Conventions } from './conventions';
import type { ImportGraph } from './import-graph';
import type { EntryPoint } from './entry-points';
import type { RepoFacts } from './repo-facts';
import type { Manifest } from './manifests';
import { isBesideProject } from '../search/file-role';
import { RANKED_KINDS } from './name-users';
import { throughPackages } from './python-packages';

export interface BlueprintOptions {
  /** How many top symbols the caller's plan allows (0: none). */
  symbolLimit: number;
  /** Whether the plan includes conventions, and under which path to measure them. */
  conventions: boolean;
  conventionsPathPrefix?: string;
}

export interface BlueprintSymbol { name: string; kind: string; file_path: string; line: number; used_by: number; signature: string | null }

export interface BlueprintResult {
  documentation: string;
  data: string | null;
  dependencies: { name: string; version: string | null; type: string; ecosystem: string; manifest: string | null; files: number }[];
  symbols: BlueprintSymbol[];
  conventions: Conventions | null;
  notes: string[];
}

const TOP_DEPENDENCIES = 30;
/** Install commands listed; a repository of many separate packages (examples, templates) says how many more. */
const MAX_INSTALLS = 8;
/** Entry points listed. */
const MAX_ENTRIES = 15;

/** Blueprints depend only on the index generation and the options: kept until the graph is replaced. */
const cache = new WeakMap<ImportGraph, Map<string, BlueprintResult>>();

/** The repository overview: a Markdown tour built from the index, the README, manifests and the import graph. */
export async function blueprint(ctx: AnalysisContext, repo: RepoRecord, options: BlueprintOptions): Promise<BlueprintResult> {
  const graph = await ctx.graph(repo.id);
  let byOptions = cache.get(graph);
  if (!byOptions) cache.set(graph, (byOptions = new Map()));
  const key = JSON.stringify([repo.name, options.symbolLimit, options.conventions, options.conventionsPathPrefix ?? null]);
  let result = byOptions.get(key);
  if (!result) byOptions.set(key, (result = await build(ctx, repo, graph, options)));
  return result;
}

async function build(ctx: AnalysisContext, repo: RepoRecord, graph: ImportGraph, options: BlueprintOptions): Promise<BlueprintResult> {
  const facts = await ctx.facts(repo.id, graph);
  const notes: string[] = [];
  const dependencies = [...facts.dependencies.values()]
    .filter((d) => d.type !== 'local' && d.type !== 'builtin')
    .sort((a, b) => b.files.size - a.files.size || a.name.localeCompare(b.name))
    .slice(0, TOP_DEPENDENCIES)
    .map((d) => ({ name: d.name, version: d.version, type: d.type, ecosystem: d.ecosystem, manifest: d.manifest, files: d.files.size }));
  const symbols = options.symbolLimit > 0 ? await topSymbols(ctx, repo, graph, facts, options.symbolLimit) : [];
  if (options.symbolLimit === 0) notes.push('symbols need the DEV plan or higher');
  let conventions: Conventions | null = null;
  if (options.conventions) conventions = await measureConventions(ctx, repo, graph, options.conventionsPathPrefix ?? null);
  else notes.push('conventions need the PRO plan or higher');
  if (!facts.readme) notes.push('the repository has no README');
  const entries = await ctx.entries(repo.id, graph);
  return { documentation: overview(repo, graph, facts, entries), data: facts.readme?.text ?? null, dependencies, symbols, conventions, notes };
}

/**
 * Exported top-level functions, variables, constants and types ranked by how many other files use them: by the
 * names their imports list, and where an import names nothing (a Go package, a C header), by the names their
 * code uses (name-users.ts).
 */
export async function topSymbols(ctx: AnalysisContext, repo: RepoRecord, graph: ImportGraph, facts: RepoFacts, limit: number): Promise<BlueprintSymbol[]> {
  const out: BlueprintSymbol[] = [];
  const byName = await ctx.exportedNameUsers(repo.id, graph);
  const exported = await ctx.exportedSymbols(repo.id, graph);
  const declared = new Map([...exported].map(([index, list]) => [index, new Set(list.filter((s) => s.parent === null).map((s) => s.name))]));
  const importedNames = throughPackages(graph, facts.importedNames, (file, name) => declared.get(file)?.has(name) ?? false);
  for (const [index, list] of exported) {
    for (const s of list) {
      if (!s.exported || s.parent !== null || !RANKED_KINDS.has(s.kind)) continue;
      const key = `${index}\0${s.name}`;
      const imported = importedNames.get(key);
      const read = byName.get(key);
      const usedBy = !read ? imported?.size ?? 0 : !imported ? read.size : new Set([...imported, ...read]).size;
      if (usedBy === 0) continue;
      out.push({ name: s.name, kind: s.kind, file_path: graph.path(index), line: s.startLine, used_by: usedBy, signature: s.signature });
    }
  }
  return out.sort((a, b) => b.used_by - a.used_by || a.name.localeCompare(b.name)).slice(0, limit);
}

function overview(repo: RepoRecord, graph: ImportGraph, facts: RepoFacts, entryPoints: EntryPoint[]): string {
  const lines: string[] = [];
  const rootManifest = facts.manifests.find((m) => !m.path.includes('/'));
  lines.push(`# ${repo.name}`, '');
  const purpose = rootManifest?.description ?? (facts.readme ? firstParagraph(facts.readme.text) : null);
  lines.push(purpose ?? '_No README or manifest description; the sections below are measured from the code._', '');

  const languages = new Map<string, { files: number; lines: number }>();
  for (const f of graph.files) {
    const key = f.language ?? 'other';
    const entry = languages.get(key) ?? { files: 0, lines: 0 };
    entry.files++; entry.lines += f.lines;
    languages.set(key, entry);
  }
  lines.push('## Languages', '', '| language | files | lines |', '|---|---:|---:|');
  for (const [lang, v] of [...languages.entries()].sort((a, b) => b[1].lines - a[1].lines).slice(0, 10)) lines.push(`| ${lang} | ${v.files} | ${v.lines} |`);

  const top = new Map<string, number>();
  for (const f of graph.files) {
    const first = f.path.includes('/') ? `${f.path.split('/')[0]}/` : '(root files)';
    top.set(first, (top.get(first) ?? 0) + 1);
  }
  lines.push('', '## Layout', '');
  for (const [dir, n] of [...top.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15)) lines.push(`- \`${dir}\` — ${n} file${n === 1 ? '' : 's'}`);

  // The project's own programs first, examples' and benchmarks' after them, and each package's first entry point
  // before any package's second: payload listed two examples, then six exports of one package, in its first 15.
  const aside = (e: EntryPoint) => (isBesideProject(graph.path(e.file)) ? 1 : 0);
  const seen = new Map<string, number>();
  const entries = entryPoints.filter((e) => e.kind !== 'test').map((e, i) => {
    const owner = / in (\S+)\)?$/.exec(e.detail)?.[1] ?? path.posix.dirname(graph.path(e.file));
    const nth = seen.get(owner) ?? 0;
    seen.set(owner, nth + 1);
    return { e, i, nth };
  }).sort((a, b) => aside(a.e) - aside(b.e) || a.nth - b.nth || a.i - b.i).map((x) => x.e);
  const tests = entryPoints.filter((e) => e.kind === 'test').length;
  lines.push('', '## Entry points', '');
  if (entries.length === 0) lines.push('_None declared in manifests or found by name._');
  for (const e of entries.slice(0, MAX_ENTRIES)) lines.push(`- \`${graph.path(e.file)}\` (${e.detail})`);
  if (entries.length > MAX_ENTRIES) lines.push(`- ${entries.length - MAX_ENTRIES} more entry points`);
  if (tests) lines.push(`- ${tests} test file${tests === 1 ? '' : 's'}`);

  const central = graph.in.map((edges, i) => ({ i, n: edges.length })).filter((x) => x.n > 0).sort((a, b) => b.n - a.n || a.i - b.i).slice(0, 10);
  lines.push('', '## Central modules', '', 'Most imported files (direct importers; all files that depend on it transitively):', '');
  if (central.length === 0) lines.push('_No import edges between files._');
  for (const c of central) {
    const f = graph.files[c.i];
    lines.push(`- \`${f.path}\` — imported by ${c.n}, reaches ${graph.dependents([c.i]).length}`);
  }

  // A package.json's scripts run with its folder's package manager (`npm run build` → `pnpm run build`). Another
  // manifest's commands run in its folder, as its install does (`cd docs && …`): a docs site's Gemfile or a
  // tool's Makefile in a subfolder is not the project's build.
  const commands = (m: Manifest, kind: 'build' | 'test') => (m.ecosystem !== 'npm' ? m.commands[kind].map((c) => `${cdInto(m.path)}${c}`)
    : m.commands[kind].map((c) => c.replace(/^npm (run|test)\b/, `${facts.js.managerOf(m.path)} $1`)));
  const build = [...new Set(facts.manifests.flatMap((m) => commands(m, 'build')))];
  const test = [...new Set(facts.manifests.flatMap((m) => commands(m, 'test')))];
  const installs = [...new Set([
    ...facts.js.installs,
    ...facts.manifests.filter((m) => m.ecosystem !== 'npm').map((m) => installCommand(m.ecosystem, m.path)).filter((c): c is string => !!c),
  ])];
  lines.push('', '## Build and test', '');
  if (!build.length && !test.length && !installs.length) lines.push('_No manifest declares build or test commands._');
  if (installs.length) {
    const more = installs.length - MAX_INSTALLS;
    lines.push(`- install: ${installs.slice(0, MAX_INSTALLS).map((c) => `\`${c}\``).join(', ')}${more > 0 ? ` (and ${more} more package${more === 1 ? '' : 's'} of their own)` : ''}`);
  }
  if (build.length) lines.push(`- build: ${build.slice(0, 6).map((c) => `\`${c}\``).join(', ')}`);
  if (test.length) lines.push(`- test: ${test.slice(0, 6).map((c) => `\`${c}\``).join(', ')}`);

  const deps = [...facts.dependencies.values()].filter((d) => d.type === 'package').sort((a, b) => b.files.size - a.files.size).slice(0, 10);
  if (deps.length) {
    lines.push('', '## Main dependencies', '');
    for (const d of deps) lines.push(`- \`${d.name}\`${d.version ? ` ${d.version}` : ''} — imported by ${d.files.size} file${d.files.size === 1 ? '' : 's'}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `cd dir && ` for a manifest below the repository's root, else nothing. */
function cdInto(manifest: string): string {
  const dir = path.posix.dirname(manifest);
  return dir === '.' ? '' : `cd ${dir} && `;
}

function installCommand(ecosystem: string, manifest: string): string | null {
  const cd = cdInto(manifest);
  switch (ecosystem) {
    case 'pypi': return manifest.endsWith('.txt') ? `${cd}pip install -r ${path.posix.basename(manifest)}` : `${cd}pip install -e .`;
    case 'composer': return `${cd}composer install`;
    case 'rubygems': return `${cd}bundle install`;
    case 'go': return `${cd}go mod download`;
    default: return null;
  }
}

/**
 * What the README says the project is: its first paragraph of prose, past headings, images, badges, HTML, fences,
 * rules and GitHub's alerts (`> [!IMPORTANT]` … "Star this repo", Payload's README before its first sentence).
 */
function firstParagraph(markdown: string): string | null {
  for (const block of markdown.split(/\n\s*\n/)) {
    const text = block.trim();
    if (!text || /^(#|!\[|\[!\[|<|```|---|===|>\s*\[!\w+\])/.test(text)) continue;
    const clean = text.replace(/\s+/g, ' ');
    return clean.length > 600 ? `${clean.slice(0, 597)}...` : clean;
  }
  return null;
}
