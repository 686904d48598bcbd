import ts from 'typescript';
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';
import { findWorkspaces, type Workspace } from './workspaces';
import { solutionMember, type RawConfig } from './solution-config';
import type { ImportKind } from '../types';
import { generatedKitConfig, isKitModule } from './sveltekit-config';
import { BUNDLED_EXTENSIONS, viteRootPath, withoutViteQuery } from './vite-imports';

export interface Resolution {
  targetPath: string | null;
  packageName: string | null;
  /** More files the same import depends on (a C# partial type declared in several files): one edge each. */
  alsoTargets?: string[];
  /**
   * Files a type checker reads for the target instead (Python's `x.pyi` beside `x.py`): one type-only edge
   * each. Like `alsoTargets`, a relink resolves a stale row to `targetPath` only.
   */
  typeTargets?: string[];
}

const BUILTINS = new Set(builtinModules);

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`; `node:fs` → `node:fs`. */
export function packageNameOf(specifier: string): string {
  if (specifier.startsWith('node:')) return specifier;
  const parts = specifier.split('/');
  return specifier.startsWith('@') && parts.length > 1 ? `${parts[0]}/${parts[1]}` : parts[0];
}

/**
 * A file a bundler imports that the compiler knows no module for, as the compiler probes it (an unknown extension
 * with `.ts` added): a Vue or Svelte component (`App.vue.ts`), a stylesheet (`./App.css`, `./theme.module.scss`),
 * an asset (`./assets/react.svg`, `$lib/images/logo.png`: vite-imports.ts).
 */
const PROBED_MODULE = new RegExp(`\\.(${BUNDLED_EXTENSIONS.join('|')})\\.ts$`, 'i');

/** `x.d.ts`, `x.d.mts`, `x.d.cts`; the group is the runtime extension's prefix (`.js`, `.mjs`, `.cjs`). */
export const DECLARATION_FILE = /\.d\.([mc]?)ts$/;

const isRelative = (s: string) => s === '.' || s === '..' || s.startsWith('./') || s.startsWith('../') || s.startsWith('/');

/**
 * Resolves import specifiers exactly as the TypeScript compiler does for the nearest tsconfig.json
 * (or jsconfig.json): paths, baseUrl, index files, `.js` → `.ts`, package exports. Anything that
 * lands outside the repository or in node_modules is reported as a package.
 */
export class ModuleResolver {
  private readonly root: string;
  private readonly configs = new Map<string, ResolutionConfig>();
  /** Configs whose options resolve alike share one entry (payload: 177 tsconfig.json files, 39 alike). */
  private readonly alike = new Map<string, ResolutionConfig>();
  /** Each config as it resolves a subpath import (`#name`) when its own resolution ignores package.json `imports`. */
  private readonly subpathConfigs = new Map<ResolutionConfig, ResolutionConfig>();
  /** Bases that tsconfig.json files extend, read once (`extends`). */
  private readonly extended = new Map<string, ts.ExtendedConfigCacheEntry>();
  private readonly configForDir = new Map<string, string>();
  /** The config each folder's files resolve with: `configForDir`'s, or a solution's member (`configFileFor`). */
  private readonly memberForDir = new Map<string, string>();
  private readonly rawConfigs = new Map<string, RawConfig>();
  private readonly fileExists = new Map<string, boolean>();
  private readonly dirExists = new Map<string, boolean>();
  private readonly listings: Listings;
  /** Answers by what decides them, not by the importing folder (`answerKey`). */
  private readonly answers = new Map<string, Resolution>();
  private readonly modulesScopes = new Map<string, string>();
  private readonly packageScopes = new Map<string, string>();
  /** Each package.json folder's package name when the package has `exports` (it may import itself by name), else null. */
  private readonly exportingPackages = new Map<string, string | null>();
  /** Each file format the compiler implies, by config, folder and extension (`formatOf`). */
  private readonly formats = new Map<string, ImpliedFormat>();
  /** The compiler's resolution mode by config, import kind and file format (`modeOf`). */
  private readonly modes = new Map<string, ts.ResolutionMode>();
  private readonly host: ts.ModuleResolutionHost;
  private workspaces: Workspace[] | null = null;

  constructor(root: string) {
    this.root = path.resolve(root);
    this.listings = new Listings(this.root);
    const { fileExists, dirExists, listings } = this;
    const isFile = (p: string) => listings.isFile(p);
    const isDir = (p: string) => listings.isDir(p);
    // Workspace packages are shown where an install would link them (`<workspace>/node_modules/<name>`)
    // when nothing is installed there: the compiler then reads their package.json (exports, types, main)
    // and resolves into their sources as it would after `pnpm install`/`npm install`.
    const real = (p: string) => this.linkedPath(p) ?? p;
    this.host = {
      fileExists: (f) => {
        let v = fileExists.get(f);
        // `./App.vue` is probed as `./App.vue.ts` (an unknown extension gets `.ts` added): the component is that module.
        if (v === undefined) fileExists.set(f, (v = isFile(f) || this.isLinked(f, isFile) || (PROBED_MODULE.test(f) && isFile(f.slice(0, -3)))));
        return v;
      },
      directoryExists: (d) => {
        let v = dirExists.get(d);
        if (v === undefined) dirExists.set(d, (v = isDir(d) || this.isLinked(d, isDir)));
        return v;
      },
      readFile: (f) => (isFile(f) ? fs.readFileSync(f, 'utf8') : this.isLinked(f, isFile) ? fs.readFileSync(real(f), 'utf8') : undefined),
      realpath: (p) => {
        const existing = isFile(p) || isDir(p) ? p : real(p);
        return within(this.root, path.resolve(existing)) ? safeRealpath(existing) ?? p : p;
      },
      getCurrentDirectory: () => this.root,
    };
  }

  /** The workspaces of the repository, read on first need. */
  private workspaceList(): Workspace[] {
    return (this.workspaces ??= findWorkspaces(this.root));
  }

  /**
   * Where a path under a workspace's (absent) node_modules would lead once installed: the package's own
   * folder for `<ws>/node_modules/<name>/…`, or the node_modules folder itself (and a scope folder in it)
   * when some workspace package lives there. Null for any other path.
   */
  private linkedPath(p: string): string | null {
    const marker = `${path.sep}node_modules`;
    if (!p.includes(marker)) return null;
    for (const ws of this.workspaceList()) {
      const modules = ws.dir + marker;
      if (p === modules) return ws.dir;
      if (!p.startsWith(modules + path.sep)) continue;
      const parts = p.slice(modules.length + 1).split(path.sep);
      const scoped = parts[0].startsWith('@');
      const name = scoped ? parts.slice(0, 2).join('/') : parts[0];
      const dir = ws.packages.get(name);
      if (dir) return path.join(dir, ...parts.slice(scoped ? 2 : 1));
      if (scoped && parts.length === 1 && [...ws.packages.keys()].some((n) => n.startsWith(`${parts[0]}/`))) return ws.dir;
    }
    return null;
  }

  private isLinked(p: string, test: (real: string) => boolean): boolean {
    const target = this.linkedPath(p);
    return target !== null && test(target);
  }

  /** Forget cached file-system answers (after files are added or removed). */
  reset(): void {
    this.fileExists.clear();
    this.dirExists.clear();
    this.listings.clear();
    this.configs.clear();
    this.alike.clear();
    this.subpathConfigs.clear();
    this.extended.clear();
    this.configForDir.clear();
    this.memberForDir.clear();
    this.rawConfigs.clear();
    this.answers.clear();
    this.modulesScopes.clear();
    this.packageScopes.clear();
    this.exportingPackages.clear();
    this.formats.clear();
    this.modes.clear();
    this.workspaces = null;
  }

  /**
   * What an import of `kind` (as parse-typescript.ts names it; `import` when not known) in a file resolves to.
   * The kind and the file's format decide the resolution mode, as in the compiler: under node16/nodenext (and
   * bundler's `exports`), an `import` in an ES module and an `import()` pick package.json `exports`' `import`
   * condition, a `require()` and an import in a CommonJS file its `require` one (payload's `@tools/constants`
   * exports `import` only: its ES modules' imports of it resolved to nothing). A type-only import's
   * `with { 'resolution-mode': 'require' }` (`mode`, parse-typescript.ts) overrides both, as in the compiler.
   */
  resolve(fromRelPath: string, written: string, kind: ImportKind = 'import', mode?: ResolutionModeName): Resolution {
    const specifier = this.bundlerSpecifier(fromRelPath, withoutViteQuery(written));
    const found = this.probedAnswer(this.compilerAnswer(fromRelPath, specifier, kind, mode && attributeMode(mode)));
    const answer = found.targetPath === null ? this.bundlerAnswer(fromRelPath, specifier, found) : found;
    // Where the compiler only probed extensions (a relative path, an `imports` entry), the declaration's own
    // JavaScript is what runs; a package's `exports` may name a different file per condition.
    const probed = isRelative(specifier) || specifier.startsWith('#');
    return probed && !DECLARATION_FILE.test(fromRelPath) ? this.withRuntimeFile(answer) : answer;
  }

  /** A root-absolute import in a Vite project (`/vite.svg`), as a path relative to the importing file (vite-imports.ts). */
  private bundlerSpecifier(fromRelPath: string, specifier: string): string {
    const dir = path.join(this.root, path.dirname(fromRelPath));
    const file = viteRootPath(specifier, dir, this.root, (p) => this.listings.isFile(p));
    if (file === null) return specifier;
    const rel = path.relative(dir, file).split(path.sep).join('/');
    return rel.startsWith('.') ? rel : `./${rel}`;
  }

  /**
   * What a bundler finds where the compiler found nothing: the file a relative import names as written, whatever its
   * extension (`./a.txt?raw`, `./data.yaml` through a plugin); a SvelteKit module (`$app/…`, `$env/…`) is the kit's.
   */
  private bundlerAnswer(fromRelPath: string, specifier: string, answer: Resolution): Resolution {
    if (isKitModule(specifier)) return { targetPath: null, packageName: '@sveltejs/kit' };
    if (!isRelative(specifier)) return answer;
    const file = path.resolve(this.root, path.dirname(fromRelPath), specifier);
    const rel = path.relative(this.root, file);
    if (!this.listings.isFile(file) || rel.split(path.sep).includes('node_modules')) return answer;
    return { targetPath: rel.split(path.sep).join('/'), packageName: null };
  }

  /**
   * A declaration file written beside the JavaScript it describes (`x.d.ts` beside `x.js`, `.d.mts` beside `.mjs`,
   * `.d.cts` beside `.cjs`) is what the compiler picks, but `x.js` is what runs: react-native-windows' Flow
   * sources import `../StyleSheet/StyleSheet` 650 times that way, and StyleSheet.js had none of them as
   * dependents. The runtime file is the target and the declaration a type-only one (`typeTargets`). A
   * declaration file's own imports stay declarations.
   */
  private withRuntimeFile(answer: Resolution): Resolution {
    const declaration = answer.targetPath;
    const match = declaration === null ? null : DECLARATION_FILE.exec(declaration);
    if (!declaration || !match) return answer;
    const runtime = `${declaration.slice(0, match.index)}.${match[1]}js`;
    if (!this.host.fileExists(path.join(this.root, runtime))) return answer;
    return { targetPath: runtime, packageName: null, typeTargets: [declaration] };
  }

  /** A component or stylesheet the compiler found as `X.vue.ts`, `X.css.ts` (`host.fileExists`) is the file `X.vue`, `X.css`. */
  private probedAnswer(answer: Resolution): Resolution {
    const target = answer.targetPath;
    if (!target || !PROBED_MODULE.test(target) || this.listings.isFile(path.join(this.root, target))) return answer;
    return { ...answer, targetPath: target.slice(0, -3) };
  }

  /** What the compiler resolves an import to (`resolve`, before a declaration gives way to its runtime file). */
  private compilerAnswer(fromRelPath: string, specifier: string, kind: ImportKind, override?: ts.ResolutionMode): Resolution {
    const containing = path.join(this.root, fromRelPath);
    const bare = !isRelative(specifier);
    if (bare && (BUILTINS.has(specifier) || specifier.startsWith('node:'))) {
      return { targetPath: null, packageName: specifier.startsWith('node:') ? specifier : `node:${specifier}` };
    }
    const dir = path.dirname(containing);
    const config = this.configFor(dir);
    if (bare && !readsImportsField(config.options) && (specifier.startsWith('#') || this.isSelfReference(dir, specifier))) {
      // A subpath import (package.json `imports`) and a package's import of itself by name (through its
      // `exports`) resolve as Node does, whatever the config: its default resolution (node10) ignores both
      // fields, and left chalk's `#ansi-styles` and zod's own tests' `zod/v4` unknown packages. Where that
      // finds nothing in the repository (exports naming a build not made), the config's own answer stands.
      const node = this.subpathImportsConfig(config);
      const answer = this.answer(containing, dir, specifier, node, override ?? this.modeOf(containing, dir, kind, node));
      if (answer.targetPath !== null) return answer;
    }
    const mode = override ?? this.modeOf(containing, dir, kind, config);
    const answer = this.answer(containing, dir, specifier, config, mode);
    // An ES module's import without its extension, relative (`./utils` in a `"type": "module"` package's spec
    // files, payload: 29) or through a `paths` alias (`@core/util`), is an error to the compiler, yet the test
    // runners and bundlers that run such files find it: the file it names, as a CommonJS import would, stays the target.
    if (answer.targetPath === null && mode === ts.ModuleKind.ESNext) {
      const file = this.answer(containing, dir, specifier, config, undefined);
      if (file.targetPath !== null) return file;
    }
    return answer;
  }

  /**
   * The resolution mode the compiler gives an import of `kind` in this file under these options
   * (`ts.getModeForUsageLocation`), asked once per config, kind and file format on a one-import source file.
   */
  private modeOf(containing: string, dir: string, kind: ImportKind, config: ResolutionConfig): ts.ResolutionMode {
    const format = this.formatOf(containing, dir, config);
    const usage = kind === 'require' || kind === 'dynamic' || kind === 'export' || kind === 'export-all' ? kind : 'import';
    const key = `${config.id}\0${usage}\0${format.key}`;
    if (this.modes.has(key)) return this.modes.get(key);
    const sf = ts.createSourceFile(containing, USAGES[usage], { languageVersion: ts.ScriptTarget.Latest, impliedNodeFormat: format.implied }, true);
    (sf as { packageJsonScope?: unknown }).packageJsonScope = format.scope;
    const statement = sf.statements[0];
    const literal = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)
      ? statement.moduleSpecifier
      : ((statement as ts.ExpressionStatement).expression as ts.CallExpression).arguments[0];
    const mode = ts.getModeForUsageLocation(sf, literal as ts.StringLiteral, config.options);
    this.modes.set(key, mode);
    return mode;
  }

  /** The format the compiler implies for a file (its extension, its package.json `type`), with what decides it. */
  private formatOf(containing: string, dir: string, config: ResolutionConfig): ImpliedFormat {
    const base = path.basename(containing);
    const ext = /\.d\.[mc]?ts$/.test(base) ? base.slice(base.lastIndexOf('.d.')) : path.extname(base);
    const key = `${config.id}\0${dir}\0${ext}`;
    let format = this.formats.get(key);
    if (!format) {
      const worker = (ts as unknown as { getImpliedNodeFormatForFileWorker?: ImpliedFormatWorker }).getImpliedNodeFormatForFileWorker;
      const cache = config.cache.getPackageJsonInfoCache();
      const found = worker ? worker(containing, cache, this.host, config.options) : ts.getImpliedNodeFormatForFile(containing, cache, this.host, config.options);
      const implied = typeof found === 'object' ? found?.impliedNodeFormat : found;
      const scope = typeof found === 'object' ? found?.packageJsonScope : undefined;
      const type = (scope as { contents?: { packageJsonContent?: { type?: unknown } } } | undefined)?.contents?.packageJsonContent?.type;
      format = { implied, scope, key: `${ext}\0${implied}\0${typeof type === 'string' ? type : ''}` };
      this.formats.set(key, format);
    }
    return format;
  }

  private answer(containing: string, dir: string, specifier: string, config: ResolutionConfig, mode: ts.ResolutionMode): Resolution {
    const bare = !isRelative(specifier);
    const key = this.answerKey(config, dir, specifier, bare);
    const modeKey = key === null || mode === undefined ? key : `${key}\0${mode}`;
    const known = modeKey === null ? undefined : this.answers.get(modeKey);
    if (known) return known;
    const answer = this.resolveWithCompiler(containing, specifier, bare, config, mode);
    if (modeKey !== null) this.answers.set(modeKey, answer);
    return answer;
  }

  /** Whether a bare specifier names the package that holds `dir` (its nearest package.json, which has `exports`). */
  private isSelfReference(dir: string, specifier: string): boolean {
    const scope = this.nearest(this.packageScopes, dir, (d) => this.host.fileExists(path.join(d, 'package.json')));
    if (!scope) return false;
    let name = this.exportingPackages.get(scope);
    if (name === undefined) {
      name = null;
      try {
        const json = JSON.parse(this.host.readFile(path.join(scope, 'package.json')) ?? '{}') as { name?: unknown; exports?: unknown };
        if (typeof json.name === 'string' && json.exports !== undefined && json.exports !== null) name = json.name;
      } catch {
        // not JSON: no name to refer to
      }
      this.exportingPackages.set(scope, name);
    }
    return name !== null && packageNameOf(specifier) === name;
  }

  /** The config as node16 resolution reads it (package.json `imports` and `exports` honoured), one per config. */
  private subpathImportsConfig(config: ResolutionConfig): ResolutionConfig {
    let entry = this.subpathConfigs.get(config);
    if (!entry) {
      const options: ts.CompilerOptions = { ...config.options, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext };
      entry = { id: `${config.id}#`, options, cache: ts.createModuleResolutionCache(this.root, (s) => s, options) };
      this.subpathConfigs.set(config, entry);
    }
    return entry;
  }

  private resolveWithCompiler(containing: string, specifier: string, bare: boolean, config: ResolutionConfig, mode?: ts.ResolutionMode): Resolution {
    const resolution = ts.resolveModuleName(specifier, containing, config.options, this.host, config.cache, undefined, mode);
    forgetLookups(resolution);
    const result = resolution.resolvedModule;
    const targetPath = result ? this.sourcePath(result.resolvedFileName) : null;
    if (targetPath !== null) return { targetPath, packageName: null };
    // `#name` is the package's own subpath import, never another package's name.
    if (bare && !specifier.startsWith('#')) return { targetPath: null, packageName: packageNameOf(specifier) };
    return { targetPath: null, packageName: null };
  }

  /**
   * What decides an answer besides the compiler options, so files in different folders share it (payload:
   * 29,716 imports, 20,851 distinct by folder; the compiler's own cache is by folder). Besides the resolution
   * mode (added to the key by `answer`), a relative specifier's answer depends only on the path it names (and
   * whether it names a folder only). A bare one depends on the chain of node_modules folders the compiler walks up
   * through, which the nearest folder holding a node_modules (real or linked) decides, and on the nearest
   * package.json (self-references by package name, `#imports`). Null (ask the compiler) for classic
   * resolution, which walks folders for bare names, and inside node_modules, where the compiler skips folders.
   */
  private answerKey(config: ResolutionConfig, dir: string, specifier: string, bare: boolean): string | null {
    if (`${dir}${path.sep}`.includes(`${path.sep}node_modules${path.sep}`)) return null;
    // `./lib/`, `.` and `..` name a folder only (the compiler adds a separator); `./lib` a file first.
    if (!bare) return `${config.id}\0${path.resolve(dir, specifier)}${/(^|\/)\.{0,2}$/.test(specifier) ? '/' : ''}`;
    if (config.options.moduleResolution === ts.ModuleResolutionKind.Classic) return null;
    return `${config.id}\0${this.nearest(this.modulesScopes, dir, (d) => this.host.directoryExists!(path.join(d, 'node_modules')))}` +
      `\0${this.nearest(this.packageScopes, dir, (d) => this.host.fileExists(path.join(d, 'package.json')))}\0${specifier}`;
  }

  /** The nearest of `dir` and its ancestors that passes `test` ('' for none), remembered for every folder on the way. */
  private nearest(memo: Map<string, string>, dir: string, test: (dir: string) => boolean): string {
    const walked: string[] = [];
    let found: string | undefined;
    for (let d = dir; found === undefined; ) {
      found = memo.get(d);
      if (found !== undefined) break;
      walked.push(d);
      if (!within(this.root, d)) { found = ''; break; }
      if (test(d)) { found = d; break; }
      const parent = path.dirname(d);
      if (parent === d) found = '';
      d = parent;
    }
    for (const d of walked) memo.set(d, found);
    return found;
  }

  /** A `/// <reference path>`: a path relative to the containing file, extension optional, as the compiler reads it. */
  resolveReferencePath(fromRelPath: string, reference: string): string | null {
    const base = path.resolve(this.root, path.dirname(fromRelPath), reference);
    for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}.d.ts`]) {
      if (!this.host.fileExists(candidate)) continue;
      const rel = path.relative(this.root, candidate);
      if (!rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
    }
    return null;
  }

  /**
   * A `/// <reference types>` (`node`, `vite/client`): a package of types, found as the compiler finds it (the
   * type roots, `node_modules/@types`, first; then node_modules). A folder of the repository counts as its file;
   * found in node_modules, the package is the one it was found in (`node` → `@types/node`). Not installed (a fresh
   * clone), it is `@types/<name>` where a package.json on the way up declares that, else the name's own package.
   */
  resolveTypeReference(fromRelPath: string, name: string): Resolution {
    const containing = path.join(this.root, fromRelPath);
    const dir = path.dirname(containing);
    const found = ts.resolveTypeReferenceDirective(name, containing, this.configFor(dir).options, this.host).resolvedTypeReferenceDirective;
    if (found?.resolvedFileName) {
      const targetPath = this.sourcePath(found.resolvedFileName);
      if (targetPath !== null) return { targetPath, packageName: null };
      if (found.packageId?.name) return { targetPath: null, packageName: found.packageId.name };
    }
    if (isRelative(name)) return { targetPath: null, packageName: null };
    const own = packageNameOf(name);
    const types = `@types/${own.startsWith('@') ? own.slice(1).replace('/', '__') : own}`;
    return { targetPath: null, packageName: this.declaredAbove(dir, types) ? types : own };
  }

  /**
   * The repository path of a file the compiler resolved to, or null outside the sources. A package found through
   * node_modules counts when its real path is a source of this repository: a workspace package, linked by an install
   * or by linkedPath().
   */
  private sourcePath(resolvedFileName: string): string | null {
    const resolved = this.linkedPath(path.resolve(resolvedFileName)) ?? path.resolve(resolvedFileName);
    const rel = path.relative(this.root, resolved);
    if (rel.startsWith('..') || path.isAbsolute(rel) || rel.split(path.sep).includes('node_modules')) return null;
    return rel.split(path.sep).join('/');
  }

  /** Whether a package.json in `dir` or a folder above it (inside the repository) declares the package. */
  private declaredAbove(dir: string, name: string): boolean {
    for (let d = dir; within(this.root, d); d = path.dirname(d)) {
      const text = this.host.readFile(path.join(d, 'package.json'));
      if (text !== undefined && declares(text, name)) return true;
      if (d === path.dirname(d)) break; // a repository at the file system's root
    }
    return false;
  }

  private configFor(dir: string): ResolutionConfig {
    const file = this.configFileFor(dir);
    let entry = this.configs.get(file);
    if (!entry) {
      const options = file ? this.readConfig(file) : {};
      options.allowJs = true;
      options.resolveJsonModule = true;
      if (options.moduleResolution === undefined) {
        options.moduleResolution = ts.ModuleResolutionKind.Node10;
      }
      const resolvesAs = JSON.stringify(RESOLUTION_OPTIONS().map((name) => options[name] ?? null));
      entry = this.alike.get(resolvesAs);
      if (!entry) {
        entry = { id: String(this.alike.size), options, cache: ts.createModuleResolutionCache(this.root, (s) => s, options) };
        this.alike.set(resolvesAs, entry);
      }
      this.configs.set(file, entry);
    }
    return entry;
  }

  /** The nearest config, or where it is a solution (`"files": []`, `references`), the referenced one that includes the folder. */
  private configFileFor(dir: string): string {
    let file = this.memberForDir.get(dir);
    if (file === undefined) {
      const nearest = this.findConfigFile(dir);
      file = (nearest && solutionMember(nearest, dir, (f) => this.rawConfig(f), (p) => this.listings.isDir(p))) || nearest;
      this.memberForDir.set(dir, file);
    }
    return file;
  }

  /** A config file's JSON as written, read once; null outside the repository or unreadable. */
  private rawConfig(file: string): RawConfig {
    let raw = this.rawConfigs.get(file);
    if (raw === undefined) {
      const read = within(this.root, file) && this.listings.isFile(file) ? ts.readConfigFile(file, (f) => fs.readFileSync(f, 'utf8')) : null;
      raw = read && !read.error ? (read.config as RawConfig) : null;
      this.rawConfigs.set(file, raw);
    }
    return raw;
  }

  private findConfigFile(dir: string): string {
    const cached = this.configForDir.get(dir);
    if (cached !== undefined) return cached;
    let found = '';
    for (const name of ['tsconfig.json', 'jsconfig.json']) {
      const candidate = path.join(dir, name);
      if (this.listings.isFile(candidate)) { found = candidate; break; }
    }
    if (!found) {
      const parent = path.dirname(dir);
      const insideRoot = dir !== this.root && !path.relative(this.root, parent).startsWith('..');
      found = insideRoot ? this.findConfigFile(parent) : '';
    }
    this.configForDir.set(dir, found);
    return found;
  }

  private readConfig(file: string): ts.CompilerOptions {
    const isFile = (p: string) => this.listings.isFile(p);
    const read = ts.readConfigFile(file, (f) => (isFile(f) ? fs.readFileSync(f, 'utf8') : undefined));
    if (read.error) return {};
    // A SvelteKit app's tsconfig.json extends `.svelte-kit/tsconfig.json` (or its `kit.outDir`'s), which a fresh clone lacks: what
    // `svelte-kit sync` would write stands in for it (sveltekit-config.ts).
    const generated = (f: string) => (within(this.root, path.resolve(f))
      ? generatedKitConfig(f, this.root, isFile, (p) => this.listings.isDir(p), (p) => fs.readFileSync(p, 'utf8'))
      : null);
    const parsed = ts.parseJsonConfigFileContent(read.config, {
      useCaseSensitiveFileNames: true,
      readDirectory: () => [],
      fileExists: (f) => isFile(f) || generated(f) !== null,
      readFile: (f) => (isFile(f) ? fs.readFileSync(f, 'utf8') : generated(f) ?? undefined),
    }, path.dirname(file), undefined, file, undefined, undefined, this.extended);
    return parsed.options;
  }
}

