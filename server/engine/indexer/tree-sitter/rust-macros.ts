import type { Node, Parser, Tree } from '@vscode/tree-sitter-wasm';
import type { ParseText } from './language';
import { spliced } from './source';

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

/** True when a macro's tokens parse as items only (`cfg_rt! { pub mod task; … }`, not `select! { … }`). */
function holdsItems(text: string, parse: ParseText): boolean {
  return parse(text, (root) =>
    !root.hasError && root.namedChildren.some((c) => c && !c.type.endsWith('comment'))
    && root.namedChildren.every((c) => c !== null && isItem(c))) ?? false;
}

/** Text to replace: [from, to, the text put there (spaces by default, newlines kept)]. */
type Edit = [number, number, string?];

const CFG_IF_TOKENS = new Set(['if', 'else', '#', 'line_comment', 'block_comment']);

/**
 * The branches of `cfg_if! { if #[cfg(a)] { items } else if #[cfg(b)] { items } else { items } }` (their `{ … }`
 * tokens), or null when the tokens are not of that shape.
 */
function cfgIfBranches(tokens: Node): Node[] | null {
  const branches: Node[] = [];
  for (const token of tokens.children.slice(1, -1)) {
    if (!token) return null;
    if (token.type === 'token_tree' && token.text.startsWith('{')) branches.push(token);
    else if (token.type === 'token_tree' ? !token.text.startsWith('[') : !CFG_IF_TOKENS.has(token.type === 'identifier' ? token.text : token.type)) return null;
  }
  return branches.length ? branches : null;
}

/**
 * The edits that open an item macro: its name becomes `extern`; for `cfg_if!`, the conditions and the branches'
 * braces are blanked too, so all branches' items stand in the one block (as `#[cfg]` alternatives do elsewhere).
 * Null when its tokens are not items.
 */
function openingOf(node: Node, tokens: Node, parse: ParseText): Edit[] | null {
  const opener: Edit[] = [[node.startIndex, node.startIndex + OPENER.length, OPENER], [node.startIndex + OPENER.length, tokens.startIndex]];
  const name = node.childForFieldName('macro');
  const branches = (name?.childForFieldName('name') ?? name)?.text === 'cfg_if' ? cfgIfBranches(tokens) : null;
  if (!branches) return holdsItems(tokens.text.slice(1, -1), parse) ? opener : null;
  if (!branches.every((b) => holdsItems(b.text.slice(1, -1), parse))) return null;
  const blanks: Edit[] = tokens.children.slice(1, -1)
    .filter((t) => t && !t.type.endsWith('comment') && !branches.some((b) => b.id === t.id)).map((t) => [t!.startIndex, t!.endIndex]);
  for (const b of branches) blanks.push([b.startIndex, b.startIndex + 1], [b.endIndex - 1, b.endIndex]);
  return [...opener, ...blanks];
}

/**
 * Where items may stand (the file's top level, the bodies of modules, impls, traits), the edits that open each
 * item macro invocation whose `{ … }` body holds items.
 */
function itemMacroEdits(root: Node, parse: ParseText): Edit[] {
  const out: Edit[] = [];
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
      out.push(...openingOf(node, tokens, parse) ?? []);
    }
  };
  visit(root);
  return out;
}

/**
 * A Rust file's tree, its item macros opened: the grammar keeps a macro's body as unparsed tokens, so the items
 * tokio writes inside `cfg_rt! { … }`, `cfg_net! { … }` (functions, structs, methods of an `impl`, `mod` and
 * `use` lines) would be no symbols and no edges. An item-level invocation whose braces hold items only is read
 * as an `extern { … }` block (`cfg_rt!` → `extern `, padded with spaces), whose body the grammar parses as
 * items in place: same length and lines, so every position is the file's, and the items keep the module, impl
 * and `#[cfg(test)]` around them; `cfg_if! { if #[cfg(…)] { … } else { … } }` holds the items of all its
 * branches. `macro_rules!` definitions (their arms are patterns) and expression macros (`vec![…]`,
 * `println!(…)`) stay as they are, and so does a macro whose name is shorter than `extern` (`m! { … }`).
 */
export function parseOpeningItemMacros(text: string, parser: Parser): Tree | null {
  let tree = parser.parse(text);
  // Most files invoke no macro with braces: their tree is the file's as it is.
  if (!tree || !MACRO_BRACES.test(text)) return tree;
  const parse: ParseText = (other, read) => {
    const otherTree = parser.parse(other);
    if (!otherTree) return null;
    try { return read(otherTree.rootNode); } finally { otherTree.delete(); }
  };
  let out = text;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const edits = itemMacroEdits(tree.rootNode, parse).sort((a, b) => a[0] - b[0]);
    if (!edits.length) break;
    out = spliced(out, edits);
    const opened = parser.parse(out);
    if (!opened) break;
    tree.delete();
    tree = opened;
  }
  return tree;
}
