import type { Node } from '@vscode/tree-sitter-wasm';
import { parse as parseToml } from 'smol-toml';
import type { LanguageSpec, RawImport } from './language';
import { resolvedTo, unresolved } from './language';
import { ancestors, dirOf, joinRel, type RepoFiles } from './repo-files';
import { implTypeName } from './rust-impls';
import { parseOpeningItemMacros } from './rust-macros';
import { fromInline, inlineModules, writtenPaths } from './rust-paths';
import { startLineOf } from './source';

const definitions = `
(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.function
(struct_item name: (type_identifier) @name) @def.struct
(union_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(trait_item name: (type_identifier) @name) @def.trait
(type_item name: (type_identifier) @name) @def.type
(mod_item name: (identifier) @name body: (declaration_list)) @def.module
(const_item name: (identifier) @name) @def.constant
(static_item name: (identifier) @name) @def.variable
(macro_definition name: (identifier) @name) @def.function
(impl_item) @def.scope
`;

const imports = `
(use_declaration argument: (_) @argument) @import
(mod_item !body name: (identifier) @name) @import
(extern_crate_declaration name: (identifier) @name) @import
`;

/** `use a::b::{c, d::e as f, g::*}` → [a::b, c], [a::b::d, e], [a::b::g, *]. */
function usePaths(node: Node, prefix: string, out: [string, string][]): void {
  const join = (p: string) => (prefix ? `${prefix}::${p}` : p);
  switch (node.type) {
    case 'scoped_use_list': {
      const path = node.childForFieldName('path')?.text;
      const list = node.childForFieldName('list');
      if (list) usePaths(list, path ? join(path) : prefix, out);
      return;
    }
    case 'use_list':
      for (const child of node.namedChildren) if (child && !child.type.includes('comment')) usePaths(child, prefix, out);
      return;
    case 'use_as_clause': {
      const path = node.childForFieldName('path');
      if (path) usePaths(path, prefix, out);
      return;
    }
    case 'use_wildcard': {
      const path = node.namedChildren[0]?.text;
      out.push([path ? join(path) : prefix, '*']);
      return;
    }
    default: {
      const full = join(node.text.replace(/\s+/g, ''));
      const cut = full.lastIndexOf('::');
      out.push(cut < 0 ? [full, '*'] : [full.slice(0, cut), full.slice(cut + 2)]);
    }
  }
}

const OWN_FOLDER_NAMES = new Set(['lib.rs', 'main.rs', 'mod.rs']);
const CRATE_ROOT_DIRS = /(^|\/)(src\/bin|examples|tests|benches)$/;

const baseName = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);

/**
 * A folder whose every file is a crate of its own (Cargo's targets): tests/, benches/, examples/, src/bin/ of a
 * package, not a module folder that happens to be named so (tokio's src/runtime/tests/, whose files are
 * modules of the crate). Without any Cargo.toml above, the name decides.
 */
function isTargetDir(dir: string, files: RepoFiles): boolean {
  const m = CRATE_ROOT_DIRS.exec(dir);
  if (!m) return false;
  const top = dir.slice(0, m.index);
  return files.isFile(joinRel(top, 'Cargo.toml')) || manifestDirOf(dir + '/x.rs', files) === null;
}

/** The folder where a file's own submodules live: beside lib.rs/main.rs/mod.rs, else in a folder named after the file. */
function moduleDir(fromPath: string, files: RepoFiles): string | null {
  const name = baseName(fromPath);
  const dir = dirOf(fromPath);
  if (OWN_FOLDER_NAMES.has(name) || isTargetDir(dir, files) || fromPath === 'build.rs') return dir;
  return joinRel(dir, name.replace(/\.rs$/, ''));
}

/** `name` declared as a module of the module whose submodules live in dir: dir/name.rs or dir/name/mod.rs. */
const moduleFile = (dir: string, name: string, files: RepoFiles) =>
  files.firstFile([joinRel(dir, `${name}.rs`), joinRel(dir, name, 'mod.rs')]);

