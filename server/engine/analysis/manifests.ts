import path from 'node:path';

export type DependencyType = 'package' | 'dev' | 'peer' | 'optional';

export interface ManifestDependency {
  name: string;
  version: string | null;
  type: DependencyType;
  ecosystem: string;
  manifest: string;
}

export interface Manifest {
  path: string;
  ecosystem: string;
  dependencies: ManifestDependency[];
  /** Commands to build and test, as the manifest declares them. */
  commands: { build: string[]; test: string[] };
  name: string | null;
  description: string | null;
}

const MANIFEST_NAMES = /(^|\/)(package\.json|pyproject\.toml|requirements[^/]*\.txt|go\.mod|Cargo\.toml|pom\.xml|[^/]+\.csproj|Gemfile|composer\.json|Makefile)$/;

export const isManifest = (p: string): boolean => MANIFEST_NAMES.test(p) && !p.includes('node_modules/') && !p.includes('vendor/');

/** Reads one manifest's dependencies and build/test commands; null when it cannot be parsed. */
export function parseManifest(file: string, text: string): Manifest | null {
  const base = path.posix.basename(file);
  const m = (ecosystem: string, deps: Omit<ManifestDependency, 'ecosystem' | 'manifest'>[], extra: Partial<Manifest> = {}): Manifest => ({
    path: file, ecosystem, name: null, description: null, commands: { build: [], test: [] },
    ...extra,
    dependencies: deps.map((d) => ({ ...d, ecosystem, manifest: file })),
  });
  try {
    if (base === 'package.json' || base === 'composer.json') {
      const json = JSON.parse(text) as Record<string, unknown>;
      const pick = (field: string, type: DependencyType) =>
        Object.entries((json[field] ?? {}) as Record<string, unknown>).map(([name, v]) => ({ name, version: typeof v === 'string' ? v : null, type }));
      const ecosystem = base === 'package.json' ? 'npm' : 'composer';
      const deps = base === 'package.json'
        ? [...pick('dependencies', 'package'), ...pick('devDependencies', 'dev'), ...pick('peerDependencies', 'peer'), ...pick('optionalDependencies', 'optional')]
        : [...pick('require', 'package'), ...pick('require-dev', 'dev')];
      const scripts = (json.scripts ?? {}) as Record<string, unknown>;
      const runner = base === 'package.json' ? 'npm run' : 'composer run';
      const names = Object.keys(scripts);
      return m(ecosystem, deps, {
        name: typeof json.name === 'string' ? json.name : null,
        description: typeof json.description === 'string' ? json.description : null,
        commands: {
          build: names.filter((s) => /^(build|compile|bundle|package)(:|$)/.test(s)).map((s) => `${runner} ${s}`),
          test: names.filter((s) => /^test(:|$)/.test(s)).map((s) => (s === 'test' && ecosystem === 'npm' ? 'npm test' : `${runner} ${s}`)),
        },
      });
    }
    if (/^requirements[^/]*\.txt$/.test(base)) {
      const deps = text.split('\n').map((l) => l.replace(/#.*/, '').trim()).filter((l) => l && !l.startsWith('-'))
        .map((l) => { const x = /^([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*(.*)$/.exec(l); return x ? { name: x[1], version: x[3] || null, type: (/dev|test/.test(base) ? 'dev' : 'package') as DependencyType } : null; })
        .filter((d): d is NonNullable<typeof d> => d !== null);
      return m('pypi', deps, { commands: { build: [], test: ['pytest'] } });
    }
    if (base === 'pyproject.toml') {
      const deps: Omit<ManifestDependency, 'ecosystem' | 'manifest'>[] = [];
      for (const item of tomlStringArray(text, 'dependencies')) {
        const x = /^([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*(.*)$/.exec(item.trim());
        if (x) deps.push({ name: x[1], version: x[3] || null, type: 'package' });
      }
      for (const section of tomlSections(text, /^tool\.poetry\.(dev-)?dependencies$|^tool\.poetry\.group\.[^.]+\.dependencies$/)) {
        for (const [name, version] of section.entries) if (name !== 'python') deps.push({ name, version, type: section.name.includes('dependencies') && section.name !== 'tool.poetry.dependencies' ? 'dev' : 'package' });
      }
      const name = /^\s*name\s*=\s*["']([^"']+)["']/m.exec(text)?.[1] ?? null;
      return m('pypi', deps, { name, commands: { build: ['python -m build'], test: ['pytest'] } });
    }
    if (base === 'go.mod') {
      const deps: Omit<ManifestDependency, 'ecosystem' | 'manifest'>[] = [];
      const block = /require\s*\(([\s\S]*?)\)/g;
      let b: RegExpExecArray | null;
      const lines: string[] = [];
      while ((b = block.exec(text))) lines.push(...b[1].split('\n'));
      for (const single of text.matchAll(/^require\s+([^\s(]+)\s+(\S+)/gm)) lines.push(`${single[1]} ${single[2]}`);
      for (const l of lines) {
        const x = /^\s*(\S+)\s+(v\S+)(\s*\/\/\s*indirect)?/.exec(l);
        if (x) deps.push({ name: x[1], version: x[2], type: x[3] ? 'optional' : 'package' });
      }
      const name = /^module\s+(\S+)/m.exec(text)?.[1] ?? null;
      return m('go', deps, { name, commands: { build: ['go build ./...'], test: ['go test ./...'] } });
    }
    if (base === 'Cargo.toml') {
      const deps: Omit<ManifestDependency, 'ecosystem' | 'manifest'>[] = [];
      for (const section of tomlSections(text, /^(dev-|build-)?dependencies$/)) {
        for (const [name, version] of section.entries) deps.push({ name, version, type: section.name.startsWith('dev') ? 'dev' : 'package' });
      }
      const name = /^\s*name\s*=\s*"([^"]+)"/m.exec(text)?.[1] ?? null;
      return m('cargo', deps, { name, commands: { build: ['cargo build'], test: ['cargo test'] } });
    }
    if (base === 'pom.xml') {
      const deps = [...text.matchAll(/<dependency>([\s\S]*?)<\/dependency>/g)].map((d) => {
        const tag = (t: string) => new RegExp(`<${t}>\\s*([^<]+?)\\s*</${t}>`).exec(d[1])?.[1] ?? null;
        return { name: `${tag('groupId')}:${tag('artifactId')}`, version: tag('version'), type: (tag('scope') === 'test' ? 'dev' : 'package') as DependencyType };
      });
      return m('maven', deps, { commands: { build: ['mvn package'], test: ['mvn test'] } });
    }
    if (base.endsWith('.csproj')) {
      const deps = [...text.matchAll(/<PackageReference\s+Include="([^"]+)"(?:\s+Version="([^"]+)")?/g)].map((x) => ({ name: x[1], version: x[2] ?? null, type: 'package' as DependencyType }));
      return m('nuget', deps, { commands: { build: ['dotnet build'], test: ['dotnet test'] } });
    }
    if (base === 'Gemfile') {
      const deps = [...text.matchAll(/^\s*gem\s+['"]([^'"]+)['"](?:\s*,\s*['"]([^'"]+)['"])?/gm)].map((x) => ({ name: x[1], version: x[2] ?? null, type: 'package' as DependencyType }));
      return m('rubygems', deps, { commands: { build: ['bundle install'], test: ['bundle exec rake test'] } });
    }
    if (base === 'Makefile') {
      const targets = [...text.matchAll(/^([A-Za-z][\w-]*):/gm)].map((x) => x[1]);
      return m('make', [], { commands: { build: targets.filter((t) => /^(all|build)$/.test(t)).map((t) => `make ${t}`), test: targets.filter((t) => /^(test|check)$/.test(t)).map((t) => `make ${t}`) } });
    }
  } catch {
    return null;
  }
  return null;
}

/** The strings of `key = [ … ]` (first occurrence); brackets inside the strings (extras) do not end it. */
function tomlStringArray(text: string, key: string): string[] {
  const start = new RegExp(`^\\s*${key}\\s*=\\s*\\[`, 'm').exec(text);
  if (!start) return [];
  const out: string[] = [];
  let quote: string | null = null;
  let current = '';
  for (let i = start.index + start[0].length; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) { out.push(current); current = ''; quote = null; } else current += c;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ']') break;
  }
  return out;
}

/** `[name]` sections of a TOML file matching `pattern`, with their `key = "version"` or `key = { version = … }` lines. */
function tomlSections(text: string, pattern: RegExp): { name: string; entries: [string, string | null][] }[] {
  const out: { name: string; entries: [string, string | null][] }[] = [];
  let current: { name: string; entries: [string, string | null][] } | null = null;
  for (const line of text.split('\n')) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header) {
      current = pattern.test(header[1].trim()) ? { name: header[1].trim(), entries: [] } : null;
      if (current) out.push(current);
      continue;
    }
    const entry = current && /^\s*([A-Za-z0-9_.-]+)\s*=\s*(.+)$/.exec(line);
    if (current && entry) {
      const value = entry[2].trim();
      const version = /^"([^"]*)"/.exec(value)?.[1] ?? /version\s*=\s*"([^"]*)"/.exec(value)?.[1] ?? null;
      current.entries.push([entry[1], version]);
    }
  }
  return out;
}
