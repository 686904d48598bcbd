import type { Node } from '@vscode/tree-sitter-wasm';
import type { LanguageSpec, RawImport } from './language';
import { resolvedTo, unresolved } from './language';
import fs from 'node:fs';
import path from 'node:path';
import { ancestors, dirOf, joinRel, type RepoFiles } from './repo-files';
import { startLineOf, stringValue } from './source';

const definitions = `
(class_declaration name: (name) @name) @def.class
(interface_declaration name: (name) @name) @def.interface
(trait_declaration name: (name) @name) @def.trait
(enum_declaration name: (name) @name) @def.enum
(function_definition name: (name) @name) @def.function
(method_declaration name: (name) @name) @def.function
(property_declaration (property_element name: (variable_name (name) @name))) @def.property
(const_declaration (const_element (name) @name)) @def.constant
`;

const imports = `
(namespace_use_declaration) @import
(require_expression) @import
(require_once_expression) @import
(include_expression) @import
(include_once_expression) @import
`;

/** `__DIR__ . '/x.php'` and `dirname(__FILE__) . '/x.php'` are relative to the file; a plain string is as written. */
function includePath(expr: Node | null): string | null {
  if (!expr) return null;
  if (expr.type === 'string' || expr.type === 'encapsed_string') {
    return expr.namedChildren.every((c) => c?.type === 'string_content') ? stringValue(expr) : null;
  }
  if (expr.type === 'parenthesized_expression') return includePath(expr.namedChildren[0]);
  if (expr.type === 'binary_expression') {
    const left = expr.childForFieldName('left')?.text.replace(/\s+/g, '');
    const right = includePath(expr.childForFieldName('right'));
    if (right !== null && (left === '__DIR__' || left === 'dirname(__FILE__)')) return `__DIR__${right.startsWith('/') ? '' : '/'}${right}`;
  }
  return null;
}

interface UseClause { name: string; alias: string; classLike: boolean }

/** `use A\B as C, D;` and `use A\{B, C as D};`: each imported name (fully qualified, no leading `\\`) and the name it is known by. */
function useClauses(node: Node): UseClause[] {
  const group = node.childForFieldName('body');
  const prefix = group ? node.namedChildren.find((c) => c?.type === 'namespace_name')?.text : undefined;
  const clauses = (group ?? node).namedChildren.filter((c) => c?.type === 'namespace_use_clause');
  const out: UseClause[] = [];
  for (const clause of clauses) {
    const written = clause!.namedChildren.find((c) => c && (c.type === 'qualified_name' || c.type === 'name'))?.text ?? '';
    const name = (prefix ? `${prefix}\\${written}` : written).replace(/\s+/g, '').replace(/^\\/, '');
    if (!name) continue;
    const alias = clause!.childForFieldName('alias')?.text ?? name.slice(name.lastIndexOf('\\') + 1);
    // `use function` and `use const` import into other tables than the one class names are looked up in.
    const type = clause!.childForFieldName('type') ?? node.childForFieldName('type');
    out.push({ name, alias, classLike: !type });
  }
  return out;
}

interface Psr4 { dir: string; prefix: string; paths: string[] }

/**
 * PSR-4 prefixes of the nearest composer.json, longest first, with the folder of that composer.json. Without one
 * (a distribution's copy, a project that does not use Composer), the prefixes the files' own `namespace`
 * declarations imply (see inferredPsr4).
 */
function psr4(fromPath: string, files: RepoFiles): Psr4[] {
  for (const dir of ancestors(dirOf(fromPath))) {
    const text = files.read(joinRel(dir, 'composer.json') ?? '');
    if (!text) continue;
    try {
      const json = JSON.parse(text) as Record<string, { 'psr-4'?: Record<string, string | string[]> } | undefined>;
      const map = { ...json.autoload?.['psr-4'], ...json['autoload-dev']?.['psr-4'] };
      const entries = Object.entries(map)
        .map(([prefix, paths]) => ({ dir, prefix, paths: Array.isArray(paths) ? paths : [paths] }))
        .sort((a, b) => b.prefix.length - a.prefix.length);
      if (entries.length) return entries;
    } catch { /* unreadable: as if there were none */ }
    break;
  }
  return inferredPsr4(files).prefixes;
}

