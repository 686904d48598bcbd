import path from 'node:path';
import type { ImportGraph } from './import-graph';
import { isStandardLibrary } from '../indexer/stdlib';
import { isManifest, parseManifest, type Manifest } from './manifests';
import { jsInstalls, type JsInstalls } from './js-installs';
import { isBesideProject } from '../search/file-role';
import { composerPackages, installedComposerPackages } from './composer-packages';
import { lockedGems } from './gem-lock';

export type DependencyKind = 'package' | 'builtin' | 'dev' | 'peer' | 'local';

export interface DependencyFact {
  name: string;
  type: DependencyKind;
  version: string | null;
  ecosystem: string;
  manifest: string | null;
  /** Files that import it, by graph index. */
  files: Set<number>;
  /** Import statements naming it. */
  usage: number;
}

export interface RepoFacts {
  manifests: Manifest[];
  readme: { path: string; text: string } | null;
  dependencies: Map<string, DependencyFact>;
  /** `fileIndex\0name` → files importing that name from that file. */
  importedNames: Map<string, Set<number>>;
  /** How the JavaScript packages are installed and with which package manager (js-installs.ts). */
  js: JsInstalls;
}

const README = /^readme(\.(md|markdown|rst|txt))?$/i;
/** Which declaration of a dependency wins when manifests disagree. */
const STRENGTH: Record<DependencyKind, number> = { dev: 1, peer: 2, package: 3, builtin: 4, local: 5 };

/** Facts several analyses read, computed once per graph generation. */
export function computeFacts(graph: ImportGraph, readText: (p: string) => string | null): RepoFacts {
  const manifests: Manifest[] = [];
  for (const f of graph.files) {
    if (!isManifest(f.path)) continue;
    const text = readText(f.path);
    const dir = path.posix.dirname(f.path);
    const parsed = text === null ? null : parseManifest(f.path, text, (name) => graph.indexOfPath.has(dir === '.' ? name : `${dir}/${name}`));
    if (parsed) manifests.push(parsed);
  }
  manifests.sort((a, b) => a.path.split('/').length - b.path.split('/').length || a.path.localeCompare(b.path));

  const readmes = graph.files.filter((f) => README.test(path.posix.basename(f.path)))
    .sort((a, b) => a.path.split('/').length - b.path.split('/').length || a.path.localeCompare(b.path));
  const readmeText = readmes.length ? readText(readmes[0].path) : null;

  // A name declared by several manifests takes its strongest declaration: the repository's own package (a
  // workspace member: its name is a manifest's, or `workspace:*`) is local; a runtime dependency of any package
  // outweighs a root's devDependency (payload's root declares react for its tests, its packages need it to run);
  // between equals, the first (the shallowest) that is not an example's or a test's.
  const packageNames = new Set(manifests.map((m) => m.name).filter((n): n is string => !!n));
  const dependencies = new Map<string, DependencyFact>();
  for (const m of manifests) {
    for (const d of m.dependencies) {
      const type: DependencyKind = packageNames.has(d.name) || /^(workspace|link|portal):/.test(d.version ?? '') ? 'local'
        : d.type === 'dev' ? 'dev' : d.type === 'peer' ? 'peer' : 'package';
      const known = dependencies.get(d.name);
      // Between equals, a package's own declaration over an example's or a test's (react's version is the library's).
      if (known && (STRENGTH[type] < STRENGTH[known.type] || (STRENGTH[type] === STRENGTH[known.type] && (isBesideProject(m.path, true) || !isBesideProject(known.manifest!, true))))) continue;
      dependencies.set(d.name, { name: d.name, type, version: d.version, ecosystem: d.ecosystem, manifest: m.path, files: new Set(), usage: 0 });
    }
  }
  // The project's own names (its manifests' names, its top-level folders): an import of them that did not
  // resolve to a file is still the project, never a dependency.
  const ownNames = new Set(manifests.map((m) => m.name).filter((n): n is string => !!n).map(normalizeName));
  const ownFolders = new Set(graph.files.map((f) => (f.path.includes('/') ? normalizeName(f.path.split('/')[0]) : '')).filter(Boolean));
  // A top-level folder names a module only where the language imports by folder name (`import flask`,
  // `require "rack"`), not where names are reversed domains (`com.google…`, `github.com/…`).
  const isOwn = (language: string | null, name: string) => {
    const first = normalizeName(name.split(/[./:\\]/)[0]);
    return ownNames.has(first) || ownNames.has(normalizeName(name)) || (/^(python|ruby|rust|c|cpp)$/.test(language ?? '') && ownFolders.has(first));
  };
  // A Go import belongs to the go.mod `require` module whose path is its longest prefix, as the go command assigns
  // packages to modules: `github.com/stretchr/testify/assert` is github.com/stretchr/testify's.
  const goModules = [...dependencies.values()].filter((d) => d.ecosystem === 'go' && d.type !== 'local').map((d) => d.name)
    .sort((a, b) => b.length - a.length);
  const goModuleOf = (importPath: string) => goModules.find((m) => importPath === m || importPath.startsWith(`${m}/`)) ?? importPath;
  // A Ruby `require` names a file; the gem holding it is the declared one whose name, `-` read as `/`, starts the
  // path (`rack/protection` is rack-protection's, `rack/utils` rack's: the gem naming convention), else the path's
  // first folder.
  // Gemfile.lock adds the gems the declared ones pulled in (thor's `require 'diff/lcs'` is diff-lcs's).
  const declaredGems = [...dependencies.values()].filter((d) => d.ecosystem === 'rubygems' && d.type !== 'local').map((d) => d.name);
  const gems = [...new Set([...declaredGems, ...lockedGems(graph.files.map((f) => f.path), readText).filter((g) => !ownNames.has(normalizeName(g)))])]
    .sort((a, b) => b.length - a.length);
  // A declared gem goes before the standard library: `net/ssh` is net-ssh's, `minitest/reporters` minitest-reporters'.
  const declaredGem = (required: string) => gems.find((g) => {
    const asPath = g.replace(/-/g, '/');
    return required === g || required === asPath || required.startsWith(`${asPath}/`);
  });
  const hasCargoToml = manifests.some((m) => m.ecosystem === 'cargo');
  const distributionOf = distributions([...dependencies.values()].filter((d) => (d.ecosystem === 'pypi' || d.ecosystem === 'cargo') && d.type !== 'local').map((d) => d.name));
  const composerOf = composerPackages([...dependencies.values()].filter((d) => d.ecosystem === 'composer' && d.type !== 'local').map((d) => d.name),
    installedComposerPackages(graph.files.map((f) => f.path), readText));
  const importedNames = new Map<string, Set<number>>();
  graph.statements.forEach((statements, from) => {
    for (const s of statements) {
      let name: string | null = null;
      let type: DependencyKind = 'package';
      if (s.packageName) {
        name = s.packageName;
        const language = graph.files[from].language;
        const gem = language === 'ruby' ? declaredGem(s.specifier) : undefined;
        // Standard libraries are never dependencies: `node:fs`, `os`, `std`, `java.util`, `System`, `<stdio.h>`, Ruby's
        // `net/http` (by the path required: `net/ssh` is a gem).
        if (gem) name = gem;
        else if (s.packageName.startsWith('node:') || isStandardLibrary(language, language === 'ruby' ? s.specifier : s.packageName)) type = 'builtin';
        else if (language !== 'typescript' && language !== 'javascript' && isOwn(language, s.packageName)) type = 'local';
        else if (language === 'go') name = goModuleOf(s.packageName);
        else if (language === 'php') name = composerOf(s.packageName);
        else if (language === 'python') name = distributionOf(s.packageName) ?? s.packageName;
        // Cargo gives rustc only the crates a Cargo.toml declares (and the sysroot's): a first segment that names
        // none is an item in scope (`use State::*` of a local enum, a `mod imp` picked by cfg), not a dependency.
        else if (language === 'rust') name = distributionOf(s.packageName) ?? (hasCargoToml ? null : s.packageName);
      } else if (s.targetPath && !s.specifier.startsWith('.') && !s.specifier.startsWith('/')) {
        name = s.specifier; // a path alias (tsconfig paths, baseUrl) that resolves inside the repository
        type = 'local';
      }
      if (name) {
        let fact = dependencies.get(name);
        if (!fact) {
          fact = { name, type, version: null, ecosystem: ecosystemOf(graph.files[from].language), manifest: null, files: new Set(), usage: 0 };
          dependencies.set(name, fact);
        }
        fact.files.add(from);
        fact.usage++;
      }
      if (s.targetPath) {
        const to = graph.indexOfPath.get(s.targetPath);
        if (to === undefined) continue;
        for (const n of s.names) {
          if (n === '*' || n === 'default') continue;
          const key = `${to}\0${n}`;
          let users = importedNames.get(key);
          if (!users) importedNames.set(key, (users = new Set()));
          users.add(from);
        }
      }
    }
  });
  const js = jsInstalls(manifests, graph.files.map((f) => f.path), readText);
  return { manifests, readme: readmes.length && readmeText !== null ? { path: readmes[0].path, text: readmeText } : null, dependencies, importedNames, js };
}

