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

/** A path of two or more segments written in the code: `crate::hir::Hir::empty`, `super::parse::Parser`. */
export interface WrittenPath { node: Node; segments: string[]; line: number }

/** Where a path may start a `::` chain: `$crate` in a macro body is the crate. */
const PATH = /(?<![\w$:.'])(\$?[A-Za-z_]\w*)((?:\s*::\s*[A-Za-z_]\w*)+)/g;
/** Comments and string literals inside a macro's tokens, blanked before its paths are read. */
const NOT_CODE = /\/\/[^\n]*|\/\*[\s\S]*?\*\/|b?r(#*)"[\s\S]*?"\1|b?"(?:\\[\s\S]|[^"\\])*"|b?'(?:\\.[^'\n]{0,8}|[^'\\\n])'/g;

/** A `use` item inside a macro's tokens (a body not read as items, `rust-macros.ts`): an import already (`embedded`). */
const USE_ITEM = /\buse\s[^;]*;/g;
const blank = (text: string, what: RegExp) => text.replace(what, (s) => s.replace(/[^\n]/g, ' '));

const isMacroName = (node: Node) => node.parent?.type === 'macro_invocation' && node.parent.childForFieldName('macro')?.id === node.id;

/** What holds no path that makes a dependency: `use` lines (imports of their own), comments, strings, `pub(in …)`. */
const SKIP = new Set(['use_declaration', 'extern_crate_declaration', 'visibility_modifier', 'line_comment', 'block_comment',
  'string_literal', 'raw_string_literal', 'char_literal']);
const SCOPED = new Set(['scoped_identifier', 'scoped_type_identifier']);

/**
 * Paths written outside `use` lines (in expressions, types, `impl … for` headers, attributes, and the
 * unparsed tokens of macros: `assert_eq!(…)`, `select! { … }`), each with the node it was read from.
 * Only the outermost path of a chain counts: `crate::hir::Hir::empty`, not also `crate::hir`.
 */
export function writtenPaths(root: Node): WrittenPath[] {
  const out: WrittenPath[] = [];
  const read = (node: Node, text: string) => {
    for (const m of text.matchAll(PATH)) {
      // A macro (`$crate::select!`): `#[macro_export]` puts it at the crate root, far from the file defining it.
      if (/^\s*!/.test(text.slice(m.index + m[0].length)) || isMacroName(node)) continue;
      const segments = [m[1].replace(/^\$/, ''), ...m[2].split('::').slice(1).map((s) => s.trim())];
      if (m[1].startsWith('$') && segments[0] !== 'crate') continue; // a macro variable, `$x::y`
      const line = node.startPosition.row + 1 + (text.slice(0, m.index).match(/\n/g)?.length ?? 0);
      out.push({ node, segments, line });
    }
  };
  const visit = (node: Node) => {
    if (SKIP.has(node.type)) return;
    if (SCOPED.has(node.type) || node.type === 'token_tree') {
      read(node, node.type === 'token_tree' ? blank(blank(node.text, NOT_CODE), USE_ITEM) : node.text);
      return;
    }
    for (const child of node.namedChildren) if (child) visit(child);
  };
  visit(root);
  return out;
}