/** The crate's source folder and root file, from the nearest Cargo.toml (else the nearest lib.rs/main.rs). */
function crateOf(fromPath: string, files: RepoFiles): { dir: string; file: string | null } | null {
  if (isTargetDir(dirOf(fromPath), files)) return { dir: dirOf(fromPath), file: fromPath };
  const preferMain = baseName(fromPath) === 'main.rs';
  const rootFile = (dir: string) => files.firstFile(preferMain
    ? [joinRel(dir, 'main.rs'), joinRel(dir, 'lib.rs')]
    : [joinRel(dir, 'lib.rs'), joinRel(dir, 'main.rs')]);
  for (const dir of ancestors(dirOf(fromPath))) {
    if (files.isFile(joinRel(dir, 'Cargo.toml'))) {
      const src = joinRel(dir, 'src') ?? dir;
      return { dir: src, file: rootFile(src) };
    }
  }
  for (const dir of ancestors(dirOf(fromPath))) {
    const file = rootFile(dir);
    if (file) return { dir, file };
  }
  return null;
}

/** The file of the module whose submodules live in dir (the crate root, dir.rs or dir/mod.rs). */
function fileOfModuleDir(dir: string, crate: { dir: string; file: string | null } | null, files: RepoFiles): string | null {
  if (crate && dir === crate.dir) return crate.file;
  return files.firstFile([`${dir}.rs`, joinRel(dir, 'mod.rs')]);
}

/**
 * The file of the deepest module a path names, and how many of its segments name modules (the crate, `self`,
 * `super`, a crate's name and the modules under it): `crate::hir::Hir::empty` → hir/mod.rs, 2.
 */
function walkPath(fromPath: string, segments: string[], files: RepoFiles): { file: string | null; used: number; packageName: string | null } {
  const none = (packageName: string | null = null) => ({ file: null, used: 0, packageName });
  const own = moduleDir(fromPath, files);
  if (own === null || segments.length === 0) return none();
  const crate = crateOf(fromPath, files);
  let dir: string;
  let file: string | null;
  let used: number;
  if (segments[0] === 'crate') {
    if (!crate) return none();
    [dir, file, used] = [crate.dir, crate.file, 1];
  } else if (segments[0] === 'self' || segments[0] === 'super') {
    let i = segments[0] === 'self' ? 1 : 0;
    dir = own;
    for (; segments[i] === 'super'; i++) {
      if (dir === '') return none();
      dir = dirOf(dir);
    }
    [file, used] = [dir === own ? fromPath : fileOfModuleDir(dir, crate, files), i];
  } else if (moduleFile(own, segments[0], files)) {
    // 2018-edition paths may start with a module declared in this module.
    [dir, file, used] = [own, null, 0];
  } else {
    // Another crate of the repository, taken as a path dependency: its lib.rs, then its modules.
    const manifestDir = manifestDirOf(fromPath, files);
    const depDir = manifestDir === null ? undefined : crateInfo(manifestDir, files).dependencies.get(segments[0]);
    const dep = depDir === undefined ? null : crateInfo(depDir, files);
    if (!dep?.lib) return none(segments[0]);
    [dir, file, used] = [dirOf(dep.lib), dep.lib, 1];
  }
  for (; used < segments.length; used++) {
    const next = moduleFile(dir, segments[used], files);
    if (next) {
      file = next;
      dir = joinRel(dir, segments[used]) ?? dir;
      continue;
    }
    // An inline module (`mod bsd { mod poll_aio; }` in io/mod.rs) has no file; the modules it declares live in
    // its folder (io/bsd/poll_aio.rs).
    const inlineDir = used + 1 < segments.length ? joinRel(dir, segments[used]) : null;
    const inner = inlineDir === null ? null : moduleFile(inlineDir, segments[used + 1], files);
    if (!inner) break;
    file = inner;
    dir = joinRel(inlineDir!, segments[++used]) ?? dir;
  }
  return { file, used, packageName: null };
}

