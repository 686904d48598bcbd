/**
 * Exactness of blast radius against an independent tool: indexes a corpus with Loupe, runs
 * dependency-cruiser over the same folder, and compares the file-to-file import edges (with their
 * type-only flag) and, from them, every file's set of dependents (the reverse transitive closure).
 *
 *   node --import tsx bench/radius-exactness.ts [rxjs] [phaser]
 *
 * Prints one JSON line per corpus; every disagreement is listed (up to 20) so it can be judged
 * against the TypeScript compiler's own resolution.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../server/engine/engine';
import { silentLogger } from '../server/engine/log';
import { newId } from '../server/engine/util/ids';
import { corpus } from './corpora';

export interface ExactnessResult {
  corpus: string;
  files: number;
  ourEdges: number;
  theirEdges: number;
  sharedEdges: number;
  onlyOurs: string[];
  onlyTheirs: string[];
  typeOnlyMismatches: string[];
  closureFilesCompared: number;
  closureMismatches: number;
  ms: { loupeIndex: number; depcruise: number };
}

type Edges = Map<string, boolean>;

async function loupeEdges(dir: string): Promise<{ edges: Edges; files: Set<string>; ms: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-exact-'));
  const engine = new Engine({ dataDir, log: silentLogger, allowedRoots: [dir] });
  try {
    const { userId } = engine.accounts.ensureOwner(newId());
    const t0 = performance.now();
    const repo = engine.repos.registerLocalFolder(userId, dir);
    await engine.queue.idle();
    const ms = performance.now() - t0;
    const graph = engine.analysis.ctx.graph(repo.id);
    const edges: Edges = new Map();
    for (const list of graph.out) for (const e of list) edges.set(`${graph.path(e.from)} -> ${graph.path(e.to)}`, e.typeOnly);
    return { edges, files: new Set(graph.files.map((f) => f.path)), ms };
  } finally {
    await engine.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

interface CruiseDependency { resolved: string; coreModule: boolean; couldNotResolve: boolean; dependencyTypes: string[] }
interface CruiseModule { source: string; dependencies: CruiseDependency[] }

async function cruiserEdges(dir: string): Promise<{ edges: Edges; files: Set<string>; ms: number }> {
  const { cruise } = await import('dependency-cruiser');
  const extractTsConfig = (await import('dependency-cruiser/config-utl/extract-ts-config')).default;
  const tsConfigFile = path.join(dir, 'tsconfig.json');
  const cwd = process.cwd();
  const t0 = performance.now();
  process.chdir(dir); // dependency-cruiser reports paths relative to the working directory
  let modules: CruiseModule[];
  try {
    const hasTsConfig = fs.existsSync(tsConfigFile);
    const result = await cruise(['.'], {
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      exclude: { path: 'node_modules' },
      moduleSystems: ['cjs', 'es6', 'tsd'],
      ...(hasTsConfig ? { tsConfig: { fileName: tsConfigFile } } : {}),
    } as never, undefined, hasTsConfig ? { tsConfig: extractTsConfig(tsConfigFile) } : undefined);
    modules = (result.output as { modules: CruiseModule[] }).modules;
  } finally {
    process.chdir(cwd);
  }
  const ms = performance.now() - t0;
  const edges: Edges = new Map();
  const files = new Set<string>();
  const norm = (p: string) => p.replace(/^\.\//, '');
  for (const m of modules) {
    if (m.source.includes('node_modules') || !fs.existsSync(path.join(dir, m.source))) continue;
    files.add(norm(m.source));
    for (const d of m.dependencies) {
      if (d.coreModule || d.couldNotResolve || d.resolved.includes('node_modules') || !fs.existsSync(path.join(dir, d.resolved))) continue;
      const key = `${norm(m.source)} -> ${norm(d.resolved)}`;
      if (norm(m.source) === norm(d.resolved)) continue;
      // A triple-slash reference is erased at run time: type-only, as Loupe marks it.
      const typeOnly = d.dependencyTypes.some((t) => t === 'type-only' || t === 'type-import' || t.startsWith('triple-slash'));
      edges.set(key, (edges.get(key) ?? true) && typeOnly);
    }
  }
  return { edges, files, ms };
}

/** Every file's dependents (reverse closure), as a sorted, joined string for comparison. */
function closures(edges: Edges, files: string[]): Map<string, string> {
  const reverse = new Map<string, string[]>();
  for (const key of edges.keys()) {
    const [from, to] = key.split(' -> ');
    (reverse.get(to) ?? reverse.set(to, []).get(to)!).push(from);
  }
  const out = new Map<string, string>();
  for (const f of files) {
    const seen = new Set<string>([f]);
    const queue = [f];
    for (let i = 0; i < queue.length; i++) for (const n of reverse.get(queue[i]) ?? []) if (!seen.has(n)) { seen.add(n); queue.push(n); }
    seen.delete(f);
    out.set(f, [...seen].sort().join('\n'));
  }
  return out;
}

export async function exactness(name: string): Promise<ExactnessResult> {
  return compareFolder(corpus(name), name);
}

/** Compares Loupe's import graph of `dir` with dependency-cruiser's. */
export async function compareFolder(dir: string, name: string): Promise<ExactnessResult> {
  const ours = await loupeEdges(dir);
  const theirs = await cruiserEdges(dir);
  // Only files both tools analyse (dependency-cruiser skips data files such as JSON and Markdown).
  const common = new Set([...theirs.files].filter((f) => ours.files.has(f)));
  const inScope = (key: string) => { const [a, b] = key.split(' -> '); return common.has(a) && common.has(b); };
  const mine = new Map([...ours.edges].filter(([k]) => inScope(k)));
  const other = new Map([...theirs.edges].filter(([k]) => inScope(k)));
  const onlyOurs = [...mine.keys()].filter((k) => !other.has(k)).sort();
  const onlyTheirs = [...other.keys()].filter((k) => !mine.has(k)).sort();
  const typeOnlyMismatches = [...mine.keys()].filter((k) => other.has(k) && other.get(k) !== mine.get(k))
    .map((k) => `${k} (loupe type_only=${mine.get(k)}, depcruise=${other.get(k)})`).sort();
  const files = [...common].sort();
  const a = closures(mine, files);
  const b = closures(other, files);
  return {
    corpus: name,
    files: common.size,
    ourEdges: mine.size,
    theirEdges: other.size,
    sharedEdges: [...mine.keys()].filter((k) => other.has(k)).length,
    onlyOurs: onlyOurs.slice(0, 20),
    onlyTheirs: onlyTheirs.slice(0, 20),
    typeOnlyMismatches: typeOnlyMismatches.slice(0, 20),
    closureFilesCompared: files.length,
    closureMismatches: files.filter((f) => a.get(f) !== b.get(f)).length,
    ms: { loupeIndex: Math.round(ours.ms), depcruise: Math.round(theirs.ms) },
  };
}

if (require.main === module) {
  (async () => {
    for (const name of process.argv.slice(2).length ? process.argv.slice(2) : ['rxjs', 'phaser']) {
      console.log(JSON.stringify(await exactness(name)));
    }
  })().catch((error) => { console.error(error); process.exit(1); });
}
