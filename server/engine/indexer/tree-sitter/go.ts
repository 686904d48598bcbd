import type { Node } from '@vscode/tree-sitter-wasm';
import type { LanguageSpec, RawImport } from './language';
import { resolvedTo, unresolved } from './language';
import { goPackage } from './go-modules';
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
  resolve(_fromPath, specifier, _kind, files) {
    const found = goPackage(specifier, files);
    if ('file' in found) return resolvedTo(found.file);
    // A path of a repository module without files yet stays unresolved without a package, to be linked later.
    return unresolved(found.local ? null : specifier);
  },
};