/** Whether a resolution reads package.json `imports` (node16, nodenext, bundler); node10 and classic do not. */
function readsImportsField(options: ts.CompilerOptions): boolean {
  const kind = options.moduleResolution;
  return kind === ts.ModuleResolutionKind.Node16 || kind === ts.ModuleResolutionKind.NodeNext || kind === ts.ModuleResolutionKind.Bundler;
}

/** The values of a `resolution-mode` import attribute, as the compiler's resolution modes. */
export type ResolutionModeName = 'import' | 'require';
/** Read on use, not when this module loads: the bundles load the compiler on first use, and the server's main thread never does. */
const attributeMode = (name: ResolutionModeName): ts.ResolutionMode => (name === 'import' ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS);

/** One import of each kind, as the compiler sees it: its mode is asked of it (`modeOf`). */
const USAGES = { import: 'import "m";', export: 'export { m } from "m";', 'export-all': 'export * from "m";', require: 'require("m");', dynamic: 'import("m");' };

/** A file's implied format, the package.json scope it came from, and a key naming both. */
interface ImpliedFormat {
  implied: ts.ResolutionMode;
  scope: unknown;
  key: string;
}

type ImpliedFormatWorker = (fileName: string, cache: ts.PackageJsonInfoCache, host: ts.ModuleResolutionHost, options: ts.CompilerOptions) =>
  ts.ResolutionMode | { impliedNodeFormat: ts.ResolutionMode; packageJsonScope?: unknown } | undefined;

