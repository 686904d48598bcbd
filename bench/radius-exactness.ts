/**
 * Exactness of blast radius against each language's own toolchain: indexes a corpus with Loupe, builds the
 * same folder's import graph with an independent oracle, and compares the file-to-file edges (with their
 * type-only flag) and every file's radius (Loupe's radius operation, `include: ["dependents"]`) with the
 * oracle's reverse transitive closure.
 *
 *   node --import tsx bench/radius-exactness.ts [--write] [rxjs phaser gin grpc flask requests sympy monolog doctrine-dbal concurrent-ruby net-ssh …]
 *
 * Oracles: TypeScript/JavaScript — dependency-cruiser (TypeScript compiler resolution); Go — the Go 1.19
 * toolchain from Debian (`go list` and go/parser, bench/oracles/go-graph.ts); Python — Debian's Python 3
 * (ast and importlib's PathFinder, bench/oracles/python-graph.py); PHP — Debian's PHP 8.2 (nikic/php-parser's
 * NameResolver and Composer's ClassMapGenerator, bench/oracles/php-graph.php); Ruby — Debian's Ruby 3.1 (Ripper,
 * `$LOAD_PATH.resolve_feature_path`, the gemspec's require paths: bench/oracles/ruby-graph.rb); Java — javac 17 (the
 * compiler API over the folder's files together, no class path: bench/oracles/JavaGraph.java). Prints one JSON line per corpus; every
 * disagreement is listed (up to 20). `--write` rewrites the exactness section of docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EngineCore } from '../server/engine/core';
import { silentLogger } from '../server/engine/log';
import { newId } from '../server/engine/util/ids';
import { corpus } from './corpora';
import { DEBIAN_CORPORA, debianCorpus, type DebianCorpus } from './debian';
import { goOracle, type OracleGraph } from './oracles/go-graph';

export type { OracleGraph };
export type OracleLanguage = 'typescript' | 'go' | 'python' | 'php' | 'ruby' | 'java';

export interface ExactnessResult {
  corpus: string;
  language: OracleLanguage;
  oracle: string;
  files: number;
  ourEdges: number;
  theirEdges: number;
  sharedEdges: number;
  onlyOurs: string[];
  onlyTheirs: string[];
  typeOnlyMismatches: string[];
  closureFilesCompared: number;
  closureMismatches: number;
  /** Over every file: dependents in both / dependents Loupe's radius lists (1 when it lists none). */
  precision: number;
  /** Over every file: dependents in both / dependents of the oracle's closure (1 when it has none). */
  recall: number;
  /** Up to 20 files whose radius differs, with what differs. */
  closureDifferences: string[];
  ms: { loupeIndex: number; oracle: number };
}

type Edges = Map<string, boolean>;

interface LoupeGraph { edges: Edges; files: Set<string>; radius: (file: string) => Promise<string[]>; close: () => Promise<void>; ms: number }

/** Indexes `dir` in a fresh engine; the caller asks radius questions, then closes it. */
async function loupeGraph(dir: string): Promise<LoupeGraph> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-exact-'));
  const engine = new EngineCore({ dataDir, log: silentLogger, allowedRoots: [dir] });
  const close = async () => { await engine.close(); fs.rmSync(dataDir, { recursive: true, force: true }); };
  try {
    const { userId } = engine.accounts.ensureOwner(newId());
    const t0 = performance.now();
    const registered = engine.repos.registerLocalFolder(userId, dir);
    await engine.queue.idle();
    const ms = performance.now() - t0;
    const repo = engine.reposStore.get(registered.id)!;
    const graph = await engine.analysis.ctx.graph(repo.id);
    const edges: Edges = new Map();
    for (const list of graph.out) for (const e of list) edges.set(`${graph.path(e.from)} -> ${graph.path(e.to)}`, e.typeOnly);
    const radius = async (file: string) => {
      const r = await engine.analysis.radius(repo, { files: [file], dependencies: [], include: ['dependents'], limit: Number.MAX_SAFE_INTEGER });
      return (r.targets[0].dependents ?? []).map((d) => d.file_path);
    };
    return { edges, files: new Set(graph.files.map((f) => f.path)), radius, close, ms };
  } catch (error) {
    await close();
    throw error;
  }
}

interface CruiseDependency { resolved: string; coreModule: boolean; couldNotResolve: boolean; dependencyTypes: string[] }
interface CruiseModule { source: string; dependencies: CruiseDependency[] }

