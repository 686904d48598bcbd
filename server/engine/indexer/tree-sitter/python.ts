import type { Node } from '@vscode/tree-sitter-wasm';
import type { LanguageSpec, ParseText, RawImport } from './language';
import { resolvedTo, unresolved } from './language';
import { findSpec, resolveModule, type AbsoluteName } from './python-modules';
import type { RepoFiles } from './repo-files';
import { cleanDocstring, firstParagraph, startLineOf, stringValue, type SourceText } from './source';

const definitions = `
(class_definition name: (identifier) @name) @def.class
(function_definition name: (identifier) @name) @def.function
(module (expression_statement (assignment left: (identifier) @name) @def.variable))
(class_definition body: (block (expression_statement (assignment left: (identifier) @name) @def.property)))
`;

const imports = `
(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import
`;

/** Names listed in a module's `__all__`, which decide what the module exports when present. */
const dunderAllCache = new WeakMap<SourceText, string[] | null>();

function publicNames(root: Node, source: SourceText): Set<string> | null {
  let names = dunderAllCache.get(source);
  if (names === undefined) dunderAllCache.set(source, (names = dunderAll(root)));
  return names ? new Set(names) : null;
}

/** String literals of list and tuple displays in `expr` (through `+`); other operands add nothing. */
function literalNames(expr: Node | null, out: string[]): void {
  if (!expr) return;
  if (expr.type === 'binary_operator' && expr.childForFieldName('operator')?.type === '+') {
    literalNames(expr.childForFieldName('left'), out);
    literalNames(expr.childForFieldName('right'), out);
  } else if (expr.type === 'list' || expr.type === 'tuple' || expr.type === 'parenthesized_expression') {
    for (const c of expr.namedChildren) {
      if (c?.type === 'string' && !c.namedChildren.some((p) => p?.type === 'interpolation')) out.push(stringValue(c));
      else if (c?.type === 'parenthesized_expression' || c?.type === 'tuple' || c?.type === 'list') literalNames(c, out);
    }
  }
}

/**
 * A module's `__all__` read statically from its top-level statements: `__all__ = [...]` (or a tuple, or a
 * sum of them), `__all__ += [...]`, `__all__.extend([...])`, `__all__.append('x')`; null when it has none.
 */
export function dunderAll(root: Node): string[] | null {
  let names: string[] | null = null;
  for (const statement of root.namedChildren) {
    const expr = statement?.type === 'expression_statement' ? statement.namedChildren[0] : null;
    if (!expr) continue;
    if ((expr.type === 'assignment' || expr.type === 'augmented_assignment') && expr.childForFieldName('left')?.text === '__all__') {
      const value = expr.childForFieldName('right');
      if (!value) continue;
      if (expr.type === 'assignment') names = [];
      literalNames(value, (names ??= []));
    } else if (expr.type === 'call') {
      const fn = expr.childForFieldName('function');
      const method = fn?.type === 'attribute' && fn.childForFieldName('object')?.text === '__all__' ? fn.childForFieldName('attribute')?.text : null;
      const arg = expr.childForFieldName('arguments')?.namedChildren[0] ?? null;
      if (method === 'extend') literalNames(arg, (names ??= []));
      else if (method === 'append' && arg?.type === 'string') (names ??= []).push(stringValue(arg));
    }
  }
  return names;
}

const isPublicName = (name: string) => !name.startsWith('_') || (name.startsWith('__') && name.endsWith('__'));

function docstringOf(node: Node): string | null {
  if (node.type !== 'function_definition' && node.type !== 'class_definition') return null;
  const first = node.childForFieldName('body')?.namedChildren[0];
  const literal = first?.type === 'expression_statement' ? first.namedChildren[0] : null;
  return literal?.type === 'string' ? cleanDocstring(literal.text) : null;
}

const TYPE_CHECKING = /^(?:[A-Za-z_]\w*\.)*TYPE_CHECKING$/;

