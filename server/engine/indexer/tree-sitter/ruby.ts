import type { Node } from '@vscode/tree-sitter-wasm';
import type { LanguageSpec, RawImport } from './language';
import { resolvedTo, unresolved } from './language';
import { ancestors, dirOf, joinRel, type RepoFiles } from './repo-files';
import { startLineOf, stringValue } from './source';

const definitions = `
(class name: (_) @name) @def.class
(module name: (_) @name) @def.module
(method name: (_) @name) @def.function
(singleton_method name: (_) @name) @def.function
(assignment left: (constant) @name) @def.constant
`;

const imports = `
(call
  method: (identifier) @method
  arguments: (argument_list)
  (#match? @method "^(require|require_relative|load|autoload)$")) @import
`;

const VISIBILITY = /^(private|protected|public)$/;

/** Ruby visibility is set by `private` on its own line, `private def x`, or `private :x` anywhere in the body. */
function isPublicMethod(node: Node): boolean {
  const wrapper = node.parent?.type === 'argument_list' ? node.parent.parent : null;
  if (wrapper?.type === 'call') return wrapper.childForFieldName('method')?.text === 'public';
  if (node.type === 'singleton_method') return true;
  const name = node.childForFieldName('name')?.text;
  for (const sibling of node.parent?.namedChildren ?? []) {
    if (sibling?.type !== 'call' || !VISIBILITY.test(sibling.childForFieldName('method')?.text ?? '')) continue;
    const args = sibling.childForFieldName('arguments')?.namedChildren ?? [];
    if (args.some((a) => a?.type === 'simple_symbol' && a.text.slice(1) === name)) return sibling.childForFieldName('method')!.text === 'public';
  }
  let visibility = 'public';
  for (let prev = node.previousNamedSibling; prev; prev = prev.previousNamedSibling) {
    if (prev.type === 'identifier' && VISIBILITY.test(prev.text)) { visibility = prev.text; break; }
  }
  return visibility === 'public';
}

/** `BasicItemRepView` → `basic_item_rep_view`, `HTTPServer` → `http_server`, `VERSION` → `version` (Zeitwerk's file names). */
const underscore = (name: string) =>
  name.replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2').replace(/([a-z\d])([A-Z])/g, '$1_$2').toLowerCase();

/**
 * Zeitwerk's autoload roots for a file: the lib/ folder of its gem when some file of that lib/ sets up a
 * `Zeitwerk::Loader`; the app/* folders of a Rails application (config/application.rb). Empty otherwise.
 */
function autoloadRoots(fromPath: string, files: RepoFiles): string[] {
  for (const dir of ancestors(dirOf(fromPath))) {
    if (files.isFile(joinRel(dir, 'config', 'application.rb'))) {
      return files.memo(`ruby:rails:${dir}`, () => {
        const app = joinRel(dir, 'app')!;
        const roots = files.filesBelow(app, '.rb', new Set()).map((f) => f.split('/').slice(0, app.split('/').filter(Boolean).length + 1).join('/'));
        return [...new Set(roots)].filter((r) => files.isDir(r));
      });
    }
    const lib = joinRel(dir, 'lib');
    if (!files.isDir(lib)) continue;
    return files.memo(`ruby:zeitwerk:${lib}`, () =>
      files.filesBelow(lib!, '.rb', new Set()).some((f) => /Zeitwerk::Loader\b/.test(files.read(f) ?? '')) ? [lib!] : []);
  }
  return [];
}

/** The file Zeitwerk loads a constant path from (`Nanoc::Core::View` → nanoc/core/view.rb), or null. */
function constantFile(constant: string, roots: string[], files: RepoFiles): string | null {
  const rel = `${constant.split('::').filter(Boolean).map(underscore).join('/')}.rb`;
  return files.firstFile(roots.map((r) => joinRel(r, rel)));
}

/** The constant paths the module and class definitions around a node open (`module A; class B` → [A::B, A]). */
function nesting(node: Node): string[] {
  const names: string[] = [];
  for (let up = node.parent; up; up = up.parent) {
    if (up.type === 'class' || up.type === 'module') names.unshift(up.childForFieldName('name')?.text.replace(/^::/, '') ?? '');
  }
  const out: string[] = [];
  for (let i = names.length; i > 0; i--) out.push(names.slice(0, i).join('::'));
  return out;
}