/** dependency-cruiser's graph of a TypeScript/JavaScript folder (with its tsconfig.json when there is one). */
export async function cruiserOracle(dir: string): Promise<OracleGraph> {
  const { cruise } = await import('dependency-cruiser');
  const extractTsConfig = (await import('dependency-cruiser/config-utl/extract-ts-config')).default;
  const tsConfigFile = path.join(dir, 'tsconfig.json');
  const cwd = process.cwd();
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
  return { files, edges };
}

/** How an oracle's process runs: its JSON can be large, and it is killed after ten minutes (a test never hangs on it). */
const ORACLE_RUN = { encoding: 'utf8', maxBuffer: 1 << 30, timeout: 10 * 60_000, killSignal: 'SIGKILL' } as const;

/** Debian's Python 3 reading the folder (bench/oracles/python-graph.py). */
export function pythonOracle(dir: string): OracleGraph {
  // A file Python cannot parse (Python 2 syntax) has no edges the oracle could vouch for: left out.
  return oracleOutput(execFileSync('/usr/bin/python3', [path.join(__dirname, 'oracles', 'python-graph.py'), dir], ORACLE_RUN));
}

/** A script oracle's JSON (`{files, edges: [from, to, typeOnly][], unparsed}`) as a graph, the files it could not parse left out. */
function oracleOutput(out: string): OracleGraph {
  const g = JSON.parse(out) as { files: string[]; edges: [string, string, boolean][]; unparsed: string[] };
  const unparsed = new Set(g.unparsed);
  return { files: new Set(g.files.filter((f) => !unparsed.has(f))), edges: new Map(g.edges.map(([a, b, t]) => [`${a} -> ${b}`, t])) };
}

/** The PHP oracle needs Debian's php-cli, php-parser and php-composer-class-map-generator (.ci/run installs them). */
export const PHP_ORACLE_PARTS = ['/usr/bin/php', '/usr/share/php/PhpParser/autoload.php', '/usr/share/php/Composer/ClassMapGenerator/autoload.php'];

/** Debian's PHP reading the folder (bench/oracles/php-graph.php). */
export function phpOracle(dir: string): OracleGraph {
  const missing = PHP_ORACLE_PARTS.filter((p) => !fs.existsSync(p));
  if (missing.length) throw new Error(`the PHP oracle needs ${missing.join(', ')} (apt-get install php-cli php-parser php-composer-class-map-generator)`);
  return oracleOutput(execFileSync('/usr/bin/php', [path.join(__dirname, 'oracles', 'php-graph.php'), dir], ORACLE_RUN));
}

/** Debian's Ruby reading the folder (bench/oracles/ruby-graph.rb; .ci/run installs it). */
export function rubyOracle(dir: string): OracleGraph {
  if (!fs.existsSync('/usr/bin/ruby')) throw new Error('the Ruby oracle needs /usr/bin/ruby (apt-get install ruby)');
  return oracleOutput(execFileSync('/usr/bin/ruby', [path.join(__dirname, 'oracles', 'ruby-graph.rb'), dir], ORACLE_RUN));
}

/** javac reading the folder (bench/oracles/JavaGraph.java, run by the JDK's source launcher; a JDK 17 is Debian's openjdk-17-jdk-headless). */
export function javaOracle(dir: string): OracleGraph {
  const java = process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : '/usr/bin/java';
  if (!fs.existsSync(java)) throw new Error(`the Java oracle needs a JDK (${java}; apt-get install openjdk-17-jdk-headless)`);
  return oracleOutput(execFileSync(java, [path.join(__dirname, 'oracles', 'JavaGraph.java'), dir], ORACLE_RUN));
}

export const ORACLE_NAMES: Record<OracleLanguage, string> = {
  typescript: 'dependency-cruiser 18',
  go: 'Go 1.19.8 (go list, go/parser)',
  php: 'PHP 8.2 (nikic/php-parser NameResolver, Composer ClassMapGenerator)',
  ruby: 'Ruby 3.1 (Ripper, $LOAD_PATH.resolve_feature_path, Gem::Specification)',
  java: 'javac 17 (the compiler API: every file entered and attributed together)',
  python: `Python ${execFileSync('/usr/bin/python3', ['-c', 'import sys; print(sys.version.split()[0])'], { encoding: 'utf8' }).trim()} (ast, importlib PathFinder)`,
};

export async function oracleGraph(language: OracleLanguage, dir: string): Promise<OracleGraph> {
  if (language === 'go') return goOracle(dir);
  if (language === 'python') return pythonOracle(dir);
  if (language === 'php') return phpOracle(dir);
  if (language === 'ruby') return rubyOracle(dir);
  if (language === 'java') return javaOracle(dir);
  return cruiserOracle(dir);
}