/**
 * Imports in the body of `if TYPE_CHECKING:` (or `typing.TYPE_CHECKING`, `elif TYPE_CHECKING:`) exist only for
 * the type checker; its `else` branch runs.
 */
function underTypeChecking(node: Node): boolean {
  for (let child = node, up = node.parent; up; child = up, up = up.parent) {
    if ((up.type === 'if_statement' || up.type === 'elif_clause') && TYPE_CHECKING.test(up.childForFieldName('condition')?.text.trim() ?? '')
      && up.childForFieldName('consequence')?.id === child.id) return true;
  }
  return false;
}

/** Inside a `def` or `class` body: the statement binds local names (runs when called), not module attributes. */
function nested(node: Node): boolean {
  for (let up = node.parent; up; up = up.parent) if (up.type === 'function_definition' || up.type === 'class_definition') return true;
  return false;
}

/** A package's `__init__.py` (or its stub): what its module-level `from X import n` binds is the package's API. */
const isPackageInit = (path: string) => /(?:^|\/)__init__\.pyi?$/.test(path);

function importedName(node: Node): string {
  return node.type === 'aliased_import' ? node.childForFieldName('name')?.text ?? node.text : node.text;
}

export const python: LanguageSpec = {
  grammar: 'python',
  comments: '(comment) @comment',
  definitions,
  imports,
  importsOf(match): RawImport[] {
    const node = match.captures[0].node;
    const line = startLineOf(node);
    const typeOnly = underTypeChecking(node);
    if (node.type === 'import_statement') {
      return node.childrenForFieldName('name').filter((n) => n !== null)
        .map((n) => ({ specifier: importedName(n), kind: 'import', names: ['*'], typeOnly, line }));
    }
    const module = node.type === 'future_import_statement' ? '__future__' : node.childForFieldName('module_name')?.text ?? '';
    const names = node.namedChildren.some((c) => c?.type === 'wildcard_import')
      ? ['*']
      : node.childrenForFieldName('name').filter((n) => n !== null).map(importedName);
    return [{ specifier: module, kind: 'import', names, typeOnly, line, from: true, nested: nested(node) }];
  },
  /**
   * One row per module the statement imports, as Python 3 runs it: `import a.b.c` imports `a`, `a.b` and
   * `a.b.c`; `from X import n` imports X's packages, X, and `X.n` when n is a submodule; `from X import *`
   * the submodules X's `__all__` names. A stub (`.pyi`) is never run: its imports are type-only. In a package's
   * `__init__.py` a module-level `from X import n` re-exports n (`from django.http import HttpRequest` reaches
   * http/request.py's class through http/__init__.py): kind `export` (`export-all` for `*`), as a barrel's. A
   * submodule it imports (`from django import forms`) stays `import`: the package holds the module, not its names.
   */
  expand(fromPath, imp, files, parse): RawImport[] {
    const { from, nested: _nested, ...statement } = imp;
    const reexports = from === true && !imp.nested && isPackageInit(fromPath);
    const row = { ...statement, typeOnly: imp.typeOnly || fromPath.endsWith('.pyi') };
    if (reexports) row.kind = imp.names.includes('*') ? 'export-all' : 'export';
    const resolved = resolveModule(fromPath, imp.specifier, files);
    const rows: RawImport[] = [];
    // The packages Python imports on the way: all but the statement's own module, or, when a part is missing
    // (`import docutils.utils.roman` without roman.py), every one found before it: Python imports them, then fails.
    const complete = resolved.chain.length === resolved.name?.parts.length;
    (complete ? resolved.chain.slice(0, -1) : resolved.chain).forEach((spec, k) => {
      if (spec.file && spec.file !== fromPath) rows.push({ ...row, kind: 'import', specifier: parentSpecifier(imp.specifier, resolved.name!, k), names: [] });
    });
    const last = complete ? resolved.chain[resolved.chain.length - 1] : null;
    if (!from || !last?.locations) return [...rows, row];
    let wanted = imp.names;
    if (wanted.includes('*')) wanted = (last.file && /__init__\.py$/.test(last.file) ? staticAll(last.file, files, parse) : null) ?? [];
    const joiner = /^\.+$/.test(imp.specifier) ? '' : '.';
    const submodules: RawImport[] = [];
    const attributes: string[] = [];
    for (const name of wanted) {
      const file = findSpec(name, last.locations, files)?.file;
      if (!file) attributes.push(name);
      else if (file !== fromPath) submodules.push({ ...row, kind: 'import', specifier: `${imp.specifier}${joiner}${name}`, names: [name] });
    }
    const names = imp.names.includes('*') ? ['*'] : attributes;
    return [...rows, { ...row, kind: names.length ? row.kind : 'import', names }, ...submodules];
  },
  refineKind: (_node, kind, name) => (kind === 'variable' && /^[A-Z][A-Z0-9_]*$/.test(name) ? 'constant' : kind),
  rangeOf: (node) => {
    const outer = node.parent?.type === 'decorated_definition' ? node.parent : node;
    return { first: outer, last: outer };
  },
  innerDoc: docstringOf,
  isExported(def, source) {
    if (def.container) return isPublicName(def.name);
    const listed = publicNames(def.node.tree.rootNode, source);
    return listed ? listed.has(def.name) : isPublicName(def.name);
  },
  description(root, source) {
    const first = root.namedChildren.find((c) => c && c.type !== 'comment');
    const literal = first?.type === 'expression_statement' ? first.namedChildren[0] : null;
    const doc = literal?.type === 'string' ? cleanDocstring(literal.text) : null;
    return doc ? firstParagraph(doc) : source.leadingDescription(root);
  },
  /**
   * A stub beside the module (`x.pyi` by `x.py`, `__init__.pyi` in a package; PEP 561) is what mypy and pyright
   * read for it: a type-only edge to the stub besides the one to the code that runs. Not for the module itself
   * (`from . import x` in a package's __init__.py, or in its __init__.pyi): a checker reads the stub instead of
   * the code, never both, so neither depends on the other.
   */
  resolve(fromPath, specifier, _kind, files) {
    const resolved = resolveModule(fromPath, specifier, files);
    if (!resolved.file) return unresolved(resolved.packageName);
    if (fromPath === `${resolved.file}i`) return resolvedTo(fromPath);
    const stub = resolved.file.endsWith('.py') && resolved.file !== fromPath ? `${resolved.file}i` : null;
    return stub && stub !== fromPath && files.isFile(stub) ? { ...resolvedTo(resolved.file), typeTargets: [stub] } : resolvedTo(resolved.file);
  },
};

