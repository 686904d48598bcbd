/**
 * The Go oracle: the file-level import graph of a folder as the Go toolchain sees it. Debian's Go 1.19
 * (`golang-1.19-go`, unpacked, not installed) lists the packages (`go list -e -json -deps -test ./...`, every
 * go.mod of the folder in one go.work, offline) and its parser (go-files.go) reads each file's package clause
 * and imports. The rule it applies is the one ARCHITECTURE.md states for Go:
 *   - importing package P is an edge to every non-test file of P whose package clause is P's name,
 *     whatever its build constraints (the files `go list` ignores on this platform included);
 *   - a `_test.go` file in P's package (not `P_test`) is compiled with P: an edge to each of P's files;
 *   - a non-test file of P depends on each other file of P declaring a package-level name it uses (not one it
 *     declares itself) or a method it calls by name (`x.Name(`, x not an imported package), as go/ast reads them.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { debianPackages } from '../debian';

export const GO_TOOLCHAIN = ['golang-1.19-go=1.19.8-2', 'golang-1.19-src=1.19.8-2'];

/** Edges as `from -> to` (repository-relative paths) mapped to their type-only flag, and the files the oracle knows. */
export interface OracleGraph { files: Set<string>; edges: Map<string, boolean> }

interface GoFile { path: string; package: string; imports: string[]; top: string[]; methods: string[]; uses: string[]; methodCalls: string[] }

interface GoPackage {
  Dir?: string; ImportPath: string; Name?: string; Standard?: boolean; ForTest?: string;
  GoFiles?: string[]; CgoFiles?: string[]; IgnoredGoFiles?: string[]; InvalidGoFiles?: string[];
  TestGoFiles?: string[]; XTestGoFiles?: string[];
}

function goEnv(): NodeJS.ProcessEnv {
  const root = debianPackages('golang-1.19', GO_TOOLCHAIN);
  const goroot = path.join(root, 'usr/lib/go-1.19');
  return {
    ...process.env,
    GOROOT: goroot, PATH: `${path.join(goroot, 'bin')}:${process.env.PATH}`,
    GOCACHE: path.join(root, '.gocache'), GOPATH: path.join(root, '.gopath'), GOMODCACHE: path.join(root, '.gopath/pkg/mod'),
    GOPROXY: 'off', GOSUMDB: 'off', GOFLAGS: '', GO111MODULE: 'on', GOTOOLCHAIN: 'local', CGO_ENABLED: '1',
  };
}

/** The go.mod files the go command would consider: not under testdata, or folders starting with `.` or `_`. */
function goMods(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    if (e.name.startsWith('.') || e.name.startsWith('_') || e.name === 'testdata' || e.name === 'vendor' || e.name === 'node_modules') continue;
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...goMods(dir, child));
    else if (e.name === 'go.mod') out.push(rel);
  }
  return out;
}

function parseStream<T>(text: string): T[] {
  const out: T[] = [];
  let depth = 0, start = -1, inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) { if (c === '\\') i++; else if (c === '"') inString = false; continue; }
    if (c === '"') inString = true;
    else if (c === '{') { if (depth++ === 0) start = i; }
    else if (c === '}' && --depth === 0) out.push(JSON.parse(text.slice(start, i + 1)) as T);
  }
  return out;
}

export function goOracle(dir: string): OracleGraph {
  const env = goEnv();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-go-oracle-'));
  try {
    const work = path.join(tmp, 'src');
    fs.cpSync(dir, work, { recursive: true, filter: (p) => path.basename(p) !== '.git' });
    // Offline: each go.mod keeps its module and go lines (requirements would need downloads), and one
    // go.work makes the repository's modules one workspace, as `replace … => ../` does for a nested module.
    const modules = goMods(work);
    for (const rel of modules) {
      const file = path.join(work, rel, 'go.mod');
      const text = fs.readFileSync(file, 'utf8');
      const module = /^module\s+(\S+)/m.exec(text)?.[1];
      fs.writeFileSync(file, `module ${module}\n\ngo 1.18\n`);
      fs.rmSync(path.join(work, rel, 'go.sum'), { force: true });
    }
    fs.writeFileSync(path.join(work, 'go.work'), `go 1.19\n\nuse (\n${modules.map((m) => `\t./${m}\n`).join('')})\n`);
    const listed = modules.flatMap((rel) => parseStream<GoPackage>(execFileSync('go', ['list', '-e', '-json', '-deps', '-test', './...'],
      { cwd: path.join(work, rel), env, encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] })));
    const inside = (p: string | undefined): p is string => !!p && (p === work || p.startsWith(work + path.sep));
    const packages = new Map<string, GoPackage>();
    for (const p of listed) if (!p.Standard && !p.ForTest && inside(p.Dir) && !p.ImportPath.endsWith('.test')) packages.set(p.ImportPath, p);
    const rel = (p: GoPackage, f: string) => path.relative(work, path.join(p.Dir!, f)).split(path.sep).join('/');
    const filesOf = (p: GoPackage) => [...new Set([...p.GoFiles ?? [], ...p.CgoFiles ?? [], ...p.IgnoredGoFiles ?? [], ...p.InvalidGoFiles ?? [],
      ...p.TestGoFiles ?? [], ...p.XTestGoFiles ?? []])].filter((f) => f.endsWith('.go')).map((f) => rel(p, f));
    const all = [...new Set([...packages.values()].flatMap(filesOf))].sort();
    const parsed = new Map<string, GoFile>();
    const out = execFileSync('go', ['run', path.join(__dirname, 'go-files.go')], {
      cwd: tmp, env: { ...env, GOWORK: 'off', GO111MODULE: 'off' }, input: all.map((f) => path.join(work, f)).join('\n'), encoding: 'utf8', maxBuffer: 1 << 30,
    });
    for (const line of out.split('\n').filter(Boolean)) {
      const f = JSON.parse(line) as GoFile;
      parsed.set(path.relative(work, f.path).split(path.sep).join('/'), f);
    }
    const members = new Map<string, string[]>();
    for (const [importPath, p] of packages) {
      members.set(importPath, filesOf(p).filter((f) => !f.endsWith('_test.go') && parsed.get(f)?.package === p.Name));
    }
    const edges = new Map<string, boolean>();
    const add = (from: string, targets: string[] | undefined) => {
      for (const to of targets ?? []) if (to !== from) edges.set(`${from} -> ${to}`, false);
    };
    for (const [importPath, p] of packages) {
      for (const f of filesOf(p)) {
        const file = parsed.get(f);
        if (!file) continue;
        for (const imp of file.imports) add(f, members.get(imp));
        if (f.endsWith('_test.go') && file.package === p.Name) add(f, members.get(importPath));
      }
      const own = members.get(importPath) ?? [];
      for (const f of own) {
        const file = parsed.get(f)!;
        const declared = new Set(file.top);
        for (const other of own) {
          if (other === f) continue;
          const o = parsed.get(other)!;
          if (o.top.some((n) => !declared.has(n) && file.uses.includes(n)) || o.methods.some((n) => file.methodCalls.includes(n))) add(f, [other]);
        }
      }
    }
    return { files: new Set(all), edges };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const { files, edges } = goOracle(path.resolve(process.argv[2]));
  for (const e of [...edges.keys()].sort()) console.log(e);
  console.error(`${files.size} files, ${edges.size} edges`);
}
