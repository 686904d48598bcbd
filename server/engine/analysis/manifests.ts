import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { parse as parseToml } from 'smol-toml';

export type DependencyType = 'package' | 'dev' | 'peer' | 'optional';

export interface ManifestDependency {
  name: string;
  version: string | null;
  type: DependencyType;
  ecosystem: string;
  manifest: string;
}

/**
 * A program the manifest declares: a Python console script (`flask = "flask.cli:main"`), a Cargo `[[bin]]`,
 * a gem executable, a composer `bin`, a Maven main class, a C# executable project. `target` is what the
 * manifest names (a module, a path, a class); entry-points.ts finds the file.
 */
export interface DeclaredEntry { name: string; kind: 'python-module' | 'path' | 'java-class' | 'project'; target: string }

export interface Manifest {
  path: string;
  ecosystem: string;
  dependencies: ManifestDependency[];
  /** Commands to build and test, as the manifest declares them. */
  commands: { build: string[]; test: string[] };
  name: string | null;
  description: string | null;
  entries: DeclaredEntry[];
  /** package.json: the member globs of the workspace it is the root of (`workspaces`, an array or `{ packages }`). */
  workspaces?: string[];
  /** package.json: the package manager it names (`"packageManager": "pnpm@9.1.0"` → pnpm). */
  packageManager?: string | null;
}

const MANIFEST_NAMES = /(^|\/)(package\.json|pyproject\.toml|setup\.cfg|requirements[^/]*\.txt|go\.mod|Cargo\.toml|pom\.xml|build\.gradle(\.kts)?|[^/]+\.csproj|Gemfile|[^/]+\.gemspec|composer\.json|Makefile|makefile|GNUmakefile)$/;

export const isManifest = (p: string): boolean => MANIFEST_NAMES.test(p) && !p.includes('node_modules/') && !p.includes('vendor/');

type Dep = Omit<ManifestDependency, 'ecosystem' | 'manifest'>;
type Table = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const table = (v: unknown): Table => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Table) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);

/** `requests[socks] >= 2.0 ; python_version < "3.8"` → name and version (PEP 508). */
function pep508(spec: string, type: DependencyType): Dep | null {
  const x = /^\s*([A-Za-z0-9][A-Za-z0-9_.-]*)\s*(\[[^\]]*\])?\s*([^;]*)/.exec(spec);
  return x ? { name: x[1], version: x[3].trim() || null, type } : null;
}

/** A Rakefile in the manifest's folder: what `bundle exec rake test` needs. */
const RAKEFILE = ['Rakefile', 'rakefile', 'Rakefile.rb', 'rakefile.rb'];

/**
 * Reads one manifest's dependencies, build/test commands and declared programs; null when it cannot be parsed.
 * `beside` tells whether a file of that name sits in the manifest's folder (commands that need one: a Gemfile's
 * `rake test` needs a Rakefile; league/commonmark's docs/Gemfile, the docs site's, has none).
 */
