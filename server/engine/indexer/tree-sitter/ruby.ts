import type { Node } from '@vscode/tree-sitter-wasm';
import type { LanguageSpec, RawImport } from './language';
import { resolvedTo, unresolved } from './language';
import { ancestors, dirOf, joinRel } from './repo-files';
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
    // Interpolated paths are only known at run time.
    if (!path || path.namedChildren.some((c) => c?.type === 'interpolation')) return [];
    const constant = method === 'autoload' ? args.find((a) => a?.type === 'simple_symbol')?.text.slice(1) : undefined;
    return [{
      specifier: stringValue(path),
      kind: method === 'require_relative' ? 'require-relative' : 'require',
      names: constant ? [constant] : [],
      typeOnly: false,
      line: startLineOf(call),
    }];
  },
  memberContainers: new Set(['class', 'module']),
  isExported: (def) => (def.kind === 'method' || def.kind === 'function' ? isPublicMethod(def.node) : true),
  description: (root, source) => source.leadingDescription(root),
  resolve(fromPath, specifier, kind, files) {
    const file = specifier.endsWith('.rb') ? specifier : `${specifier}.rb`;
    if (specifier.startsWith('/')) return unresolved(null);
    if (kind === 'require-relative' || specifier.startsWith('.')) {
      const target = files.firstFile([joinRel(dirOf(fromPath), file)]);
      return target ? resolvedTo(target) : unresolved(null);
    }
    // The load path: the lib/ folder of the nearest project (gem) above the file, then the repository root.
    const target = files.firstFile([...ancestors(dirOf(fromPath)).map((d) => joinRel(d, 'lib', file)), joinRel('', file)]);
    return target ? resolvedTo(target) : unresolved(specifier.split('/')[0]);
  },
};
