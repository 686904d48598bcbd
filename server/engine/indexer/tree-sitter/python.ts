import type { Node } from '@vscode/tree-sitter-wasm';
import type { LanguageSpec, RawImport } from './language';
import { resolvedTo, unresolved } from './language';
import { ancestors, dirOf, joinRel, type RepoFiles } from './repo-files';
import { cleanDocstring, firstParagraph, startLineOf, type SourceText } from './source';

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
const dunderAll = new WeakMap<SourceText, Set<string> | null>();

function publicNames(root: Node, source: SourceText): Set<string> | null {
  let names = dunderAll.get(source);
  if (names === undefined) {
    names = null;
    for (const statement of root.namedChildren) {
      const assignment = statement?.type === 'expression_statement' ? statement.namedChildren[0] : null;
      if (assignment?.type !== 'assignment' || assignment.childForFieldName('left')?.text !== '__all__') continue;
      const list = assignment.childForFieldName('right');
      if (list && (list.type === 'list' || list.type === 'tuple')) {
        names = new Set(list.namedChildren.filter((c) => c?.type === 'string').map((c) => c!.text.slice(1, -1)));
      }
    }
    dunderAll.set(source, names);
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

/** `if TYPE_CHECKING:` imports exist only for the type checker. */
function underTypeChecking(node: Node): boolean {
  for (let up = node.parent; up; up = up.parent) {
    if (up.type === 'if_statement' && /\bTYPE_CHECKING\b/.test(up.childForFieldName('condition')?.text ?? '')) return true;
  }
  return false;
}

function importedName(node: Node): string {
  return node.type === 'aliased_import' ? node.childForFieldName('name')?.text ?? node.text : node.text;
}

/** `a.b.c` → a/b/c.py, a/b/c.pyi or a/b/c/__init__.py under base; no parts → base/__init__.py. */
function moduleFile(base: string, parts: string[], files: RepoFiles): string | null {
  if (parts.length === 0) return files.firstFile([joinRel(base, '__init__.py')]);
  const stem = joinRel(base, ...parts);
  if (stem === null) return null;
  return files.firstFile([`${stem}.py`, `${stem}.pyi`, joinRel(stem, '__init__.py')]);
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
    return [{ specifier: module, kind: 'import', names, typeOnly, line }];
  },
  expand(fromPath, imp, files): RawImport[] {
    if (imp.names.includes('*') || imp.names.length === 0) return [imp];
    // `from pkg import mod`: each name that is a submodule is an edge to that module's file.
    const joiner = /^\.+$/.test(imp.specifier) ? '' : '.';
    const submodules: RawImport[] = [];
    const rest: string[] = [];
    for (const name of imp.names) {
      const specifier = `${imp.specifier}${joiner}${name}`;
      if (python.resolve(fromPath, specifier, imp.kind, files).targetPath) submodules.push({ ...imp, specifier, names: [name] });
      else rest.push(name);
    }
    return rest.length ? [{ ...imp, names: rest }, ...submodules] : submodules;
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
  resolve(fromPath, specifier, _kind, files) {
    const dots = /^\.*/.exec(specifier)![0].length;
    const parts = specifier.slice(dots).split('.').filter(Boolean);
    if (dots > 0) {
      let base = dirOf(fromPath);
      for (let up = 1; up < dots; up++) {
        if (base === '') return unresolved(null);
        base = dirOf(base);
      }
      const target = moduleFile(base, parts, files);
      return target ? resolvedTo(target) : unresolved(null);
    }
    // Absolute imports: the importing file's folder and each folder above it, plain or with a src/ layout.
    for (const dir of ancestors(dirOf(fromPath))) {
      for (const root of [dir, joinRel(dir, 'src')]) {
        if (root === null) continue;
        const target = moduleFile(root, parts, files);
        if (target) return resolvedTo(target);
      }
    }
    return unresolved(parts[0] ?? specifier);
  },
};
