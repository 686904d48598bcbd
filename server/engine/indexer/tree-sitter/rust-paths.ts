import type { Node } from '@vscode/tree-sitter-wasm';

/**
 * The names of the inline modules (`mod tests { … }`) around a node, outermost first: each nests the module
 * path of what is written inside it, as a file of its own would.
 */
export function inlineModules(node: Node): string[] {
  const out: string[] = [];
  for (let at = node.parent; at; at = at.parent) {
    if (at.type !== 'mod_item' || !at.childForFieldName('body')) continue;
    const name = at.childForFieldName('name')?.text;
    if (name) out.unshift(name);
  }
  return out;
}

/**
 * A `self::`/`super::` path written inside inline modules, as the same path written at the file's top level:
 * inside `mod tests { … }` of hir/mod.rs, `super` is hir itself (`self`), `super::super::x` is hir's parent's x
 * (`super::x`) and `self::y` is `self::tests::y`. Other paths (`crate::`, a crate's name) do not change.
 */
export function fromInline(path: string, inline: readonly string[]): string {
  const segments = path.split('::');
  if (!inline.length) return path;
  if (segments[0] === 'self') return ['self', ...inline, ...segments.slice(1)].join('::');
  let supers = 0;
  while (segments[supers] === 'super') supers++;
  if (supers === 0) return path;
  const rest = segments.slice(supers);
  const up = supers - inline.length;
  if (up > 0) return [...Array<string>(up).fill('super'), ...rest].join('::');
  return ['self', ...inline.slice(0, inline.length - supers), ...rest].join('::');
}