interface ResolutionConfig {
  /** Names the options' way of resolving in answer keys. */
  id: string;
  options: ts.CompilerOptions;
  cache: ts.ModuleResolutionCache;
}

/**
 * The options that decide how a specifier resolves: the compiler's own list (what makes it redo resolution
 * when they change), the base folder `paths` are read against, and a few more that take part in resolution.
 * Two configs alike in these give the same answers, so they share an entry and its cache. Read on first
 * use: the bundles load the compiler lazily, and a thread that never resolves must not load it.
 */
let resolutionOptions: string[] | null = null;
const RESOLUTION_OPTIONS = (): string[] => (resolutionOptions ??= [...new Set([
  ...((ts as unknown as { moduleResolutionOptionDeclarations?: { name: string }[] }).moduleResolutionOptionDeclarations ?? []).map((o) => o.name),
  // Also named here should that internal list go: a name twice counts once.
  'pathsBasePath', 'baseUrl', 'paths', 'rootDirs', 'moduleResolution', 'module', 'allowJs', 'resolveJsonModule', 'noDtsResolution',
  'preserveSymlinks', 'allowImportingTsExtensions', 'allowArbitraryExtensions', 'customConditions', 'moduleSuffixes', 'typeRoots', 'types',
])]);

type Kind = 'file' | 'dir' | 'other';