export function parseManifest(file: string, text: string, beside: (name: string) => boolean = () => false): Manifest | null {
  const base = path.posix.basename(file);
  const m = (ecosystem: string, deps: Dep[], extra: Partial<Manifest> = {}): Manifest => ({
    path: file, ecosystem, name: null, description: null, commands: { build: [], test: [] }, entries: [],
    ...extra,
    dependencies: deps.filter((d) => d.name).map((d) => ({ ...d, ecosystem, manifest: file })),
  });
  try {
    if (base === 'package.json' || base === 'composer.json') return jsonManifest(base, JSON.parse(text) as Table, m);
    if (/^requirements[^/]*\.txt$/.test(base)) {
      const deps = text.split('\n').map((l) => l.replace(/#.*/, '').trim()).filter((l) => l && !l.startsWith('-'))
        .map((l) => pep508(l, /dev|test/.test(base) ? 'dev' : 'package')).filter((d): d is Dep => d !== null);
      return m('pypi', deps, { commands: { build: [], test: ['pytest'] } });
    }
    if (base === 'pyproject.toml') return pyproject(parseToml(text) as Table, m);
    if (base === 'setup.cfg') return setupCfg(text, m);
    if (base === 'go.mod') return goMod(text, m);
    if (base === 'Cargo.toml') return cargo(parseToml(text) as Table, m);
    if (base === 'pom.xml') return pom(xml(text), m);
    if (/^build\.gradle(\.kts)?$/.test(base)) return gradle(text, m);
    if (base.endsWith('.csproj')) return csproj(xml(text), base, m);
    if (base === 'Gemfile') {
      const deps = [...text.matchAll(/^\s*gem\s+['"]([^'"]+)['"](?:\s*,\s*['"]([^'"]+)['"])?/gm)].map((x) => ({ name: x[1], version: x[2] ?? null, type: 'package' as DependencyType }));
      // `bundle install` installs (blueprint.ts lists it); it builds nothing.
      return m('rubygems', deps, { commands: { build: [], test: rakeTest(beside) } });
    }
    if (base.endsWith('.gemspec')) return gemspec(text, m, rakeTest(beside));
    // GNU make reads GNUmakefile, makefile, then Makefile (lua's is `makefile`).
    if (/^(GNUmakefile|makefile|Makefile)$/.test(base)) {
      const targets = [...text.matchAll(/^([A-Za-z][\w-]*):/gm)].map((x) => x[1]);
      return m('make', [], { commands: { build: targets.filter((t) => /^(all|build)$/.test(t)).map((t) => `make ${t}`), test: targets.filter((t) => /^(test|check)$/.test(t)).map((t) => `make ${t}`) } });
    }
  } catch {
    return null;
  }
  return null;
}

const rakeTest = (beside: (name: string) => boolean) => (RAKEFILE.some(beside) ? ['bundle exec rake test'] : []);

type Make = (ecosystem: string, deps: Dep[], extra?: Partial<Manifest>) => Manifest;

const COMPOSER_PLATFORM = /^(php(-64bit|-ipv6|-zts|-debug)?|hhvm|ext-.+|lib-.+|composer(-plugin-api|-runtime-api)?)$/i;

function jsonManifest(base: string, json: Table, m: Make): Manifest {
  const pick = (field: string, type: DependencyType) =>
    Object.entries(table(json[field])).map(([name, v]) => ({ name, version: str(v), type }));
  const npm = base === 'package.json';
  const deps = npm
    ? [...pick('dependencies', 'package'), ...pick('devDependencies', 'dev'), ...pick('peerDependencies', 'peer'), ...pick('optionalDependencies', 'optional')]
    // Composer's platform packages (the PHP version, extensions, system libraries) are requirements, not packages.
    : [...pick('require', 'package'), ...pick('require-dev', 'dev')].filter((d) => !COMPOSER_PLATFORM.test(d.name));
  const names = Object.keys(table(json.scripts));
  const runner = npm ? 'npm run' : 'composer run';
  // composer `bin`: scripts installed into vendor/bin (package.json `bin` is read by entry-points.ts).
  const entries: DeclaredEntry[] = npm ? [] : list(json.bin).map(str).filter((b): b is string => !!b).map((b) => ({ name: path.posix.basename(b), kind: 'path', target: b }));
  const workspaces = Array.isArray(json.workspaces) ? json.workspaces : table(json.workspaces).packages;
  return m(npm ? 'npm' : 'composer', deps, {
    name: str(json.name),
    description: str(json.description),
    entries,
    ...(npm ? {
      workspaces: list(workspaces).map(str).filter((g): g is string => !!g),
      packageManager: /^(npm|pnpm|yarn|bun)@/.exec(str(json.packageManager) ?? '')?.[1] ?? null,
    } : {}),
    commands: {
      build: names.filter((s) => /^(build|compile|bundle|package)(:|$)/.test(s)).map((s) => `${runner} ${s}`),
      test: names.filter((s) => /^test(:|$)/.test(s)).map((s) => (s === 'test' && npm ? 'npm test' : `${runner} ${s}`)),
    },
  });
}

/** PEP 621 `[project]` (dependencies, optional-dependencies, scripts), PEP 735 `[dependency-groups]`, Poetry. */
function pyproject(toml: Table, m: Make): Manifest {
  const project = table(toml.project);
  const poetry = table(table(toml.tool).poetry);
  const deps: Dep[] = [];
  for (const d of list(project.dependencies)) { const x = typeof d === 'string' ? pep508(d, 'package') : null; if (x) deps.push(x); }
  for (const extra of Object.values(table(project['optional-dependencies']))) {
    for (const d of list(extra)) { const x = typeof d === 'string' ? pep508(d, 'optional') : null; if (x) deps.push(x); }
  }
  for (const group of Object.values(table(toml['dependency-groups']))) {
    for (const d of list(group)) { const x = typeof d === 'string' ? pep508(d, 'dev') : null; if (x) deps.push(x); }
  }
  const poetryDeps = (t: unknown, type: DependencyType) => {
    for (const [name, v] of Object.entries(table(t))) {
      if (name !== 'python') deps.push({ name, version: str(v) ?? str(table(v).version), type });
    }
  };
  poetryDeps(poetry.dependencies, 'package');
  poetryDeps(poetry['dev-dependencies'], 'dev');
  for (const group of Object.values(table(poetry.group))) poetryDeps(table(group).dependencies, 'dev');
  const scripts = { ...table(poetry.scripts), ...table(project.scripts), ...table(project['gui-scripts']) };
  const entries: DeclaredEntry[] = Object.entries(scripts).flatMap(([name, v]) => (typeof v === 'string' ? [{ name, kind: 'python-module' as const, target: v }] : []));
  return m('pypi', deps, {
    name: str(project.name) ?? str(poetry.name),
    description: str(project.description) ?? str(poetry.description),
    entries,
    commands: { build: ['python -m build'], test: ['pytest'] },
  });
}

/** setup.cfg (setuptools): `[metadata]` name/description, `[options] install_requires`, `[options.extras_require]`, console scripts. */
function setupCfg(text: string, m: Make): Manifest {
  const sections = new Map<string, Map<string, string>>();
  let section: Map<string, string> | null = null;
  let key: string | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+[#;].*$/, '').trimEnd();
    if (!line.trim() || /^\s*[#;]/.test(raw)) continue;
    const header = /^\[([^\]]+)\]$/.exec(line.trim());
    if (header) { sections.set(header[1], (section = new Map())); key = null; continue; }
    if (!section) continue;
    const entry = /^(\S[^=:]*?)\s*[=:]\s*(.*)$/.exec(line);
    if (entry && !/^\s/.test(raw)) { key = entry[1].trim(); section.set(key, entry[2]); }
    else if (key) section.set(key, `${section.get(key)}\n${line.trim()}`); // a continuation line
  }
  const values = (s: string, k: string) => (sections.get(s)?.get(k) ?? '').split('\n').map((v) => v.trim()).filter(Boolean);
  const deps: Dep[] = [];
  for (const d of values('options', 'install_requires')) { const x = pep508(d, 'package'); if (x) deps.push(x); }
  for (const [, v] of sections.get('options.extras_require') ?? []) {
    for (const d of v.split('\n').map((s) => s.trim()).filter(Boolean)) { const x = pep508(d, 'optional'); if (x) deps.push(x); }
  }
  for (const d of values('options', 'tests_require')) { const x = pep508(d, 'dev'); if (x) deps.push(x); }
  const entries: DeclaredEntry[] = [];
  for (const group of ['console_scripts', 'gui_scripts']) {
    for (const line of values('options.entry_points', group)) {
      const x = /^([^=\s]+)\s*=\s*(\S+)/.exec(line);
      if (x) entries.push({ name: x[1], kind: 'python-module', target: x[2] });
    }
  }
  return m('pypi', deps, {
    name: values('metadata', 'name')[0] ?? null,
    description: values('metadata', 'description')[0] ?? null,
    entries,
    commands: { build: ['python -m build'], test: ['pytest'] },
  });
}

function goMod(text: string, m: Make): Manifest {
  const code = text.replace(/\/\/(?!\s*indirect).*$/gm, '');
  const lines: string[] = [];
  for (const b of code.matchAll(/^require\s*\(([\s\S]*?)^\)/gm)) lines.push(...b[1].split('\n'));
  for (const single of code.matchAll(/^require\s+([^\s(]+\s+\S+.*)$/gm)) lines.push(single[1]);
  const deps: Dep[] = [];
  for (const l of lines) {
    const x = /^\s*(\S+)\s+(v\S+)(\s*\/\/\s*indirect)?/.exec(l);
    if (x) deps.push({ name: x[1], version: x[2], type: x[3] ? 'optional' : 'package' });
  }
  return m('go', deps, { name: /^module\s+(\S+)/m.exec(code)?.[1] ?? null, commands: { build: ['go build ./...'], test: ['go test ./...'] } });
}

/** Cargo.toml: `[dependencies]` (+ dev, build, per-target; `workspace = true` takes the workspace's), `[[bin]]`. */
function cargo(toml: Table, m: Make): Manifest {
  const pkg = table(toml.package);
  const workspace = table(table(toml.workspace).dependencies);
  const deps: Dep[] = [];
  const add = (t: unknown, type: DependencyType) => {
    for (const [key, v] of Object.entries(table(t))) {
      const spec = table(v);
      const inherited = spec.workspace === true ? workspace[key] : undefined;
      const version = str(v) ?? str(spec.version) ?? str(inherited) ?? str(table(inherited).version);
      deps.push({ name: str(spec.package) ?? key, version, type: spec.optional === true && type === 'package' ? 'optional' : type });
    }
  };
  add(toml.dependencies, 'package');
  add(toml['dev-dependencies'], 'dev');
  add(toml['build-dependencies'], 'dev');
  for (const target of Object.values(table(toml.target))) {
    add(table(target).dependencies, 'package');
    add(table(target)['dev-dependencies'], 'dev');
  }
  if (!Object.keys(pkg).length) add(workspace, 'package'); // a virtual workspace manifest lists the shared versions
  const entries: DeclaredEntry[] = list(toml.bin).map(table)
    .map((b) => ({ name: str(b.name) ?? str(pkg.name) ?? 'main', kind: 'path' as const, target: str(b.path) ?? `src/bin/${str(b.name)}.rs` }));
  return m('cargo', deps, {
    name: str(pkg.name), description: str(pkg.description), entries,
    commands: { build: ['cargo build'], test: ['cargo test'] },
  });
}

function xml(text: string): Table {
  return new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, trimValues: true }).parse(text) as Table;
}

/** pom.xml: dependencies (test scope → dev; not those only managed in dependencyManagement), name, description, main class. */
function pom(doc: Table, m: Make): Manifest {
  const project = table(doc.project);
  const deps = list(table(project.dependencies).dependency).map(table).map((d) => ({
    name: `${str(d.groupId)}:${str(d.artifactId)}`,
    version: str(d.version),
    type: (str(d.scope) === 'test' ? 'dev' : str(d.optional) === 'true' ? 'optional' : 'package') as DependencyType,
  }));
  const mainClass = findKey(project.build, 'mainClass');
  return m('maven', deps, {
    name: str(project.name) ?? str(project.artifactId),
    description: str(project.description),
    entries: mainClass ? [{ name: mainClass.slice(mainClass.lastIndexOf('.') + 1), kind: 'java-class', target: mainClass }] : [],
    commands: { build: ['mvn package'], test: ['mvn test'] },
  });
}

function findKey(value: unknown, key: string): string | null {
  if (!value || typeof value !== 'object') return null;
  for (const [k, v] of Object.entries(value as Table)) {
    if (k === key && typeof v === 'string') return v.trim();
    const found = findKey(v, key);
    if (found) return found;
  }
  return null;
}

/** build.gradle / build.gradle.kts: `implementation 'g:a:v'`, `testImplementation("g:a:v")`, …; `mainClass` of the application plugin. */
function gradle(text: string, m: Make): Manifest {
  const deps: Dep[] = [];
  for (const x of text.matchAll(/^\s*(\w+)\s*\(?\s*['"]([^'":\s]+):([^'":\s]+)(?::([^'"\s]+))?['"]/gm)) {
    const configuration = x[1];
    if (!/(implementation|api|compile|runtimeOnly|compileOnly|annotationProcessor|kapt|ksp)$/i.test(configuration)) continue;
    deps.push({ name: `${x[2]}:${x[3]}`, version: x[4] ?? null, type: /^test/i.test(configuration) ? 'dev' : 'package' });
  }
  const mainClass = /mainClass(?:Name)?\s*(?:=|\.set\()\s*['"]([\w.$]+)['"]/.exec(text)?.[1];
  return m('maven', deps, {
    entries: mainClass ? [{ name: mainClass.slice(mainClass.lastIndexOf('.') + 1), kind: 'java-class', target: mainClass }] : [],
    commands: { build: ['gradle build'], test: ['gradle test'] },
  });
}

/** *.csproj: PackageReference (Version as attribute or element), OutputType Exe, AssemblyName, Description. */
function csproj(doc: Table, base: string, m: Make): Manifest {
  const project = table(doc.Project);
  const groups = list(project.ItemGroup).map(table);
  const props = list(project.PropertyGroup).map(table);
  const prop = (key: string) => props.map((p) => str(p[key])).find((v) => v) ?? null;
  const deps = groups.flatMap((g) => list(g.PackageReference).map(table)).map((r) => ({
    name: str(r['@Include']) ?? str(r['@Update']) ?? '',
    version: str(r['@Version']) ?? str(r.Version),
    type: 'package' as DependencyType,
  }));
  const name = prop('AssemblyName') ?? base.replace(/\.csproj$/, '');
  const executable = /^(Exe|WinExe)$/i.test(prop('OutputType') ?? '');
  return m('nuget', deps, {
    name, description: prop('Description'),
    entries: executable ? [{ name, kind: 'project', target: base }] : [],
    commands: { build: ['dotnet build'], test: ['dotnet test'] },
  });
}

/** *.gemspec: name, summary/description, runtime and development dependencies, executables (in bindir, default bin/). */
function gemspec(text: string, m: Make, test: string[]): Manifest {
  const field = (key: string) => new RegExp(`\\.${key}\\s*=\\s*(?:%q\\{([^}]*)\\}|["']([^"']*)["'])`).exec(text);
  const value = (key: string) => { const x = field(key); return x ? (x[1] ?? x[2]) : null; };
  const deps: Dep[] = [];
  // `s.add_runtime_dependency(%q<zeitwerk>.freeze, ["~> 2.1"])` (generated) or `spec.add_dependency "rake", "~> 13"`.
  const quoted = `(?:%q<([^>]+)>|["']([^"']+)["'])(?:\\.freeze)?`;
  const pattern = new RegExp(`\\.add_(runtime_|development_)?dependency\\s*\\(?\\s*${quoted}(?:\\s*,\\s*\\[?\\s*${quoted})?`, 'g');
  for (const x of text.matchAll(pattern)) {
    const name = x[2] ?? x[3];
    if (!deps.some((d) => d.name === name)) deps.push({ name, version: x[4] ?? x[5] ?? null, type: x[1] === 'development_' ? 'dev' : 'package' });
  }
  const bindir = value('bindir') ?? 'bin';
  const declared = /\.executables\s*=\s*(\[[^\]]*\]|%w\[[^\]]*\])/.exec(text)?.[1] ?? '';
  const names = declared.startsWith('%w') ? declared.slice(3, -1).split(/\s+/).filter(Boolean) : [...declared.matchAll(/["']([\w.-]+)["']/g)].map((x) => x[1]);
  const entries: DeclaredEntry[] = names.map((e) => ({ name: e, kind: 'path' as const, target: `${bindir}/${e}` }));
  return m('rubygems', deps, {
    name: value('name'), description: value('summary') ?? value('description'), entries,
    commands: { build: ['gem build'], test },
  });
}
