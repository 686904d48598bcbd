import path from 'node:path';
import { CODE_LANGUAGES } from '../indexer/languages';
import type { ImportGraph } from './import-graph';
import { frameworkRoutes } from './framework-routes';
import { isManifest, parseManifest, type DeclaredEntry } from './manifests';
import { librariesOf, NO_TESTING_LIBRARIES, type TestingLibraries } from './testing-libraries';

export type EntryKind = 'package-entry' | 'binary' | 'entry-file' | 'test';

export interface EntryPoint { file: number; kind: EntryKind; detail: string }

/** Test files by their folder, or by their own name (a test-named file is one in any folder). */
const TEST_FOLDER = /(^|\/)(__tests__|__test__|tests?|spec|e2e)\//i;
const TEST_NAME = /\.(test|spec|e2e)\.[cm]?[jt]sx?$|(^|\/)test_[^/]+\.py$|_test\.(go|py)$/i;
const CONVENTIONAL_ENTRY = /^(src\/)?(index|main|cli|server|app)\.[cm]?[jt]sx?$/;
/** Programs by the toolchain's own convention: Go's main.go and cmd/<name>/, Rust's src/main.rs and src/bin/, Python's __main__.py. */
const TOOLCHAIN_ENTRY = /(^|\/)main\.go$|(^|\/)cmd\/[^/]+\/[^/]+(?<!_test)\.go$|(^|\/)src\/main\.rs$|(^|\/)src\/bin\/[^/]+\.rs$|(^|\/)__main__\.py$/;
/**
 * Executables: a file with no extension in a bin/ or exe/ folder that its `#!` line made code (`bin/thor`:
 * `#!/usr/bin/env ruby`; indexer/languages.ts languageOf). A shell script stays text, and is not listed.
 */
const EXECUTABLE = /(^|\/)(bin|exe)\/[^/.]+$/;
/**
 * A script in bin/ or exe/ whose name has a dot (django/bin/django-admin.py, pytest's bin/py.test): a program when it
 * starts with a `#!` line or runs its code under `if __name__ == "__main__":`; a module a script imports has neither.
 */
const BIN_SCRIPT = /(^|\/)(bin|exe)\/[^/]+\.[^/]+$/;
const RUNS_AS_PROGRAM = /^#!|^if\s+__name__\s*==\s*['"]__main__['"]\s*:/m;
const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

/** Languages whose programs start at a top-level `main` function wherever it is defined. */
export const MAIN_LANGUAGES: ReadonlySet<string> = new Set(['c', 'cpp']);

/**
 * A test file by its path. `libraries` (testing-libraries.ts, from the repository's paths) turns away a test/ folder
 * that is a library for writing tests (django/test/); without it, every file under a test folder is a test.
 */
export const isTestPath = (p: string, libraries: TestingLibraries = NO_TESTING_LIBRARIES): boolean =>
  TEST_NAME.test(p) || (TEST_FOLDER.test(p) && !libraries.holds(p));

/** A file tests start from: a test file by its path, or one holding tests of its own code (Rust's in-file `#[test]`s). */
export const holdsTests = (f: { path: string; holdsTests: boolean }, libraries: TestingLibraries = NO_TESTING_LIBRARIES): boolean =>
  isTestPath(f.path, libraries) || f.holdsTests;

/**
 * The files a program is started or consumed from: package.json `main`/`module`/`types`/`exports`
 * (mapped from build output back to sources when the source of the same name exists), `bin`
 * scripts, conventional entry names, a web framework's routes (framework-routes.ts), executables and scripts in bin/,
 * C and C++ files defining `main` (`mains`, by graph index: lua.c), and test files (by path, or a source file holding
 * its own tests).
 */