function resolveUse(fromPath: string, specifier: string, files: RepoFiles) {
  const { file, packageName } = walkPath(fromPath, specifier.split('::').filter(Boolean), files);
  return file ? resolvedTo(file) : unresolved(packageName);
}

function pathAttribute(mod: Node): string | null {
  for (let prev = mod.previousNamedSibling; prev?.type === 'attribute_item'; prev = prev.previousNamedSibling) {
    const m = /^#\[\s*path\s*=\s*"([^"]+)"\s*\]$/.exec(prev.text.replace(/\s+/g, ' '));
    if (m) return m[1];
  }
  return null;
}

interface CrateInfo { dir: string; lib: string | null; dependencies: Map<string, string> }

/**
 * A crate's manifest: its source root file (`[lib] path`, else src/lib.rs) and the dependencies it takes
 * from a local path (`foo = { path = "../foo" }`, or `foo.workspace = true` with the workspace's
 * `[workspace.dependencies] foo = { path = … }`), by the name code uses (`-` → `_`).
 */
function crateInfo(manifestDir: string, files: RepoFiles): CrateInfo {
  return files.memo(`rust:crate:${manifestDir}`, () => {
    const manifest = readToml(joinRel(manifestDir, 'Cargo.toml'), files);
    const libPath = (manifest.lib as { path?: string } | undefined)?.path;
    const lib = files.firstFile([libPath ? joinRel(manifestDir, libPath) : null, joinRel(manifestDir, 'src', 'lib.rs')]);
    const dependencies = new Map<string, string>();
    const workspace = workspaceDependencies(manifestDir, files);
    const targets = Object.values((manifest.target ?? {}) as Record<string, Record<string, unknown>>);
    const tables = [manifest.dependencies, manifest['dev-dependencies'], manifest['build-dependencies'],
      ...targets.flatMap((t) => [t.dependencies, t['dev-dependencies']])];
    for (const table of tables) {
      for (const [key, value] of Object.entries((table ?? {}) as Record<string, unknown>)) {
        if (!value || typeof value !== 'object') continue;
        const spec = value as { path?: unknown; workspace?: unknown };
        const dir = typeof spec.path === 'string' ? joinRel(manifestDir, spec.path) : spec.workspace === true ? workspace.get(key) ?? null : null;
        if (dir !== null) dependencies.set(key.replace(/-/g, '_'), dir);
      }
    }
    return { dir: manifestDir, lib, dependencies };
  });
}

/** `[workspace.dependencies]` with a path, from the nearest Cargo.toml above that has a `[workspace]`. */
function workspaceDependencies(crateDir: string, files: RepoFiles): Map<string, string> {
  const out = new Map<string, string>();
  for (const dir of ancestors(crateDir)) {
    const manifest = readToml(joinRel(dir, 'Cargo.toml'), files);
    const ws = manifest.workspace as { dependencies?: Record<string, unknown> } | undefined;
    if (!ws) continue;
    for (const [key, value] of Object.entries(ws.dependencies ?? {})) {
      const path = (value as { path?: unknown } | null)?.path;
      const target = typeof path === 'string' ? joinRel(dir, path) : null;
      if (target !== null) out.set(key, target);
    }
    break;
  }
  return out;
}

function readToml(rel: string | null, files: RepoFiles): Record<string, unknown> {
  const text = rel ? files.read(rel) : null;
  if (!text) return {};
  try { return parseToml(text) as Record<string, unknown>; } catch { return {}; }
}

/** The folder of the Cargo.toml a file belongs to, or null. */
function manifestDirOf(fromPath: string, files: RepoFiles): string | null {
  return ancestors(dirOf(fromPath)).find((d) => files.isFile(joinRel(d, 'Cargo.toml'))) ?? null;
}

