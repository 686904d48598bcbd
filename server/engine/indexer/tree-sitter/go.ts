import type { Node } from '@vscode/tree-sitter-wasm';
import type { LanguageSpec, RawImport } from './language';
import { resolvedTo, unresolved } from './language';
import { goPackage } from './go-modules';
import { packageNames } from './go-names';
import type { RepoFiles } from './repo-files';
import { startLineOf, stringValue } from './source';

const receiverType = '[(type_identifier) @parent (pointer_type (type_identifier) @parent) (generic_type type: (type_identifier) @parent) (pointer_type (generic_type type: (type_identifier) @parent))]';

// Const and var names are matched without their `name:` field, which would match only the first of `a, b = 1, 2`.
const definitions = `
(function_declaration name: (identifier) @name) @def.function
(method_declaration receiver: (parameter_list (parameter_declaration type: ${receiverType})) name: (field_identifier) @name) @def.method
(type_spec name: (type_identifier) @name type: (struct_type)) @def.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @def.interface
(type_spec name: (type_identifier) @name) @def.type
(type_alias name: (type_identifier) @name) @def.type
(method_elem name: (field_identifier) @name) @def.method
(source_file (const_declaration (const_spec (identifier) @name) @def.constant))
(source_file (var_declaration (var_spec (identifier) @name) @def.variable))
(source_file (var_declaration (var_spec_list (var_spec (identifier) @name) @def.variable)))
`;

/** A spec alone in its declaration (`const X = 1`) covers the declaration's lines and takes its doc comment. */
function declarationOf(node: Node): Node {
  const parent = node.parent;
  if (!parent || !/_declaration$/.test(parent.type) || parent.type === 'method_declaration') return node;
  return parent.namedChildren.filter((c) => c && c.type !== 'comment').length === 1 ? parent : node;
}

/** The name a Go import is used by in the file: its alias, else its last element (less a `/vN` or `.vN` suffix and a `go-` prefix). */
function localNameOf(imp: RawImport, aliases: Map<string, string>): string {
  const alias = aliases.get(imp.specifier);
  if (alias) return alias;
  const last = imp.specifier.replace(/\/v\d+$/, '').split('/').pop() ?? '';
  return last.replace(/\.v\d+$/, '').replace(/^go-/, '').replace(/-go$/, '').replace(/[^\w]/g, '_');
}

/** The package-level names a file declares (functions, types, vars, consts), from its tree. */
function topLevelNames(root: Node): Set<string> {
  const out = new Set<string>();
  for (const decl of root.namedChildren) {
    if (!decl) continue;
    if (decl.type === 'function_declaration') out.add(decl.childForFieldName('name')?.text ?? '');
    if (!/^(type|var|const)_declaration$/.test(decl.type)) continue;
    for (const spec of decl.descendantsOfType(['type_spec', 'type_alias', 'var_spec', 'const_spec'])) {
      if (spec?.type === 'type_spec' || spec?.type === 'type_alias') out.add(spec.childForFieldName('name')?.text ?? '');
      else for (const id of spec?.namedChildren ?? []) if (id?.type === 'identifier') out.add(id.text);
    }
  }
  return out;
}

/**
 * Names a file uses that may be declared by another file of its package, in order of first use: identifiers
 * and type names (not a package-qualified `pkg.Type`), and method names called as `x.Name(` where x is not an
 * imported package. Member names (`x.Field`) and the file's own declarations are not looked up.
 */
function usedNames(root: Node, packages: Set<string>): { name: string; method: boolean; line: number }[] {
  const out = new Map<string, { name: string; method: boolean; line: number }>();
  for (const node of root.descendantsOfType(['identifier', 'type_identifier', 'field_identifier'])) {
    if (!node) continue;
    const parent = node.parent;
    let method = false;
    if (node.type === 'type_identifier' && parent?.type === 'qualified_type') continue;
    if (node.type === 'field_identifier') {
      const call = parent?.parent;
      if (parent?.type !== 'selector_expression' || parent.childForFieldName('field')?.id !== node.id) continue;
      if (call?.type !== 'call_expression' || call.childForFieldName('function')?.id !== parent.id) continue;
      const operand = parent.childForFieldName('operand');
      if (operand?.type === 'identifier' && packages.has(operand.text)) continue;
      method = true;
    }
    const key = `${method ? '.' : ''}${node.text}`;
    if (!out.has(key)) out.set(key, { name: node.text, method, line: startLineOf(node) });
  }
  return [...out.values()];
}

