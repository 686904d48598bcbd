import type { Node, Parser, Tree } from '@vscode/tree-sitter-wasm';
import { spliced } from './source';

/**
 * An export or attribute macro between the class key and the name (`class GTEST_API_ Message {`, `class
 * GTEST_INTERNAL_EMPTY_BASE_CLASS NiceMock : …`), which expands to a visibility attribute or to nothing: the grammar
 * reads a function `Message` returning a `class GTEST_API_`, the class body as its statements. An upper-case name
 * with an underscore followed by the class's name and its body or base clause is such a macro.
 */
const CLASS_HEAD_MACRO = /\b(class|struct|union)(\s+)([A-Z][A-Z0-9]*_[A-Z0-9_]*)(?=\s+[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*\s*(?:final\s*)?(?:\{|:(?!:)))/g;

/** An upper-case name, as macros are written. */
const MACRO_NAME = /^[A-Z][A-Z0-9_]+$/;
/** Rounds of blanking and parsing again, for macros the grammar stumbles on only once an earlier one is gone. */
const MAX_ROUNDS = 3;

/** The index after the `)` closing the `(` at open (strings, characters and comments skipped), or -1. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i + 1;
    else if (c === '"' || c === '\'') {
      for (i++; i < text.length && text[i] !== c && text[i] !== '\n'; i++) if (text[i] === '\\') i++;
    } else if (text.startsWith('//', i)) i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i);
    else if (text.startsWith('/*', i)) i = text.indexOf('*/', i + 2) < 0 ? text.length : text.indexOf('*/', i + 2) + 1;
  }
  return -1;
}

/** Skips blanks and comments from i. */
function codeAfter(text: string, i: number): number {
  for (;;) {
    const m = /^\s*/.exec(text.slice(i, i + 4096))![0].length;
    i += m;
    if (text.startsWith('//', i)) i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i);
    else if (text.startsWith('/*', i)) i = text.indexOf('*/', i + 2) < 0 ? text.length : text.indexOf('*/', i + 2) + 2;
    else if (m === 0) return i;
  }
}

/**
 * Each `NAME(…)` standing alone where a declaration or a statement does: first on its line, nothing but blanks or a
 * comment after the `)` on the line, no `;` after it, and what follows starts a declaration (not a `{` body, an
 * operator or `;` that would make the call part of one): [start, end] of the call.
 */
function standaloneCalls(text: string, name: string): [number, number][] {
  const out: [number, number][] = [];
  const call = new RegExp(`^[ \\t]*(${name})[ \\t]*\\(`, 'gm');
  for (let m = call.exec(text); m; m = call.exec(text)) {
    const start = m.index + m[0].indexOf(name);
    const end = closingParen(text, m.index + m[0].length - 1);
    if (end < 0) continue;
    const lineEnd = text.indexOf('\n', end) < 0 ? text.length : text.indexOf('\n', end);
    const next = codeAfter(text, end);
    if (next < lineEnd) continue;
    if (next < text.length && !/[A-Za-z_#}~[]/.test(text[next])) continue;
    out.push([start, end]);
  }
  return out;
}

/**
 * The macros a parse error starts at: an ERROR node holding `NAME (` as its first tokens (gtest.h's
 * `GTEST_IMPL_CMP_HELPER_(NE, !=)`, whose operator argument no expression reads).
 */
function stumbledMacros(root: Node): Set<string> {
  const names = new Set<string>();
  for (const error of root.descendantsOfType('ERROR')) {
    const [first, second] = [error?.child(0), error?.child(1)];
    if (first?.type === 'identifier' && second?.type === '(' && MACRO_NAME.test(first.text)) names.add(first.text);
  }
  return names;
}


/**
 * A C/C++ file's tree, read past the macros the preprocessor would expand first. An export macro in a class head
 * is blanked (the class is read as a class). A macro call standing alone as a declaration, without a `;`
 * (`GTEST_IMPL_CMP_HELPER_(NE, !=)` in gtest.h, which expands to a function template), makes an ERROR the grammar
 * may not recover from for a hundred lines (gtest.h's `class GTEST_API_ AssertHelper` was lost in it): when an
 * ERROR starts at such a call, every standalone call of that macro is blanked and the file parsed again. The
 * text keeps its length and lines, so every position is the file's; what the macro would have declared is not
 * read (it was not before either).
 */
export function parseBlankingMacros(text: string, parser: Parser): Tree | null {
  let out = text.replace(CLASS_HEAD_MACRO, (_match, key: string, space: string, macro: string) => `${key}${space}${' '.repeat(macro.length)}`);
  let tree = parser.parse(out);
  const done = new Set<string>();
  for (let round = 0; tree?.rootNode.hasError && round < MAX_ROUNDS; round++) {
    const names = [...stumbledMacros(tree.rootNode)].filter((n) => !done.has(n));
    const calls = names.flatMap((n) => { done.add(n); return standaloneCalls(out, n); }).sort((a, b) => a[0] - b[0]);
    if (!calls.length) break;
    out = spliced(out, calls);
    const again = parser.parse(out);
    if (!again) break;
    tree.delete();
    tree = again;
  }
  return tree;
}