/** Every file's dependents (reverse closure) over `edges`, among `files`. */
function closures(edges: Edges, files: string[]): Map<string, Set<string>> {
  const reverse = new Map<string, string[]>();
  for (const key of edges.keys()) {
    const [from, to] = key.split(' -> ');
    (reverse.get(to) ?? reverse.set(to, []).get(to)!).push(from);
  }
  const out = new Map<string, Set<string>>();
  for (const f of files) {
    const seen = new Set<string>([f]);
    const queue = [f];
    for (let i = 0; i < queue.length; i++) for (const n of reverse.get(queue[i]) ?? []) if (!seen.has(n)) { seen.add(n); queue.push(n); }
    seen.delete(f);
    out.set(f, seen);
  }
  return out;
}

/** Compares Loupe's import graph and radius of `dir` with `oracle`'s graph of the same folder. */
export async function compareWithOracle(dir: string, name: string, language: OracleLanguage, oracle: () => Promise<OracleGraph> | OracleGraph): Promise<ExactnessResult> {
  const ours = await loupeGraph(dir);
  try {
    const t0 = performance.now();
    const theirs = await oracle();
    const oracleMs = performance.now() - t0;
    // Only files both analyse (the oracles skip data files; Loupe skips oversized ones).
    const common = new Set([...theirs.files].filter((f) => ours.files.has(f)));
    const inScope = (key: string) => { const [a, b] = key.split(' -> '); return common.has(a) && common.has(b); };
    const mine = new Map([...ours.edges].filter(([k]) => inScope(k)));
    const other = new Map([...theirs.edges].filter(([k]) => inScope(k)));
    const onlyOurs = [...mine.keys()].filter((k) => !other.has(k)).sort();
    const onlyTheirs = [...other.keys()].filter((k) => !mine.has(k)).sort();
    const typeOnlyMismatches = [...mine.keys()].filter((k) => other.has(k) && other.get(k) !== mine.get(k))
      .map((k) => `${k} (loupe type_only=${mine.get(k)}, oracle=${other.get(k)})`).sort();
    const files = [...common].sort();
    const expected = closures(other, files);
    let both = 0, listed = 0, wanted = 0, mismatches = 0;
    const closureDifferences: string[] = [];
    for (const f of files) {
      const got = new Set((await ours.radius(f)).filter((d) => common.has(d)));
      const want = expected.get(f)!;
      const shared = [...got].filter((d) => want.has(d)).length;
      both += shared; listed += got.size; wanted += want.size;
      if (shared !== got.size || shared !== want.size) {
        mismatches++;
        if (closureDifferences.length < 20) {
          const extra = [...got].filter((d) => !want.has(d)).slice(0, 3);
          const missing = [...want].filter((d) => !got.has(d)).slice(0, 3);
          closureDifferences.push(`${f}: radius ${got.size}, oracle ${want.size}; only radius ${extra.join(', ') || '—'}; only oracle ${missing.join(', ') || '—'}`);
        }
      }
    }
    return {
      corpus: name, language, oracle: ORACLE_NAMES[language],
      files: common.size,
      ourEdges: mine.size,
      theirEdges: other.size,
      sharedEdges: [...mine.keys()].filter((k) => other.has(k)).length,
      onlyOurs: onlyOurs.slice(0, 20),
      onlyTheirs: onlyTheirs.slice(0, 20),
      typeOnlyMismatches: typeOnlyMismatches.slice(0, 20),
      closureFilesCompared: files.length,
      closureMismatches: mismatches,
      precision: listed ? both / listed : 1,
      recall: wanted ? both / wanted : 1,
      closureDifferences,
      ms: { loupeIndex: Math.round(ours.ms), oracle: Math.round(oracleMs) },
    };
  } finally {
    await ours.close();
  }
}

/** A folder compared with the oracle of its language, run live. */
export function compareFolder(dir: string, name: string, language: OracleLanguage = 'typescript'): Promise<ExactnessResult> {
  return compareWithOracle(dir, name, language, () => oracleGraph(language, dir));
}

const NPM_CORPORA: Record<string, OracleLanguage> = { rxjs: 'typescript', phaser: 'typescript', hono: 'typescript', axios: 'typescript' };

export async function exactness(name: string): Promise<ExactnessResult> {
  if (name in NPM_CORPORA) return compareFolder(corpus(name), name, NPM_CORPORA[name]);
  const c = DEBIAN_CORPORA[name as DebianCorpus];
  if (!c) throw new Error(`unknown corpus ${name}: ${[...Object.keys(NPM_CORPORA), ...Object.keys(DEBIAN_CORPORA)].join(', ')}`);
  return compareFolder(debianCorpus(name as DebianCorpus), name, c.language);
}