const SKIP = new Set(['vendor', 'node_modules']);

/**
 * The namespace ↔ folder pairs the repository's own files imply: src/Node/Node.php declaring
 * `namespace League\CommonMark\Node` maps `League\CommonMark\` to src/ (the folders below the prefix spell the
 * rest of the namespace), and usr/share/php/League/CommonMark/Node/Node.php maps every namespace to
 * usr/share/php. Also the namespaces declared, which are the repository's own and not a dependency.
 */
function inferredPsr4(files: RepoFiles): { prefixes: Psr4[]; namespaces: Set<string> } {
  return files.memo('php:inferred-psr4', () => {
    const pairs = new Map<string, Psr4>();
    const namespaces = new Set<string>();
    for (const file of files.filesBelow('', '.php', SKIP)) {
      const namespace = declaredNamespace(files, file);
      if (!namespace) continue;
      namespaces.add(namespace);
      const parts = namespace.split('\\');
      const folders = dirOf(file).split('/').filter(Boolean);
      let k = 0;
      while (k < parts.length && k < folders.length && parts[parts.length - 1 - k] === folders[folders.length - 1 - k]) k++;
      const prefix = parts.slice(0, parts.length - k).map((p) => `${p}\\`).join('');
      const dir = folders.slice(0, folders.length - k).join('/');
      pairs.set(`${prefix}\0${dir}`, { dir, prefix, paths: [''] });
    }
    return { prefixes: [...pairs.values()].sort((a, b) => b.prefix.length - a.prefix.length || (a.dir < b.dir ? -1 : 1)), namespaces };
  });
}