export function findEntryPoints(graph: ImportGraph, readText: (p: string) => string | null, mains: ReadonlySet<number> = new Set()): EntryPoint[] {
  const found = new Map<number, EntryPoint>();
  const libraries = librariesOf(graph);
  const add = (file: number | undefined, kind: EntryKind, detail: string) => {
    if (file !== undefined && !found.has(file)) found.set(file, { file, kind, detail });
  };
  for (const f of graph.files) {
    if (path.posix.basename(f.path) !== 'package.json' || f.path.includes('node_modules/')) continue;
    let manifest: Record<string, unknown>;
    try { manifest = JSON.parse(readText(f.path) ?? '') as Record<string, unknown>; } catch { continue; }
    const dir = path.posix.dirname(f.path);
    const bin = manifest.bin;
    const bins = typeof bin === 'string' ? { [String(manifest.name ?? 'bin')]: bin } : (bin && typeof bin === 'object' ? bin as Record<string, unknown> : {});
    for (const [name, target] of Object.entries(bins)) {
      if (typeof target === 'string') add(locate(graph, dir, target), 'binary', `bin ${name} in ${f.path}`);
    }
    for (const field of ['main', 'module', 'browser', 'types', 'typings']) {
      const value = manifest[field];
      if (typeof value === 'string') add(locate(graph, dir, value), 'package-entry', `${field} in ${f.path}`);
    }
    for (const target of exportTargets(manifest.exports)) add(locate(graph, dir, target), 'package-entry', `exports in ${f.path}`);
  }
  // Programs other manifests declare: console scripts, [[bin]], gem executables, composer bin, main classes.
  for (const f of graph.files) {
    if (!isManifest(f.path) || path.posix.basename(f.path) === 'package.json') continue;
    const text = readText(f.path);
    const manifest = text === null ? null : parseManifest(f.path, text);
    const dir = path.posix.dirname(f.path);
    for (const entry of manifest?.entries ?? []) {
      add(locateDeclared(graph, dir === '.' ? '' : dir, entry, readText), 'binary', `${entry.name} in ${f.path}`);
    }
  }
  // Pages, layouts and API routes a web framework's router starts from (nothing imports them).
  const routes = frameworkRoutes(graph.files.map((f) => f.path));
  graph.files.forEach((f, i) => {
    if (CONVENTIONAL_ENTRY.test(f.path) || TOOLCHAIN_ENTRY.test(f.path)) add(i, 'entry-file', 'conventional entry name');
    else if (routes.has(f.path)) add(i, 'entry-file', routes.get(f.path)!);
    else if (EXECUTABLE.test(f.path) && f.language && CODE_LANGUAGES.has(f.language)) add(i, 'binary', `${f.language} executable`);
    else if (BIN_SCRIPT.test(f.path) && f.language && f.language !== 'shell' && CODE_LANGUAGES.has(f.language)
      && RUNS_AS_PROGRAM.test(readText(f.path) ?? '')) add(i, 'binary', `${f.language} script`);
    else if (isTestPath(f.path, libraries)) add(i, 'test', 'test file');
    else if (mains.has(i)) add(i, 'entry-file', 'defines main()');
    else if (f.holdsTests) add(i, 'test', 'tests in the file');
  });
  return [...found.values()];
}

function exportTargets(exports: unknown): string[] {
  if (typeof exports === 'string') return [exports];
  if (Array.isArray(exports)) return exports.flatMap(exportTargets);
  if (exports && typeof exports === 'object') return Object.values(exports).flatMap(exportTargets);
  return [];
}

/** A manifest path as an indexed file: as written, then as the source that builds it. */
function locate(graph: ImportGraph, dir: string, target: string): number | undefined {
  const rel = path.posix.normalize(path.posix.join(dir === '.' ? '' : dir, target.replace(/^\.\//, '')));
  const direct = graph.indexOfPath.get(rel) ?? graph.indexOfPath.get(`${rel}/index.js`) ?? graph.indexOfPath.get(`${rel}/index.ts`);
  if (direct !== undefined) return direct;
  const stem = rel.replace(/(\.d)?\.[cm]?[jt]sx?$/, '');
  const candidates = [stem, stem.replace(/^(dist|lib|build|out)(\/(cjs|esm|esm5|types|es\d+))?\//, 'src/')];
  for (const c of candidates) {
    for (const ext of SOURCE_EXTENSIONS) {
      const hit = graph.indexOfPath.get(c + ext) ?? graph.indexOfPath.get(`${c}/index${ext}`);
      if (hit !== undefined) return hit;
    }
  }
  return undefined;
}

/** The file a declared program starts in, found from the manifest's folder. */
function locateDeclared(graph: ImportGraph, dir: string, entry: DeclaredEntry, readText: (p: string) => string | null): number | undefined {
  const at = (...parts: string[]) => graph.indexOfPath.get(path.posix.normalize(path.posix.join(dir, ...parts)).replace(/^\.\//, ''));
  switch (entry.kind) {
    case 'path':
      return at(entry.target);
    case 'python-module': {
      // `flask.cli:main`: the module flask.cli, in the project folder or its src/ layout.
      const modulePath = entry.target.split(':')[0].replace(/\./g, '/');
      for (const root of ['', 'src', 'lib']) {
        const hit = at(root, `${modulePath}.py`) ?? at(root, modulePath, '__init__.py');
        if (hit !== undefined) return hit;
      }
      return undefined;
    }
    case 'java-class': {
      const suffix = `/${entry.target.replace(/\$.*$/, '').replace(/\./g, '/')}.java`;
      const prefix = dir ? `${dir}/` : '';
      const i = graph.files.findIndex((f) => f.path.startsWith(prefix) && (`/${f.path}`).endsWith(suffix));
      return i < 0 ? undefined : i;
    }
    case 'project': {
      // A C# executable: Program.cs, else the project's file with a Main method or top-level statements' entry.
      const project = path.posix.dirname(path.posix.join(dir, entry.target));
      const prefix = project === '.' ? '' : `${project}/`;
      const sources = graph.files.map((f, i) => ({ f, i })).filter(({ f }) => f.path.startsWith(prefix) && f.path.endsWith('.cs'));
      const program = sources.find(({ f }) => path.posix.basename(f.path) === 'Program.cs');
      if (program) return program.i;
      return sources.find(({ f }) => /\bstatic\s+(async\s+)?[\w<>]+\s+Main\s*\(/.test(readText(f.path) ?? ''))?.i;
    }
  }
}