/**
 * A Go file depends on the files of its own package whose package-level names it uses (a function, type, var or
 * const they declare, or a method called by name): one `reference` per sibling file, named by the first name that
 * reaches it. Test files are left out (an in-package test depends on every file of its package already).
 */
function references(root: Node, imports: RawImport[], fromPath: string, files: RepoFiles): RawImport[] {
  if (fromPath.endsWith('_test.go')) return [];
  const pkg = packageNames(fromPath, files);
  if (!pkg.members.has(fromPath) || pkg.members.size < 2) return [];
  const ownTop = topLevelNames(root);
  const aliases = new Map<string, string>();
  for (const spec of root.descendantsOfType('import_spec')) {
    const alias = spec?.childForFieldName('name')?.text;
    const path = spec?.childForFieldName('path');
    if (alias && path) aliases.set(stringValue(path), alias);
  }
  const packages = new Set(imports.filter((i) => i.kind === 'import').map((i) => localNameOf(i, aliases)));
  const covered = new Set<string>([fromPath]);
  const out: RawImport[] = [];
  for (const used of usedNames(root, packages)) {
    if (!used.method && ownTop.has(used.name)) continue;
    const declaring = (used.method ? pkg.methods : pkg.top).get(used.name) ?? [];
    if (declaring.every((f) => covered.has(f))) continue;
    for (const f of declaring) covered.add(f);
    out.push({ specifier: used.method ? `.${used.name}` : used.name, kind: 'reference', names: [used.name], typeOnly: false, line: used.line });
  }
  return out;
}

export const go: LanguageSpec = {
  grammar: 'go',
  comments: '(comment) @comment',
  definitions,
  imports: '(import_spec) @import',
  importsOf(match): RawImport[] {
    const node = match.captures[0].node;
    const path = node.childForFieldName('path');
    if (!path) return [];
    const alias = node.childForFieldName('name')?.text;
    return [{ specifier: stringValue(path), kind: 'import', names: alias === '_' ? [] : ['*'], typeOnly: false, line: startLineOf(node) }];
  },
  rangeOf: (node) => {
    const outer = declarationOf(node);
    return { first: outer, last: outer };
  },
  signatureNodeOf: declarationOf,
  isExported: (def) => /^\p{Lu}/u.test(def.name),
  description: (root, source) => source.leadingDescription(root),
  unitOf: (root) => root.namedChildren.find((c) => c?.type === 'package_clause')?.namedChildren[0]?.text ?? null,
  /**
   * An import names a package (a folder of a module of the repository). The edge is stored to one of its
   * files; the import graph extends it to every file of the package (`analysis/go-packages.ts`).
   */
  references,
  resolve(fromPath, specifier, kind, files) {
    if (kind === 'reference') {
      // A package-level name (`Name`) or a method (`.Name`) declared by other files of the file's package.
      const pkg = packageNames(fromPath, files);
      const method = specifier.startsWith('.');
      const targets = ((method ? pkg.methods : pkg.top).get(method ? specifier.slice(1) : specifier) ?? []).filter((f) => f !== fromPath);
      return targets.length ? { targetPath: targets[0], packageName: null, alsoTargets: targets.slice(1) } : unresolved(null);
    }
    const found = goPackage(specifier, files);
    if ('file' in found) return resolvedTo(found.file);
    // A path of a repository module without files yet stays unresolved without a package, to be linked later.
    return unresolved(found.local ? null : specifier);
  },
};