const pct = (x: number) => x.toFixed(2);

function section(results: ExactnessResult[], names: string[]): string {
  const rows = results.map((r) => `| ${r.corpus} | ${r.language} | ${r.oracle} | ${r.files} | ${r.ourEdges} | ${r.theirEdges} | ${r.onlyOurs.length} / ${r.onlyTheirs.length} | ${r.typeOnlyMismatches.length} | ${r.closureFilesCompared - r.closureMismatches} / ${r.closureFilesCompared} | ${pct(r.precision)} / ${pct(r.recall)} | ${(r.ms.oracle / 1000).toFixed(1)} s |`);
  return `<!-- bench:exactness:start -->
## Exactness of blast radius against each language's toolchain

Command: \`node --import tsx bench/radius-exactness.ts --write ${names.join(' ')}\`, ${new Date().toISOString().slice(0, 10)}.
For each corpus Loupe's file-to-file import edges (with type-only flags) are compared with an oracle's on the same folder,
then every file's radius (the radius operation, \`include: ["dependents"]\`) with the oracle's reverse transitive closure:
precision = dependents both list / dependents Loupe lists, recall = dependents both list / dependents the oracle lists,
summed over every file. Oracles: dependency-cruiser (TypeScript compiler resolution); Debian's Go 1.19 (\`go list -e -json -deps -test\`
over every go.mod in one go.work, and go/parser for each file's imports: bench/oracles/go-graph.ts); Debian's Python 3 (ast for the
statements, importlib's PathFinder for every module name: bench/oracles/python-graph.py); Debian's PHP 8.2 (nikic/php-parser's
NameResolver for every class name, Composer's ClassMapGenerator for the file declaring it: bench/oracles/php-graph.php); Debian's
Ruby 3.1 (Ripper for every require, \$LOAD_PATH.resolve_feature_path over the gemspec's require paths: bench/oracles/ruby-graph.rb); javac 17
(the compiler API enters and attributes the folder's files together, with no class path; each type a file names, with the file
declaring it: bench/oracles/JavaGraph.java).
The rules are in ARCHITECTURE.md (Analysis); Go, Python, PHP, Ruby and Java corpora are pinned Debian packages (bench/debian.ts). The rows from hono on are
held out: no rule was written or changed against them; they were first compared once the rules stood. Fixture and corpus versions run in \`npm test\`
(test/analysis/exactness.test.ts, test/analysis/toolchain-exactness.test.ts).

| corpus | language | oracle | files | Loupe edges | oracle edges | only Loupe / only oracle | type-only differences | equal radius | precision / recall | oracle time |
|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}
<!-- bench:exactness:end -->`;
}

if (require.main === module) {
  (async () => {
    const args = process.argv.slice(2);
    const write = args.includes('--write');
    const names = args.filter((a) => !a.startsWith('--'));
    const chosen = names.length ? names : ['rxjs', 'phaser', 'gin', 'grpc', 'flask', 'requests', 'sympy', 'monolog', 'doctrine-dbal', 'concurrent-ruby', 'net-ssh', 'junitrunner', 'aws-sdk-auth-lite',
      // Held out (no rule was written against them): compared once the rules above stood.
      'hono', 'axios', 'cobra', 'go-cmp', 'testify', 'click', 'jinja2', 'urllib3', 'rich', 'pygments', 'psr7', 'symfony-console', 'rack', 'thor',
      'urfave-cli', 'logrus', 'gorilla-mux', 'markdown', 'dateutil', 'babel', 'commonmark', 'fast-route', 'i18n', 'addressable', 'mustermann'];
    const results: ExactnessResult[] = [];
    for (const name of chosen) {
      const r = await exactness(name);
      results.push(r);
      console.log(JSON.stringify(r));
    }
    if (write) {
      const doc = path.join(__dirname, '..', 'docs', 'benchmarks.md');
      const current = fs.readFileSync(doc, 'utf8');
      const text = section(results, chosen);
      const pattern = /<!-- bench:exactness:start -->[\s\S]*<!-- bench:exactness:end -->/;
      fs.writeFileSync(doc, pattern.test(current) ? current.replace(pattern, text) : current.replace('<!-- bench:research:start -->', `${text}\n\n<!-- bench:research:start -->`));
    }
  })().catch((error) => { console.error(error); process.exit(1); });
}