/**
 * How the statement's `k`-th enclosing module is written so that resolving it again finds the same file:
 * `a.b` for an absolute name; for a relative one, dots alone up to the base package, then the base's dots
 * and the parts after it (`..`, `.`, `.sub` for `.sub.mod` in package `pkg.inner`).
 */
function parentSpecifier(specifier: string, name: AbsoluteName, k: number): string {
  if (!name.relative) return name.parts.slice(0, k + 1).join('.');
  const dots = /^\.*/.exec(specifier)![0].length;
  const rest = specifier.slice(dots).split('.').filter(Boolean);
  const baseLength = name.parts.length - rest.length;
  if (k + 1 <= baseLength) return '.'.repeat(dots + baseLength - (k + 1));
  return `${'.'.repeat(dots)}${rest.slice(0, k + 1 - baseLength).join('.')}`;
}

const allCache = new WeakMap<RepoFiles, Map<string, { text: string; names: string[] | null }>>();

/** The static `__all__` of a package's `__init__.py`, parsed once per content. */
function staticAll(file: string, files: RepoFiles, parse: ParseText | undefined): string[] | null {
  const text = files.read(file);
  if (text === null || !parse) return null;
  let cache = allCache.get(files);
  if (!cache) allCache.set(files, (cache = new Map()));
  const hit = cache.get(file);
  if (hit?.text === text) return hit.names;
  const names = parse(text, dunderAll);
  cache.set(file, { text, names });
  return names;
}