/** `#[test]`, and the test attributes of async runtimes and test crates (`#[tokio::test]`, `#[test_case::test]`). */
const TEST_ATTRIBUTE = /#\[\s*(?:\w+\s*::\s*)*test\s*[\](]/;
const TEST_ITEM = new RegExp(`^${TEST_ATTRIBUTE.source}`);
const CFG_TEST = /^#\[\s*cfg\s*\(\s*test\s*\)\s*\]$/;

/**
 * A `#[test]` function anywhere in the file (in its `#[cfg(test)] mod tests { … }`, or the file is such a module),
 * or a `#[cfg(test)]` module whose macros write them (regex-syntax's hir/literal: `macro_rules! test_lit { … #[test] fn $name() … }`).
 */
function holdsTests(root: Node): boolean {
  for (const node of root.descendantsOfType('attribute_item')) {
    if (!node) continue;
    const text = node.text.replace(/\s+/g, ' ');
    const test = TEST_ITEM.test(text);
    if (!test && !CFG_TEST.test(text)) continue;
    let item = node.nextNamedSibling;
    while (item && (item.type === 'attribute_item' || item.type.endsWith('comment'))) item = item.nextNamedSibling;
    if (test && item?.type === 'function_item') return true;
    if (!test && item?.type === 'mod_item' && TEST_ATTRIBUTE.test(item.childForFieldName('body')?.text ?? '')) return true;
  }
  return false;
}

/** `#[cfg(test)]` or `#[cfg(all(test, …))]` (also as an inner `#![…]`): compiled only for the crate's tests. */
function cfgTest(attribute: string): boolean {
  const m = /^#!?\[cfg\((.*)\)\]$/.exec(attribute.replace(/\s+/g, ''));
  if (!m) return false;
  if (m[1] === 'test') return true;
  const all = /^all\((.*)\)$/.exec(m[1]);
  if (!all) return false;
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= all[1].length; i++) {
    const c = all[1][i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if ((c === ',' || c === undefined) && depth === 0) { terms.push(all[1].slice(start, i)); start = i + 1; }
  }
  return terms.includes('test');
}

/**
 * A node written in test code: inside an item marked `#[cfg(test)]` (the `mod tests { … }` of a source file, a
 * `#[cfg(test)] use …`) or a `#[test]` function, or in a module whose `#![cfg(test)]` says so.
 */
function inTestCode(node: Node): boolean {
  for (let at: Node | null = node; at; at = at.parent) {
    for (let prev = at.previousNamedSibling; prev && (prev.type === 'attribute_item' || prev.type.endsWith('comment')); prev = prev.previousNamedSibling) {
      if (prev.type === 'attribute_item' && (TEST_ITEM.test(prev.text) || cfgTest(prev.text))) return true;
    }
    if ((at.type === 'source_file' || at.type === 'declaration_list')
      && at.namedChildren.some((c) => c?.type === 'inner_attribute_item' && cfgTest(c.text))) return true;
  }
  return false;
}

/**
 * Paths written outside `use` lines (`crate::hir::Hir::empty()`, `impl super::Foo for …`, `$crate::x` in a
 * macro) resolve as `use` paths do: an edge to the file of the deepest module named, for the item after it
 * (kind `reference`, or `test-use` in test code). A path that names no module of the repository
 * (`std::mem::swap`, `Self::new`, a local type's `Kind::A`), or only the file itself, is none.
 */