/**
 * Whether paths are files or folders, answered from each folder's listing, read once: resolution
 * probes many candidates per import (extensions, index files, package.json, node_modules folders),
 * most of which do not exist, and a stat per candidate (an exception built for each missing one) was
 * a large part of a parse worker's time. A symbolic link is followed with a stat. `clear()` forgets
 * (files were added or removed).
 *
 * Nothing outside the repository is read: a path outside its folder is missing (the compiler's walk up
 * for node_modules stops at the root, a tsconfig.json's `extends` out of it is not read), and so is a
 * path whose real location is outside (a symbolic link out, or a folder reached through one).
 */
class Listings {
  private readonly folders = new Map<string, Map<string, Kind | 'link'> | null>();
  /** Where each symbolic link leads (its kind), once followed. */
  private readonly links = new Map<string, Kind | null>();
  /** Folders under the root by whether their real location is under the root's. */
  private readonly reached = new Map<string, boolean>();
  private realRoot: string | null = null;

  constructor(private readonly root: string) {}

  isFile(p: string): boolean {
    return this.kind(p) === 'file';
  }

  isDir(p: string): boolean {
    return this.kind(p) === 'dir';
  }

  clear(): void {
    this.folders.clear();
    this.links.clear();
    this.reached.clear();
    this.realRoot = null;
  }

