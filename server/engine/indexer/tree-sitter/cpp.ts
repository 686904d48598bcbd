import type { Node } from '@vscode/tree-sitter-wasm';
import type { SymbolKind } from '../../types';
import type { LanguageSpec, RawImport } from './language';
import { resolvedTo, unresolved } from './language';
import nodePath from 'node:path';
import { ancestors, dirOf, joinRel, type RepoFiles } from './repo-files';
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

const WRAPPERS = new Set(['pointer_declarator', 'pointer_type_declarator', 'reference_declarator', 'init_declarator', 'array_declarator', 'parenthesized_declarator', 'attributed_declarator']);

const inner = (node: Node) => node.childForFieldName('declarator') ?? node.namedChildren.find((c) => c && c.type !== 'attribute_declaration') ?? null;

/**
 * A `::` the parser made up: an unknown macro before a declaration (`LUAI_FUNC l_noret luaD_throw(…)`) is read as
 * the type, and the real type and the name then become `l_noret ::luaD_throw` with the `::` missing.
 */
const invented = (node: Node) => node.type === 'qualified_identifier' && node.children.some((c) => c?.type === '::' && c.isMissing);

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
    } else if (invented(node)) {
      node = node.childForFieldName('name');
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
    const flags = includeDirs(fromPath, files);
    let candidates: (string | null)[];
    if (flags) {
      // The compiler's own search: quoted includes beside the file, then -iquote; both kinds then -I, -isystem.
      candidates = [...(system ? [] : [dirOf(fromPath), ...flags.quote]), ...flags.angle].map((d) => joinRel(d, path));
    } else {
      const dirs = ancestors(dirOf(fromPath));
      // Without compile_commands.json: quoted beside the including file, then the usual -I roots (each folder
      // above, its include/ and src/); system only in the repository's include/ folders.
      candidates = system
        ? dirs.map((d) => joinRel(d, 'include', path))
        : [joinRel(dirOf(fromPath), path), ...dirs.flatMap((d) => [joinRel(d, path), joinRel(d, 'include', path), joinRel(d, 'src', path)])];
    }
    const target = files.firstFile(candidates);
    return target ? resolvedTo(target) : unresolved(system ? path : null);
  },
};

interface IncludeFlags { quote: string[]; angle: string[] }

/**
 * Include directories from the compile_commands.json at the repository root or in build/ (what CMake,
 * Meson and Bear write): the file's own entry, or for a header (no entry) the union of every entry's.
 * Folders outside the repository are dropped. Null when there is no compilation database.
 */
function includeDirs(fromPath: string, files: RepoFiles): IncludeFlags | null {
  const db = files.memo('cpp:compile_commands', () => readCompileCommands(files));
  if (!db) return null;
  return db.byFile.get(fromPath) ?? db.all;
}

function readCompileCommands(files: RepoFiles): { byFile: Map<string, IncludeFlags>; all: IncludeFlags } | null {
  const dbPath = files.firstFile(['compile_commands.json', 'build/compile_commands.json']);
  if (!dbPath) return null;
  let entries: { directory?: string; file?: string; command?: string; arguments?: string[] }[];
  try { entries = JSON.parse(files.read(dbPath) ?? '') as typeof entries; } catch { return null; }
  if (!Array.isArray(entries)) return null;
  const root = files.absoluteRoot;
  const rel = (dir: string, p: string) => {
    const abs = nodePath.resolve(dir, p);
    const r = nodePath.relative(root, abs).split(nodePath.sep).join('/');
    return r.startsWith('..') || nodePath.isAbsolute(r) ? null : r;
  };
  const byFile = new Map<string, IncludeFlags>();
  const all: IncludeFlags = { quote: [], angle: [] };
  for (const e of entries) {
    const dir = nodePath.resolve(root, e.directory ?? '.');
    const args = e.arguments ?? splitCommand(e.command ?? '');
    const flags: IncludeFlags = { quote: [], angle: [] };
    for (let i = 0; i < args.length; i++) {
      const m = /^-(I|iquote|isystem|idirafter)(.*)$/.exec(args[i]);
      if (!m) continue;
      const value = m[2] || args[++i] || '';
      const folder = rel(dir, value);
      if (folder === null) continue;
      (m[1] === 'iquote' ? flags.quote : flags.angle).push(folder);
    }
    const file = e.file ? rel(dir, e.file) : null;
    if (file) byFile.set(file, flags);
    for (const f of flags.quote) if (!all.quote.includes(f)) all.quote.push(f);
    for (const f of flags.angle) if (!all.angle.includes(f)) all.angle.push(f);
  }
  return { byFile, all };
}

/** A shell command line split into words (quotes and backslashes as sh reads them, no expansion). */
function splitCommand(command: string): string[] {
  const words: string[] = [];
  for (const m of command.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|((?:[^\s"'\\]|\\.)+)/g)) {
    words.push((m[1] ?? m[2] ?? m[3]).replace(/\\(.)/g, '$1'));
  }
  return words;
}