function pathReferences(root: Node, imports: RawImport[], fromPath: string, files: RepoFiles): RawImport[] {
  const own = moduleDir(fromPath, files);
  if (own === null) return [];
  const out = new Map<string, RawImport>();
  // A bare first segment is a module this file declares at its top level (`mod unicode;` …
  // `unicode::is_word_character(c)`), or a crate of the repository; any other is not (`fs::read` after
  // `use std::fs`, a file beside an integration test, `task::Schedule` in an inline module that imports `task`).
  const declared = new Set(imports.filter((i) => i.kind === 'import' && !i.specifier.includes('::')).map((i) => i.specifier));
  const crates = new Map<string, boolean>();
  const isCrate = (first: string) => {
    let yes = crates.get(first);
    if (yes === undefined) crates.set(first, (yes = !moduleFile(own, first, files) && walkPath(fromPath, [first], files).file !== null));
    return yes;
  };
  const startsModule = (first: string, node: Node) =>
    /^[a-z_]/.test(first) && ((declared.has(first) && !inlineModules(node).length) || isCrate(first));
  for (const { node, segments: written, line } of writtenPaths(root)) {
    const first = written[0];
    const relative = first === 'self' || first === 'super';
    if (!relative && first !== 'crate' && !startsModule(first, node)) continue;
    const segments = relative ? fromInline(written.join('::'), inlineModules(node)).split('::') : written;
    // The last segment names an item (a type, function, constant), never a module: `crate::task::yield_now()`
    // is task's function, though task also has a module yield_now.
    const { file, used } = walkPath(fromPath, segments.slice(0, -1), files);
    if (!file || file === fromPath || used === 0) continue;
    const specifier = segments.slice(0, used).join('::');
    const kind = inTestCode(node) ? 'test-use' : 'reference';
    const name = segments[used];
    const key = `${kind}\0${specifier}`;
    const seen = out.get(key);
    if (!seen) out.set(key, { specifier, kind, names: [name], typeOnly: false, line });
    else if (!seen.names.includes(name)) seen.names.push(name);
  }
  return [...out.values()];
}

/** The modules (`mod x;`) declared in the inline module around a node. */
function ownModules(node: Node): Set<string> {
  let body = node.parent;
  while (body && !(body.type === 'declaration_list' && body.parent?.type === 'mod_item')) body = body.parent;
  const names = (body?.namedChildren ?? []).filter((c) => c?.type === 'mod_item' && !c.childForFieldName('body'));
  return new Set(names.map((c) => c!.childForFieldName('name')!.text));
}

function isPub(node: Node): boolean {
  return node.namedChildren.some((c) => c?.type === 'visibility_modifier');
}

