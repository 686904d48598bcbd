import type { Node } from '@vscode/tree-sitter-wasm';
import type { SymbolKind } from '../../types';
import type { LanguageSpec, RawImport } from './language';
import { resolvedTo, unresolved } from './language';
import { ancestors, dirOf, joinRel } from './repo-files';
import { startLineOf, stringValue } from './source';

// Declarations and fields are named by walking their declarators (nameOf): `int *f(void)`, `T& C::g()`
// and `int a = 1` nest differently and a query per shape would be longer than the walk. Declarations are
// only matched where they can be file or class level, so the locals of every function body are not visited.
const definitions = `
(function_definition) @def.function
[
  (translation_unit (declaration) @def.variable)
  (declaration_list (declaration) @def.variable)
  (field_declaration_list (declaration) @def.variable)
  (template_declaration (declaration) @def.variable)
  (preproc_ifdef (declaration) @def.variable)
  (preproc_if (declaration) @def.variable)
  (preproc_else (declaration) @def.variable)
  (preproc_elif (declaration) @def.variable)
]
(field_declaration) @def.property
(class_specifier name: (_) @name body: (field_declaration_list)) @def.class
(struct_specifier name: (_) @name body: (field_declaration_list)) @def.struct
(union_specifier name: (_) @name body: (field_declaration_list)) @def.struct
(enum_specifier name: (_) @name body: (enumerator_list)) @def.enum
(type_definition type: [(struct_specifier body: (_)) (union_specifier body: (_))] declarator: (type_identifier) @name) @def.struct
(type_definition type: (class_specifier body: (_)) declarator: (type_identifier) @name) @def.class
(type_definition type: (enum_specifier body: (_)) declarator: (type_identifier) @name) @def.enum
(type_definition declarator: (type_identifier) @name) @def.type
(alias_declaration name: (type_identifier) @name) @def.type
(preproc_def name: (identifier) @name) @def.constant
(preproc_function_def name: (identifier) @name) @def.function
`;

const WRAPPERS = new Set(['pointer_declarator', 'reference_declarator', 'init_declarator', 'array_declarator', 'parenthesized_declarator', 'attributed_declarator']);

/** Follows `declarator` fields down to the function declarator or the declared name. */
function innermost(declarator: Node | null): { fn: Node | null; name: Node | null } {
  let node = declarator;
  while (node) {
    if (node.type === 'function_declarator') return { fn: node, name: node.childForFieldName('declarator') };
    if (!WRAPPERS.has(node.type)) return { fn: null, name: node };
    node = node.childForFieldName('declarator') ?? node.namedChildren.find((c) => c && c.type !== 'attribute_declaration') ?? null;
  }
  return { fn: null, name: null };
}

/** `Type::method` → method with parent Type; `a::B::c` → c with parent B. */
function splitQualified(name: Node): { name: string; parent?: string } {
  if (name.type !== 'qualified_identifier') return { name: name.text };
  const inner = name.childForFieldName('name');
  const scope = name.childForFieldName('scope')?.text.replace(/<.*>$/, '');
  if (inner?.type === 'qualified_identifier') return splitQualified(inner);
  return { name: inner?.text ?? name.text, parent: scope?.slice(scope.lastIndexOf(':') + 1) };
}

function isConst(node: Node): boolean {
  return node.namedChildren.some((c) => c?.type === 'type_qualifier' && (c.text === 'const' || c.text === 'constexpr'));
}

/** The access section a member sits in: the last `public:`/`private:` above it, else the default for class or struct. */
function accessOf(member: Node, owner: Node): string {
  for (let prev = member.previousNamedSibling; prev; prev = prev.previousNamedSibling) {
    if (prev.type === 'access_specifier') return prev.text.replace(/\s*:$/, '');
  }
  return owner.type === 'class_specifier' ? 'private' : 'public';
}

export const cpp: LanguageSpec = {
  grammar: 'cpp',
  comments: '(comment) @comment',
  definitions,
  imports: '(preproc_include path: (_) @path) @import',
  importsOf(match): RawImport[] {
    const path = match.captures.find((c) => c.name === 'path')!.node;
    // A system include keeps its brackets: the specifier alone then says how to resolve it again.
    const specifier = path.type === 'system_lib_string' ? path.text : stringValue(path);
    return [{ specifier, kind: 'include', names: [], typeOnly: false, line: startLineOf(path) }];
  },
  nameOf(node, kind) {
    if (node.type.startsWith('preproc')) return null;
    // `int a, *b;` declares each of its declarators; a function definition has exactly one.
    const names: { name: string; parent?: string; kind: SymbolKind }[] = [];
    for (const declarator of node.childrenForFieldName('declarator')) {
      const { fn, name } = innermost(declarator);
      if (!name) continue;
      // `const T Type::member = …` defines a static member out of line: named `member`, parent `Type`.
      if (fn) names.push({ ...splitQualified(name), kind: 'function' });
      else if (kind !== 'function' && /identifier$/.test(name.type)) names.push({ ...splitQualified(name), kind: isConst(node) ? 'constant' : kind });
    }
    return names;
  },
  refineKind(node, kind, name): SymbolKind | null {
    // An include guard (`#ifndef X_H` / `#define X_H`) is not a constant anyone uses.
    const guard = node.type === 'preproc_def' && !node.childForFieldName('value') && node.parent?.childForFieldName('name')?.text === name;
    return guard ? null : kind;
  },
  rangeOf(node) {
    const outer = node.parent?.type === 'template_declaration' ? node.parent : node;
    return { first: outer, last: outer };
  },
  isExported(def) {
    const member = def.node.parent?.type === 'template_declaration' ? def.node.parent : def.node;
    const owner = def.container?.node;
    if (owner && member.parent?.type === 'field_declaration_list') return accessOf(member, owner) === 'public';
    // At file level, `static` means internal linkage.
    return !def.node.namedChildren.some((c) => c?.type === 'storage_class_specifier' && c.text === 'static');
  },
  description: (root, source) => source.leadingDescription(root),
  resolve(fromPath, specifier, _kind, files) {
    const system = specifier.startsWith('<');
    const path = system ? specifier.slice(1, -1) : specifier;
    if (path.startsWith('/')) return unresolved(system ? path : null);
    const dirs = ancestors(dirOf(fromPath));
    // Quoted: beside the including file, then the usual -I roots (each folder above, its include/ and src/).
    // System: only include/ folders of the repository; anything else is the toolchain's or a library's.
    const candidates = system
      ? dirs.map((d) => joinRel(d, 'include', path))
      : [joinRel(dirOf(fromPath), path), ...dirs.flatMap((d) => [joinRel(d, path), joinRel(d, 'include', path), joinRel(d, 'src', path)])];
    const target = files.firstFile(candidates);
    return target ? resolvedTo(target) : unresolved(system ? path : null);
  },
};
