import type { Node } from '@vscode/tree-sitter-wasm';
import type { LanguageSpec, RawImport } from './language';
import { resolvedTo, unresolved } from './language';
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

function useClauses(node: Node): string[] {
  const group = node.childForFieldName('body');
  const prefix = group ? node.namedChildren.find((c) => c?.type === 'namespace_name')?.text : undefined;
  const clauses = (group ?? node).namedChildren.filter((c) => c?.type === 'namespace_use_clause');
  return clauses.map((clause) => {
    const name = clause!.namedChildren.find((c) => c && (c.type === 'qualified_name' || c.type === 'name'))?.text ?? '';
    return (prefix ? `${prefix}\\${name}` : name).replace(/^\\/, '');
  }).filter(Boolean);
}

/** PSR-4 prefixes of the nearest composer.json, longest first, with the folder of that composer.json. */
function psr4(fromPath: string, files: RepoFiles): { dir: string; prefix: string; paths: string[] }[] {
  for (const dir of ancestors(dirOf(fromPath))) {
    const text = files.read(joinRel(dir, 'composer.json') ?? '');
    if (!text) continue;
    try {
      const json = JSON.parse(text) as Record<string, { 'psr-4'?: Record<string, string | string[]> } | undefined>;
      const map = { ...json.autoload?.['psr-4'], ...json['autoload-dev']?.['psr-4'] };
      return Object.entries(map)
        .map(([prefix, paths]) => ({ dir, prefix, paths: Array.isArray(paths) ? paths : [paths] }))
        .sort((a, b) => b.prefix.length - a.prefix.length);
    } catch {
      return [];
    }
  }
  return [];
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
function references(root: Node, imports: RawImport[], fromPath: string, files: RepoFiles): RawImport[] {
  const namespace = namespaceOf(root);
  const aliases = new Map(imports.filter((i) => i.kind === 'use').map((i) => [i.names[0].toLowerCase(), i.specifier]));
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
      return useClauses(node).map((specifier) => ({ specifier, kind: 'use', names: [specifier.slice(specifier.lastIndexOf('\\') + 1)], typeOnly: false, line }));
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
      const cut = specifier.lastIndexOf('\\');
      return unresolved(kind === 'reference' ? null : cut > 0 ? specifier.slice(0, cut) : specifier);
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
