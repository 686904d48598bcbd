import type { Node } from '@vscode/tree-sitter-wasm';
import type { SymbolKind } from '../../types';
import type { LanguageSpec, RawImport } from './language';
import { resolveInclude } from './cpp-includes';
import { parseBlankingMacros } from './cpp-macros';
import { startLineOf, stringValue } from './source';

// Declarations and fields are named by walking their declarators (nameOf): `int *f(void)`, `T& C::g()`
// and `int a = 1` nest differently and a query per shape would be longer than the walk. Declarations are
// only matched where they can be file or class level, so the locals of every function body are not visited.
// A named namespace is a symbol but no container (definitions.ts): what it declares keeps no parent, as before.
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
(namespace_definition name: (_) body: (declaration_list)) @def.namespace
(class_specifier name: (_) body: (field_declaration_list)) @def.class
(struct_specifier name: (_) body: (field_declaration_list)) @def.struct
(union_specifier name: (_) body: (field_declaration_list)) @def.struct
(enum_specifier name: (_) body: (enumerator_list)) @def.enum
(type_definition type: [(struct_specifier body: (_)) (union_specifier body: (_))] declarator: (type_identifier) @name) @def.struct
(type_definition type: (class_specifier body: (_)) declarator: (type_identifier) @name) @def.class
(type_definition type: (enum_specifier body: (_)) declarator: (type_identifier) @name) @def.enum
(type_definition declarator: (type_identifier) @name) @def.type
(alias_declaration name: (type_identifier) @name) @def.type
(preproc_def name: (identifier) @name) @def.constant
(preproc_function_def name: (identifier) @name) @def.function
`;

const WRAPPERS = new Set(['pointer_declarator', 'pointer_type_declarator', 'reference_declarator', 'init_declarator', 'array_declarator', 'parenthesized_declarator', 'attributed_declarator']);

// An ERROR inside a declarator is a part the grammar could not read (`(NativeArray::*clone_)`, a pointer to member),
// not the declared name.
const inner = (node: Node) => node.childForFieldName('declarator') ?? node.namedChildren.find((c) => c && c.type !== 'attribute_declaration' && c.type !== 'ERROR') ?? null;

/**
 * A `::` the parser made up: an unknown macro before a declaration (`LUAI_FUNC l_noret luaD_throw(…)`) is read as
 * the type, and the real type and the name then become `l_noret ::luaD_throw` with the `::` missing.
 */
const invented = (node: Node) => node.type === 'qualified_identifier' && node.children.some((c) => c?.type === '::' && c.isMissing);

/** The name after a made-up `::` anywhere in a qualified name (`GTEST_API_ std::string F(…)` reads `std::string ::F`). */
function afterInvented(node: Node): Node | null {
  for (let at: Node | null = node; at?.type === 'qualified_identifier'; at = at.childForFieldName('name')) {
    if (invented(at)) return at.childForFieldName('name');
  }
  return null;
}

/**
 * Follows `declarator` fields down to the declared name and the function declarator that names it, if any:
 * `int *f(void)` and `int (f)(void)` declare a function f; `int (*f)(void)` a variable f pointing to one;
 * `void (*signal(int, void (*)(int)))(int)` a function signal returning such a pointer.
 */
function innermost(declarator: Node | null): { fn: Node | null; name: Node | null } {
  let node = declarator;
  let fn: Node | null = null;
  while (node) {
    if (node.type === 'function_declarator') {
      const next = node.childForFieldName('declarator');
      if (next?.type === 'function_declarator') return { fn: node, name: macroPrefixedName(next) };
      fn = node;
      node = next;
    } else if (afterInvented(node)) {
      node = afterInvented(node);
    } else if (!WRAPPERS.has(node.type)) {
      return { fn, name: node };
    } else {
      if (fn && /^(pointer|reference)_/.test(node.type)) fn = null;
      node = inner(node);
    }
  }
  return { fn: null, name: null };
}

/**
 * `LUA_API int (lua_gettop) (lua_State *L)` is misread as a function `int` taking a `lua_gettop` and returning a
 * function (which C has not): the name is then that lone parameter's type.
 */
function macroPrefixedName(misread: Node): Node | null {
  const params = misread.childForFieldName('parameters')?.namedChildren ?? [];
  const only = params.length === 1 && params[0]?.type === 'parameter_declaration' ? params[0] : null;
  const type = only && !only.childForFieldName('declarator') ? only.childForFieldName('type') : null;
  return type?.type === 'type_identifier' ? type : null;
}

const TEMPLATED = new Set(['template_type', 'template_function', 'template_method']);

/** A name without its template arguments: a specialisation `BuiltInDefaultValue<const T>` is BuiltInDefaultValue. */
const bare = (node: Node): string => (TEMPLATED.has(node.type) ? node.childForFieldName('name')?.text ?? node.text : node.text);

/** `Type::method` → method with parent Type; `a::B::c` → c with parent B; `Vec<T>::length` → length with parent Vec. */
function splitQualified(name: Node): { name: string; parent?: string } {
  if (name.type !== 'qualified_identifier') return { name: bare(name) };
  const inner = name.childForFieldName('name');
  if (inner?.type === 'qualified_identifier') return splitQualified(inner);
  const scope = name.childForFieldName('scope');
  return { name: inner ? bare(inner) : name.text, parent: scope ? bare(scope) : undefined };
}

/**
 * A name no declaration can have, left by a misread: a `typename X<…>::type` scope (`template <…, typename
 * std::enable_if<…>::type = 0>` cut short reads as a declaration of `type`), or a part the grammar could not read.
 */
const unreadable = (name: Node): boolean => name.hasError || (name.type === 'qualified_identifier' && name.childForFieldName('scope')?.type === 'dependent_name');

/** The last part of a qualified name: what `a::B::c` declares. */
const lastPart = (name: Node): Node => (name.type === 'qualified_identifier' ? lastPart(name.childForFieldName('name') ?? name) : name);

const TYPE_SPECIFIERS = new Set(['class_specifier', 'struct_specifier', 'union_specifier', 'enum_specifier']);

/** `namespace a::b {` is b, as `namespace a { namespace b {` is (a namespace is no parent, not even of one inside it). */
const namespaceName = (name: Node): string => (name.type === 'nested_namespace_specifier' ? name.lastNamedChild?.text ?? name.text : name.text);

const qualified = (node: Node, ...words: string[]) => node.namedChildren.some((c) => c?.type === 'type_qualifier' && words.includes(c.text));

/**
 * A declared name is a constant when the object itself cannot change: `const int N = 1`, `const char kName[]`,
 * `char *const p`, anything `constexpr`; not a pointer to const data (`const char *name` points elsewhere in
 * turn), which the pointer nearest the name decides. A member is a constant only when static: a struct's
 * `const char *name;` or a class's `const int id_;` is a field of each object.
 */
function isConstant(node: Node, declarator: Node | null, kind: SymbolKind): boolean {
  if (kind === 'property' && !node.namedChildren.some((c) => c?.type === 'storage_class_specifier' && c.text === 'static')) return false;
  if (qualified(node, 'constexpr')) return true;
  let pointer: Node | null = null;
  for (let d: Node | null = declarator; d && WRAPPERS.has(d.type); d = inner(d)) if (d.type === 'pointer_declarator') pointer = d;
  return pointer ? qualified(pointer, 'const') : qualified(node, 'const');
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
  // The preprocessor reads `#include` on any line; the grammar makes a directive only where a declaration or a
  // statement may stand, so one inside an initializer (`tests[] = {\n#include "ka-table.inc"\n}`) is an ERROR
  // node. Such lines (outside comments and strings) are parsed on their own, at their row.
  embedded(root) {
    const parsed = new Set(root.descendantsOfType('preproc_include').map((n) => n!.startPosition.row));
    const hidden = root.descendantsOfType(['comment', 'string_literal', 'raw_string_literal'])
      .filter((n) => n!.endPosition.row > n!.startPosition.row).map((n) => [n!.startPosition.row, n!.endPosition.row]);
    const out: { text: string; row: number }[] = [];
    // The root node starts at the first token, not at the top of the file.
    root.text.split('\n').forEach((line, index) => {
      const row = root.startPosition.row + index;
      if (!/^\s*#\s*include\b/.test(line) || parsed.has(row)) return;
      if (hidden.some(([first, last]) => row > first && row <= last)) return;
      out.push({ text: line, row });
    });
    return out;
  },
  // Macros in class heads and macro calls standing as declarations are read as blanks (same length: every position stays).
  parseFile: parseBlankingMacros,
  nameOf(node, kind) {
    if (node.type.startsWith('preproc')) return null;
    const typeName = TYPE_SPECIFIERS.has(node.type) || node.type === 'namespace_definition' ? node.childForFieldName('name') : null;
    // `typedef struct luaL_Reg {…} luaL_Reg;` is one struct, the typedef's (not a second one inside it).
    if (typeName && node.parent?.type === 'type_definition' && node.parent.childForFieldName('declarator')?.text === typeName.text) return [];
    if (typeName) return [node.type === 'namespace_definition' ? { name: namespaceName(typeName), kind } : { ...splitQualified(typeName), kind }];
    // `int a, *b;` declares each of its declarators; a function definition has exactly one.
    const names: { name: string; parent?: string; kind: SymbolKind }[] = [];
    for (const declarator of node.childrenForFieldName('declarator')) {
      const { fn, name } = innermost(declarator);
      if (!name || unreadable(name)) continue;
      // `const T Type::member = …` defines a static member out of line: named `member`, parent `Type`.
      if (fn) names.push({ ...splitQualified(name), kind: 'function' });
      else if (kind !== 'function' && /identifier$/.test(lastPart(name).type)) names.push({ ...splitQualified(name), kind: isConstant(node, declarator, kind) ? 'constant' : kind });
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
  resolve: (fromPath, specifier, _kind, files) => resolveInclude(fromPath, specifier, files),
};
