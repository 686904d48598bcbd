import type { Node } from '@vscode/tree-sitter-wasm';
import type { ParseText } from './language';

/** What may stand where items do (tree-sitter-rust's `_declaration_statement`, without `let`), and comments. */
const ITEM = /_item$|^(use_declaration|extern_crate_declaration|macro_invocation|macro_definition|associated_type|empty_statement|line_comment|block_comment)$/;
/** Item containers whose bodies may hold item macros in turn. */
const CONTAINERS = new Set(['mod_item', 'impl_item', 'trait_item', 'foreign_mod_item']);
/** How deep item macros are opened inside item macros (tokio's `cfg_rt! { cfg_metrics! { … } }`). */
const MAX_DEPTH = 3;
const OPENER = 'extern';
/** `name! {`, the text an item macro's invocation holds. */
const MACRO_BRACES = /\w!\s*\{/;

/** An item, or a macro invoked where items stand (`deref_async_read!();`, read as a statement). */
const isItem = (node: Node) => ITEM.test(node.type)
  || (node.type === 'expression_statement' && node.namedChildCount === 1 && node.namedChildren[0]?.type === 'macro_invocation');

/** True when a macro's `{ … }` tokens parse as items only (`cfg_rt! { pub mod task; … }`, not `select! { … }`). */
function holdsItems(tokens: Node, parse: ParseText): boolean {
  return parse(tokens.text.slice(1, -1), (root) =>
    !root.hasError && root.namedChildren.some((c) => c && !c.type.endsWith('comment'))
    && root.namedChildren.every((c) => c !== null && isItem(c))) ?? false;
}

/**
 * Where items may stand (the file's top level, the bodies of modules, impls, traits), each item macro
 * invocation whose `{ … }` body holds items: [start of the macro's name, start of its body].
 */
function itemMacroHeads(root: Node, parse: ParseText): [number, number][] {
  const out: [number, number][] = [];
  const visit = (list: Node) => {
    for (const node of list.namedChildren) {
      if (!node) continue;
      if (CONTAINERS.has(node.type)) {
        const body = node.childForFieldName('body');
        if (body?.type === 'declaration_list') visit(body);
        continue;
      }
      if (node.type !== 'macro_invocation') continue;
      const tokens = node.namedChildren.find((c) => c?.type === 'token_tree');
      if (!tokens?.text.startsWith('{')) continue;
      const head = tokens.startIndex - node.startIndex;
      const line = node.text.indexOf('\n');
      if (head < OPENER.length || (line >= 0 && line < OPENER.length)) continue;
      if (holdsItems(tokens, parse)) out.push([node.startIndex, tokens.startIndex]);
    }
  };
  visit(root);
  return out;
}

/**
 * The text tree-sitter-rust reads for a Rust file: the grammar keeps a macro's body as unparsed tokens, so
 * the items tokio writes inside `cfg_rt! { … }`, `cfg_net! { … }` (functions, structs, methods of an `impl`,
 * `mod` and `use` lines) would be no symbols and no edges. An item-level invocation whose braces hold items
 * only is read as an `extern { … }` block (`cfg_rt!` → `extern `, padded with spaces), whose body the grammar
 * parses as items in place: same length and lines, so every position is the file's, and the items keep the
 * module, impl and `#[cfg(test)]` around them. `macro_rules!` definitions (their arms are patterns) and
 * expression macros (`vec![…]`, `println!(…)`) stay as they are, and so does a macro whose name is shorter than
 * `extern` (`m! { … }`).
 */
export function openItemMacros(text: string, parse: ParseText): string {
  // Most files invoke no macro with braces: they are parsed once, as they are.
  if (!MACRO_BRACES.test(text)) return text;
  let out = text;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const heads = parse(out, (root) => itemMacroHeads(root, parse)) ?? [];
    if (!heads.length) break;
    let next = '';
    let at = 0;
    for (const [start, body] of heads) {
      next += out.slice(at, start) + OPENER + out.slice(start + OPENER.length, body).replace(/[^\n]/g, ' ');
      at = body;
    }
    out = next + out.slice(at);
  }
  return out;
}