  private kind(p: string): Kind | null {
    const full = path.resolve(p);
    if (full === this.root) return 'dir';
    if (!within(this.root, full)) return null;
    const kind = this.listing(path.dirname(full))?.get(path.basename(full));
    if (kind !== 'link') return kind ?? null;
    let followed = this.links.get(full);
    if (followed === undefined) this.links.set(full, (followed = this.realInside(full) ? statKind(full) : 'other'));
    return followed;
  }

  /** A folder's entries as listed (links not followed); null when it is missing or lies outside. */
  private listing(dir: string): Map<string, Kind | 'link'> | null {
    let listing = this.folders.get(dir);
    if (listing === undefined) this.folders.set(dir, (listing = this.reachable(dir) ? list(dir) : null));
    return listing;
  }

  /**
   * Whether a folder under the root really is under it: every folder on the way down is a plain folder in its
   * parent's listing (no path lookup needed), or a link whose real location is under the root's.
   */
  private reachable(dir: string): boolean {
    if (dir === this.root) return true;
    let known = this.reached.get(dir);
    if (known === undefined) {
      const entry = this.listing(path.dirname(dir))?.get(path.basename(dir));
      known = entry === 'dir' || (entry === 'link' && this.realInside(dir));
      this.reached.set(dir, known);
    }
    return known;
  }