/**
 * Ruby's constant lookup under Zeitwerk: a constant path written in the code (`View`, `Core::View`,
 * `::Nanoc::Core::View`) is tried inside each enclosing namespace, innermost first, then at the top; the
 * first candidate whose file exists under an autoload root (the path itself, or a namespace it starts
 * with, never shorter than what is written) is the file that defines it.
 */
function references(root: Node, _imports: RawImport[], fromPath: string, files: RepoFiles): RawImport[] {
  const roots = autoloadRoots(fromPath, files);
  if (!roots.length) return [];
  const out = new Map<string, RawImport>();
  for (const node of root.descendantsOfType(['constant', 'scope_resolution'])) {
    if (!node || node.parent?.type === 'scope_resolution') continue; // only the outermost part of A::B::C
    if ((node.parent?.type === 'class' || node.parent?.type === 'module') && node.parent.childForFieldName('name')?.id === node.id) continue;
    const written = node.text.replace(/\s+/g, '');
    if (!/^(::)?[A-Z]\w*(::[A-Z]\w*)*$/.test(written)) continue;
    const absolute = written.startsWith('::');
    const parts = written.replace(/^::/, '').split('::');
    const prefixes = absolute ? [''] : [...nesting(node), ''];
    let found: string | null = null;
    let namespaceOnly = false;
    for (const prefix of prefixes) {
      for (let k = parts.length; k >= 1 && !found && !namespaceOnly; k--) {
        const constant = [prefix, ...parts.slice(0, k)].filter(Boolean).join('::');
        if (constantFile(constant, roots, files)) found = constant;
        // A folder with no file of its name is an implicit namespace (Zeitwerk defines the module): no file to depend on.
        else if (roots.some((r) => files.isDir(joinRel(r, ...constant.split('::').map(underscore))))) namespaceOnly = true;
      }
      if (found || namespaceOnly) break;
    }
    if (found && !out.has(found) && constantFile(found, roots, files) !== fromPath) {
      out.set(found, { specifier: found, kind: 'reference', names: [found.split('::').pop()!], typeOnly: false, line: startLineOf(node) });
    }
  }
  return [...out.values()];
}

const interpolated = (node: Node) => node.namedChildren.some((c) => c?.type === 'interpolation');
const literal = (node: Node | null | undefined): string | null => (node?.type === 'string' && !interpolated(node) ? stringValue(node) : null);
const isFileClass = (node: Node | null) => node?.text.replace(/^::/, '') === 'File';

/** `__dir__` or `File.dirname(__FILE__)`: the folder of the file the code is in. */
function isOwnFolder(node: Node | null | undefined): boolean {
  if (!node) return false;
  if (node.text === '__dir__') return true;
  if (node.type !== 'call' || !isFileClass(node.childForFieldName('receiver')) || node.childForFieldName('method')?.text !== 'dirname') return false;
  const args = node.childForFieldName('arguments')?.namedChildren ?? [];
  return args.length === 1 && args[0]?.text === '__FILE__';
}

/**
 * The path a `File.expand_path("x", __dir__)`, `File.expand_path("../x", __FILE__)` or `File.join(__dir__, "x")`
 * argument names, written relative to the file's folder like a `require_relative` ("x"; from `__FILE__`, "../x"
 * is the file's folder and x), or null when the path is not built from the file's own place out of literals.
 */
function besideFile(node: Node): string | null {
  if (node.type !== 'call' || !isFileClass(node.childForFieldName('receiver'))) return null;
  const method = node.childForFieldName('method')?.text;
  const args = node.childForFieldName('arguments')?.namedChildren ?? [];
  let rel: string | null = null;
  if (method === 'expand_path' && args.length === 2) {
    const written = literal(args[0]);
    if (written !== null && isOwnFolder(args[1])) rel = written;
    else if (written?.startsWith('../') && args[1]?.text === '__FILE__') rel = written.slice(3);
  } else if (method === 'join' && args.length >= 2 && isOwnFolder(args[0])) {
    const parts = args.slice(1).map(literal);
    if (parts.every((p) => p !== null)) rel = parts.join('/');
  }
  return rel && !/^\.*\/?$/.test(rel) ? rel : null;
}