export const rust: LanguageSpec = {
  grammar: 'rust',
  comments: '[(line_comment) (block_comment)] @comment',
  definitions,
  // An impl (no `@name`) is named by its self type: `impl Read for &'a Pipe` → Pipe, `for &[u8]` → [u8] (rust-impls.ts).
  nameOf: (node) => (node.type === 'impl_item' ? [{ name: implTypeName(node.childForFieldName('type')) ?? '' }] : null),
  imports,
  importsOf(match): RawImport[] {
    const node = match.captures[0].node;
    const line = startLineOf(node);
    if (node.type === 'mod_item') {
      // `#[path = "windows/sys.rs"] mod imp;` names the file itself, relative to the declaring file's folder.
      const path = pathAttribute(node);
      if (path !== null) return [{ specifier: path, kind: 'include', names: [node.childForFieldName('name')!.text], typeOnly: false, line }];
      // Inside `mod a { mod b; }` the file is a/b.rs: the specifier holds the inline modules (`a::b`).
      return [{ specifier: [...inlineModules(node), node.childForFieldName('name')!.text].join('::'), kind: 'import', names: [], typeOnly: false, line }];
    }
    // A `use` in test code is the file's own dependency, not one its users take on (kind `test-use`).
    const test = inTestCode(node);
    if (node.type === 'extern_crate_declaration') return [{ specifier: node.childForFieldName('name')!.text, kind: test ? 'test-use' : 'use', names: ['*'], typeOnly: false, line }];
    const pairs: [string, string][] = [];
    const argument = node.childForFieldName('argument');
    if (argument) usePaths(argument, '', pairs);
    // `use super::*` inside `mod tests { … }` is the file's own module: paths are taken from the file's top level.
    const inline = inlineModules(node);
    const own = inline.length ? ownModules(node) : null;
    const grouped = new Map<string, string[]>();
    for (const [written, name] of pairs) {
      // `mod bsd { mod poll_aio; pub use poll_aio::Aio; }`: a module the inline module declares, `self::bsd::poll_aio`.
      const first = written.split('::')[0];
      const path = own?.has(first) ? ['self', ...inline, written].join('::') : fromInline(written, inline);
      grouped.set(path, [...(grouped.get(path) ?? []), name]);
    }
    // `pub use` re-exports, like TypeScript's `export { x } from`.
    const kind = test ? 'test-use' : isPub(node) ? 'export' : 'use';
    return [...grouped].map(([specifier, names]) => ({ specifier, kind, names, typeOnly: false, line }));
  },
  // `use a::b::{c, d}` is one import of a::b, unless c is itself a module (a::b::c.rs): then c is imported
  // from its own file.
  expand(fromPath, imp, files) {
    if (imp.kind !== 'use' && imp.kind !== 'export' && imp.kind !== 'test-use') return [imp];
    const base = resolveUse(fromPath, imp.specifier, files).targetPath;
    const grouped: string[] = [];
    const modules: RawImport[] = [];
    for (const name of imp.names) {
      const specifier = `${imp.specifier}::${name}`;
      const target = name === '*' || name === 'self' ? null : resolveUse(fromPath, specifier, files).targetPath;
      if (target && target !== base) modules.push({ ...imp, specifier, names: [name] });
      else grouped.push(name);
    }
    return [...(grouped.length ? [{ ...imp, names: grouped }] : []), ...modules];
  },
  // Item macros such as tokio's `cfg_fs! { pub mod fs; }` expand to the items they hold: those whose body
  // parses as items are read in place (symbols, `mod` and `use` lines, paths, as any item's).
  parseFile: parseOpeningItemMacros,
  // The `mod` and `use` declarations of the others (a body the grammar cannot read as items alone) still count.
  embedded(root) {
    const out: { text: string; row: number }[] = [];
    for (const node of root.namedChildren) {
      if (node?.type !== 'macro_invocation') continue;
      const tokens = node.namedChildren.find((c) => c?.type === 'token_tree');
      if (!tokens || !/\b(mod|use)\s/.test(tokens.text)) continue;
      out.push({ text: tokens.text.slice(1, -1), row: tokens.startPosition.row });
    }
    return out;
  },
  // Attributes (`#[derive(...)]`) belong to the item below them, as decorators do in Python.
  rangeOf(node) {
    let first = node;
    for (let prev = node.previousNamedSibling; prev?.type === 'attribute_item'; prev = prev.previousNamedSibling) first = prev;
    return { first, last: node };
  },
  refineKind: (node, kind) => (kind === 'variable' && !node.namedChildren.some((c) => c?.type === 'mutable_specifier') ? 'constant' : kind),
  isExported(def) {
    if (isPub(def.node)) return true;
    const owner = def.container?.node;
    // Trait items and trait impls are as visible as the trait; `pub` is not even allowed there.
    if (owner?.type === 'trait_item') return isPub(owner);
    return owner?.type === 'impl_item' && owner.childForFieldName('trait') !== null;
  },
  references: (root, imports, fromPath, files) => pathReferences(root, imports, fromPath, files),
  description: (root, source) => source.leadingDescription(root),
  holdsTests,
  resolve(fromPath, specifier, kind, files) {
    if (kind === 'include') {
      const target = files.firstFile([joinRel(dirOf(fromPath), specifier)]);
      return target ? resolvedTo(target) : unresolved(null);
    }
    if (kind === 'import') {
      const own = moduleDir(fromPath, files);
      const names = specifier.split('::');
      const dir = own === null ? null : joinRel(own, ...names.slice(0, -1));
      const target = dir === null ? null : moduleFile(dir, names[names.length - 1], files);
      return target ? resolvedTo(target) : unresolved(null);
    }
    return resolveUse(fromPath, specifier, files);
  },
};