  /** Whether the real location of a path under the root (links followed) is under the root's. */
  private realInside(p: string): boolean {
    this.realRoot ??= safeRealpath(this.root) ?? this.root;
    const real = safeRealpath(p);
    return real !== null && within(this.realRoot, real);
  }
}

/** Whether a package.json's text declares `name` in any of its dependency lists (false when it does not parse). */
function declares(packageJson: string, name: string): boolean {
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(packageJson) as Record<string, unknown>;
  } catch {
    return false;
  }
  return ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'].some((field) => {
    const list = manifest?.[field];
    return typeof list === 'object' && list !== null && Object.hasOwn(list, name);
  });
}

/** Whether `p` is `root` or under it (both absolute and normalised, as `path.resolve` and realpath leave them). */
function within(root: string, p: string): boolean {
  return p === root || (p.startsWith(root) && (p[root.length] === path.sep || root.endsWith(path.sep)));
}

function safeRealpath(p: string): string | null {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return null;
  }
}

function list(dir: string): Map<string, Kind | 'link'> | null {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
  const out = new Map<string, Kind | 'link'>();
  for (const e of entries) out.set(e.name, e.isSymbolicLink() ? 'link' : e.isFile() ? 'file' : e.isDirectory() ? 'dir' : 'other');
  return out;
}

function statKind(p: string): Kind | null {
  try {
    const stat = fs.statSync(p, { throwIfNoEntry: false });
    return !stat ? null : stat.isFile() ? 'file' : stat.isDirectory() ? 'dir' : 'other';
  } catch {
    return null;
  }
}

/**
 * The resolution cache keeps each answer as the compiler made it, with every path it probed
 * (`failedLookupLocations`, `affectingLocations`: what a watching compiler re-checks). Nothing here watches,
 * and on payload they were most of a parse worker's heap (~20 MB of node_modules probes, more as joined
 * strings, growing with every file): the answer is kept, the list of probes let go.
 */
function forgetLookups(resolution: ts.ResolvedModuleWithFailedLookupLocations): void {
  const r = resolution as { failedLookupLocations?: unknown; affectingLocations?: unknown };
  if (r.failedLookupLocations) r.failedLookupLocations = undefined;
  if (r.affectingLocations) r.affectingLocations = undefined;
}