/**
 * The folders a gem in `dir` puts on the load path: the `require_paths` its .gemspec assigns as literals
 * (`s.require_paths = ["lib/concurrent-ruby".freeze]`, `%w[lib ext]`), else lib/, RubyGems' default.
 */
function requirePaths(dir: string, files: RepoFiles): string[] {
  return files.memo(`ruby:require-paths:${dir}`, () => {
    for (const name of files.list(dir)) {
      if (!name.endsWith('.gemspec')) continue;
      const value = /\.require_paths\s*=\s*(\[[^\]]*\]|%[wW]\s*(?:\[[^\]]*\]|\([^)]*\)))/.exec(files.read(joinRel(dir, name)!) ?? '')?.[1];
      if (!value) continue;
      // Each element a plain string literal (`.freeze` allowed); one built at run time (`"lib/#{name}"`) is left out.
      const paths = value.startsWith('%')
        ? value.replace(/^%[wW]\s*./, '').slice(0, -1).trim().split(/\s+/).filter((p) => !p.includes('#{'))
        : value.slice(1, -1).split(',').map((e) => /^\s*(["'])([^"'#]*)\1(?:\.freeze)?\s*$/.exec(e)?.[2] ?? '');
      const inside = paths.filter((p) => p && joinRel(p) !== null);
      if (inside.length) return inside;
    }
    return ['lib'];
  });
}

export const ruby: LanguageSpec = {
  grammar: 'ruby',
  comments: '(comment) @comment',
  definitions,
  imports,
  importsOf(match): RawImport[] {
    const call = match.captures.find((c) => c.name === 'import')!.node;
    if (call.childForFieldName('receiver')) return [];
    const method = call.childForFieldName('method')!.text;
    const args = call.childForFieldName('arguments')?.namedChildren ?? [];
    const path = args.find((a) => a?.type === 'string');
    // A path built from the file's own place (`File.expand_path("x", __dir__)`) is one beside it, as with require_relative.
    const built = path ? null : args.map((a) => (a ? besideFile(a) : null)).find((p) => p !== null) ?? null;
    // Interpolated paths, and others computed, are only known at run time.
    if (built === null && (!path || interpolated(path))) return [];
    const constant = method === 'autoload' ? args.find((a) => a?.type === 'simple_symbol')?.text.slice(1) : undefined;
    return [{
      specifier: built ?? stringValue(path!),
      kind: method === 'require_relative' || built !== null ? 'require-relative' : 'require',
      names: constant ? [constant] : [],
      typeOnly: false,
      line: startLineOf(call),
    }];
  },
  memberContainers: new Set(['class', 'module']),
  isExported: (def) => (def.kind === 'method' || def.kind === 'function' ? isPublicMethod(def.node) : true),
  description: (root, source) => source.leadingDescription(root),
  references,
  resolve(fromPath, specifier, kind, files) {
    if (kind === 'reference') {
      const target = constantFile(specifier, autoloadRoots(fromPath, files), files);
      return target ? resolvedTo(target) : unresolved(null);
    }
    const file = specifier.endsWith('.rb') ? specifier : `${specifier}.rb`;
    if (specifier.startsWith('/')) return unresolved(null);
    if (kind === 'require-relative' || specifier.startsWith('.')) {
      const target = files.firstFile([joinRel(dirOf(fromPath), file)]);
      return target ? resolvedTo(target) : unresolved(null);
    }
    // The load path: the require paths (lib/) of the projects (gems) above the file, nearest first, then the repository root.
    const target = files.firstFile([...ancestors(dirOf(fromPath)).flatMap((d) => requirePaths(d, files).map((p) => joinRel(d, p, file))), joinRel('', file)]);
    return target ? resolvedTo(target) : unresolved(specifier.split('/')[0]);
  },
};