/** Python modules whose distribution's name says another word (`import PIL` is Pillow's). */
const MODULE_DISTRIBUTIONS: Record<string, string[]> = {
  pil: ['pillow'], sklearn: ['scikit-learn'], skimage: ['scikit-image'], bs4: ['beautifulsoup4'], attr: ['attrs'],
  cv2: ['opencv-python', 'opencv-python-headless', 'opencv-contrib-python'], mysqldb: ['mysqlclient'], git: ['gitpython'],
  dns: ['dnspython'], gi: ['pygobject'], crypto: ['pycryptodome'], psycopg2: ['psycopg2-binary'], yaml: ['pyyaml'],
};

/**
 * The declared PyPI or Cargo distribution an imported module belongs to: the one whose name, normalized, is the
 * module's (`import werkzeug` is Werkzeug's, `importlib_metadata` importlib-metadata's, `regex_syntax` the
 * regex-syntax crate's), or that module behind a `python-`/`py` prefix (`dotenv` is python-dotenv's, `jwt` PyJWT's),
 * or a known other name (`PIL` is Pillow's); else null.
 */
function distributions(declared: string[]): (module: string) => string | null {
  const byName = new Map(declared.map((d) => [normalizeName(d), d]));
  return (module) => {
    const n = normalizeName(module);
    for (const candidate of [n, `python-${n}`, `py${n}`, `py-${n}`, ...(MODULE_DISTRIBUTIONS[n] ?? [])]) {
      const found = byName.get(candidate);
      if (found) return found;
    }
    return null;
  };
}

/** PyPI and Cargo treat `-`, `_` and `.` alike and ignore case. */
const normalizeName = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

function ecosystemOf(language: string | null): string {
  switch (language) {
    case 'typescript': case 'javascript': case 'tsx': case 'jsx': return 'npm';
    case 'python': return 'pypi';
    case 'go': return 'go';
    case 'rust': return 'cargo';
    case 'java': case 'kotlin': return 'maven';
    case 'csharp': return 'nuget';
    case 'ruby': return 'rubygems';
    case 'php': return 'composer';
    default: return language ?? 'unknown';
  }
}