/** `namespace A\B;` near the top of a file (read without keeping the text), or null. */
function declaredNamespace(files: RepoFiles, rel: string): string | null {
  let head = '';
  try {
    const fd = fs.openSync(path.join(files.absoluteRoot, rel), 'r');
    try {
      const buffer = Buffer.alloc(8192);
      head = buffer.toString('utf8', 0, fs.readSync(fd, buffer, 0, buffer.length, 0));
    } finally { fs.closeSync(fd); }
  } catch { return null; }
  return /^\s*namespace\s+\\?([A-Za-z_\x80-\uffff][\w\x80-\uffff]*(?:\\[A-Za-z_\x80-\uffff][\w\x80-\uffff]*)*)\s*[;{]/m.exec(head)?.[1] ?? null;
}

/** A name the repository itself declares (a namespace of its own, or below one): never a dependency. */
function isOwn(fromPath: string, name: string, files: RepoFiles): boolean {
  const prefixes = psr4(fromPath, files);
  if (prefixes.some((p) => p.prefix !== '' && (`${name}\\`.startsWith(p.prefix)))) return true;
  if (prefixes.some((p) => p.prefix === '')) {
    const { namespaces } = inferredPsr4(files);
    for (let at = name; at; at = at.slice(0, Math.max(0, at.lastIndexOf('\\')))) if (namespaces.has(at)) return true;
  }
  return false;
}

/** Positions where a name is a class, interface, trait or enum: `new X`, `X::`, `extends X`, types, `instanceof X`, `catch (X`. */
const CLASS_POSITIONS = new Set([
  'named_type', 'base_clause', 'class_interface_clause', 'object_creation_expression', 'scoped_call_expression',
  'class_constant_access_expression', 'scoped_property_access_expression', 'use_declaration', 'type_list', 'binary_expression', 'attribute',
]);

/** The namespace a file declares (`namespace A\B;`), or ''. */
function namespaceOf(root: Node): string {
  const decl = root.descendantsOfType('namespace_definition')[0];
  return decl?.childForFieldName('name')?.text ?? '';
}

function psr4Target(fromPath: string, className: string, files: RepoFiles): string | null {
  for (const { dir, prefix, paths } of psr4(fromPath, files)) {
    if (!className.startsWith(prefix)) continue;
    const rest = `${className.slice(prefix.length).replace(/\\/g, '/')}.php`;
    const target = files.firstFile(paths.map((p) => joinRel(dir, p, rest)));
    if (target) return target;
  }
  return null;
}

/**
 * PHP's name resolution for classes: a name whose first part is imported by `use` is that import (its
 * own edge); `\A\B` is fully qualified; any other name is relative to the file's namespace. Names that
 * resolve through PSR-4 to a file other than this one are `reference` edges.
 */
function references(root: Node, _imports: RawImport[], fromPath: string, files: RepoFiles): RawImport[] {
  const namespace = namespaceOf(root);
  // Class names are looked up among the file's `use` clauses by their alias (`use A\\B as C;` then `C\\D` is A\\B\\D).
  const aliases = new Map<string, string>();
  for (const decl of root.descendantsOfType('namespace_use_declaration')) {
    for (const clause of useClauses(decl!)) if (clause.classLike) aliases.set(clause.alias.toLowerCase(), clause.name);
  }
  const out = new Map<string, RawImport>();
  for (const node of root.descendantsOfType(['name', 'qualified_name'])) {
    if (!node || node.parent?.type === 'qualified_name' || node.parent?.type === 'namespace_name') continue;
    if (!CLASS_POSITIONS.has(node.parent?.type ?? '')) continue;
    const parent = node.parent!;
    if (parent.type === 'binary_expression' && parent.childForFieldName('operator')?.text !== 'instanceof') continue;
    if ((parent.type === 'scoped_call_expression' || parent.type === 'scoped_property_access_expression') && parent.childForFieldName('scope')?.id !== node.id) continue;
    if (parent.type === 'class_constant_access_expression' && parent.namedChildren[0]?.id !== node.id) continue;
    const written = node.text.replace(/\s+/g, '');
    if (/^(self|static|parent)$/i.test(written)) continue;
    let className: string;
    if (written.startsWith('\\')) className = written.slice(1);
    else {
      const [first, ...rest] = written.split('\\');
      const imported = aliases.get(first.toLowerCase());
      if (imported) {
        if (!rest.length) continue; // the `use` statement is the edge
        className = [imported, ...rest].join('\\');
      } else className = namespace ? `${namespace}\\${written}` : written;
    }
    if (out.has(className)) continue;
    const target = psr4Target(fromPath, className, files);
    if (target && target !== fromPath) {
      out.set(className, { specifier: className, kind: 'reference', names: [className.slice(className.lastIndexOf('\\') + 1)], typeOnly: false, line: startLineOf(node) });
    }
  }
  return [...out.values()];
}

export const php: LanguageSpec = {
  grammar: 'php',
  comments: '(comment) @comment',
  definitions,
  imports,
  importsOf(match): RawImport[] {
    const node = match.captures[0].node;
    const line = startLineOf(node);
    if (node.type === 'namespace_use_declaration') {
      return useClauses(node).map(({ name }) => ({ specifier: name, kind: 'use', names: [name.slice(name.lastIndexOf('\\') + 1)], typeOnly: false, line }));
    }
    const specifier = includePath(node.namedChildren[0]);
    if (specifier === null) return [];
    return [{ specifier, kind: node.type.startsWith('include') ? 'include' : 'require', names: [], typeOnly: false, line }];
  },
  isExported(def) {
    return !def.node.namedChildren.some((c) => c?.type === 'visibility_modifier' && c.text !== 'public');
  },
  description: (root, source) => source.leadingDescription(root, new Set(['php_tag'])),
  describeByFirstType: true,
  references,
  resolve(fromPath, specifier, kind, files) {
    if (kind === 'use' || kind === 'reference') {
      const target = psr4Target(fromPath, specifier, files);
      if (target) return resolvedTo(target);
      if (kind === 'reference' || isOwn(fromPath, specifier, files)) return unresolved(null);
      const cut = specifier.lastIndexOf('\\');
      return unresolved(cut > 0 ? specifier.slice(0, cut) : specifier);
    }
    if (specifier.startsWith('__DIR__/')) {
      const target = files.firstFile([joinRel(dirOf(fromPath), specifier.slice('__DIR__/'.length))]);
      return target ? resolvedTo(target) : unresolved(null);
    }
    if (specifier.startsWith('/') || /^[a-z]+:\/\//i.test(specifier)) return unresolved(null);
    // A bare path is looked up on the include path ('.' first) and then beside the including script.
    const target = files.firstFile([joinRel(dirOf(fromPath), specifier), joinRel('', specifier)]);
    return target ? resolvedTo(target) : unresolved(null);
  },
};
