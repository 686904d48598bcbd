import type { RepoRecord } from '../types';
import type { AnalysisContext } from './context';
import type { ImportGraph } from './import-graph';
import type { CompareRepo } from './scope';

export type MapType = 'package' | 'import' | 'export' | 'env';
export const MAP_TYPES: MapType[] = ['package', 'import', 'export', 'env'];

export interface MapOptions {
  types: MapType[];
  dependency?: string;
  /** Explicit compare_repos (resolved per item), or empty to compare against `candidates`. */
  compare: CompareRepo[];
  /** The repositories to look in when compare_repos is absent (the caller's, plus public ones when asked). */
  candidates: RepoRecord[];
  includePublicIndex: boolean;
  limit: number;
  filesPerRepo: number;
}

export interface MapResult {
  source_repo: { repo_id: string; name: string; url: string };
  scope: { types: string[]; repos_compared: number; compare_repos: { repo_id: string; name: string | null; found: boolean; reason?: string }[]; include_public_index: boolean };
  dependencies: { name: string; type: string; source_files: string[]; repos: { repo_id: string; name: string; file_count: number; files: string[] }[] }[];
}

/** name → files using it, for one kind of dependency, in one repository. */
type Usage = Map<string, Set<string>>;

const ENV_PATTERNS = [
  /process\.env\.([A-Za-z_][A-Za-z0-9_]*)/g,
  /process\.env\[\s*['"`]([A-Za-z_][A-Za-z0-9_]*)['"`]\s*\]/g,
  /import\.meta\.env\.([A-Za-z_][A-Za-z0-9_]*)/g,
  /os\.environ(?:\.get)?[[(]\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]/g,
  /os\.getenv\(\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]/g,
  /os\.(?:Getenv|LookupEnv)\(\s*"([A-Za-z_][A-Za-z0-9_]*)"/g,
  /\bENV(?:\.fetch\(|\[)\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]/g,
  /env::var(?:_os)?\(\s*"([A-Za-z_][A-Za-z0-9_]*)"/g,
  /GetEnvironmentVariable\(\s*"([A-Za-z_][A-Za-z0-9_]*)"/g,
  /\bgetenv\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']/g,
];

const envCache = new WeakMap<ImportGraph, Usage>();

/** Environment variables the code reads, by name, with the files reading them. */
export async function envUsage(ctx: AnalysisContext, repoId: string, graph: ImportGraph): Promise<Usage> {
  let usage = envCache.get(graph);
  if (usage) return usage;
  usage = new Map();
  for (const chunk of await ctx.store.envChunks(repoId)) {
    for (const pattern of ENV_PATTERNS) {
      for (const m of chunk.content.matchAll(pattern)) {
        let files = usage.get(m[1]);
        if (!files) usage.set(m[1], (files = new Set()));
        files.add(chunk.path);
      }
    }
  }
  envCache.set(graph, usage);
  return usage;
}

async function usageOf(ctx: AnalysisContext, repo: RepoRecord, type: MapType, exportsOf?: { pkg: string; names: Set<string> }): Promise<Usage> {
  const graph = await ctx.graph(repo.id);
  const out: Usage = new Map();
  const add = (name: string, file: string) => {
    let files = out.get(name);
    if (!files) out.set(name, (files = new Set()));
    files.add(file);
  };
  if (type === 'env') return envUsage(ctx, repo.id, graph);
  if (type === 'package') {
    const facts = await ctx.facts(repo.id, graph);
    for (const d of facts.dependencies.values()) {
      if (d.type === 'local') continue;
      for (const f of d.files) add(d.name, graph.path(f));
      if (d.files.size === 0 && d.manifest) add(d.name, d.manifest);
    }
    return out;
  }
  graph.statements.forEach((statements, i) => {
    for (const s of statements) {
      if (type === 'import' && !s.specifier.startsWith('.') && !s.specifier.startsWith('/')) add(s.specifier, graph.path(i));
      if (type === 'export' && exportsOf && s.packageName === exportsOf.pkg) {
        for (const n of s.names) if (exportsOf.names.has(n)) add(n, graph.path(i));
      }
    }
  });
  return out;
}

/** For each dependency of the source repository, which other repositories use the same one, and where. */
export async function dependencyMap(ctx: AnalysisContext, source: RepoRecord, o: MapOptions): Promise<MapResult> {
  const others = o.compare.length ? o.compare.filter((c) => c.repo).map((c) => c.repo!) : o.candidates.filter((r) => r.id !== source.id);
  const needle = o.dependency?.toLowerCase();
  const graph = await ctx.graph(source.id);
  const facts = await ctx.facts(source.id, graph);
  const rows: MapResult['dependencies'] = [];
  for (const type of o.types) {
    let sourceUsage: Usage;
    let exportsOf: { pkg: string; names: Set<string> } | undefined;
    if (type === 'export') {
      const pkg = facts.manifests.find((m) => m.name && m.ecosystem === 'npm')?.name ?? null;
      sourceUsage = new Map();
      if (pkg) {
        for (const [index, list] of await ctx.symbols(source.id, graph)) {
          for (const s of list) {
            if (!s.exported || s.parent !== null) continue;
            let files = sourceUsage.get(s.name);
            if (!files) sourceUsage.set(s.name, (files = new Set()));
            files.add(graph.path(index));
          }
        }
        exportsOf = { pkg, names: new Set(sourceUsage.keys()) };
      }
    } else {
      sourceUsage = await usageOf(ctx, source, type);
    }
    const otherUsage: { repo: RepoRecord; usage: Usage }[] = [];
    for (const r of others) otherUsage.push({ repo: r, usage: await usageOf(ctx, r, type, exportsOf) });
    for (const [name, files] of sourceUsage) {
      if (needle && !name.toLowerCase().includes(needle)) continue;
      const repos = otherUsage.filter((u) => u.usage.has(name)).map((u) => {
        const theirs = [...u.usage.get(name)!].sort();
        return { repo_id: u.repo.id, name: u.repo.name, file_count: theirs.length, files: theirs.slice(0, o.filesPerRepo) };
      });
      rows.push({ name, type, source_files: [...files].sort().slice(0, o.filesPerRepo), repos });
    }
  }
  rows.sort((a, b) => b.repos.length - a.repos.length || b.source_files.length - a.source_files.length || a.name.localeCompare(b.name));
  return {
    source_repo: { repo_id: source.id, name: source.name, url: source.url },
    scope: {
      types: o.types,
      repos_compared: others.length,
      compare_repos: o.compare.map((c) => (c.repo ? { repo_id: c.repo.id, name: c.repo.name, found: true } : { repo_id: c.id, name: null, found: false, reason: c.reason ?? 'repository not found' })),
      include_public_index: o.includePublicIndex,
    },
    dependencies: rows.slice(0, o.limit),
  };
}
