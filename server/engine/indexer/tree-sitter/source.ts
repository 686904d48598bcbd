import type { Node } from '@vscode/tree-sitter-wasm';

/** 1-based first line of a node. */
export const startLineOf = (node: Node): number => node.startPosition.row + 1;

/** 1-based last line of a node; a node that ends at column 0 (a line comment, `#include`) ends on the line before. */
export function endLineOf(node: Node): number {
  const { row, column } = node.endPosition;
  return column === 0 && row > node.startPosition.row ? row : row + 1;
}

const DIRECTIVE = /^(#!|#\s*(-\*-|(en)?coding[:=]|frozen_string_literal|typed:|rubocop|pylint|mypy:|type:|noqa|vim?:)|\/\/\s*(go:|\+build|nolint|#region|#endregion|NOLINT))/;
const LICENSE = /copyright|licen[sc]ed?\b|spdx-license|@author/i;

/**
 * One parsed file's text plus an index of its comments by the line they end on, so doc comments and the
 * file's description are found by position whatever the shape of the tree around them.
 */
export class SourceText {
  readonly lines: string[];
  private readonly commentsByEndRow = new Map<number, Node>();
  readonly comments: Node[];
  /** First rows of the definitions found, so a comment block that documents one is not taken for the file's description. */
  readonly definitionRows = new Set<number>();

  constructor(readonly text: string, comments: Node[]) {
    this.lines = text.split('\n');
    this.comments = comments.filter((c) => !DIRECTIVE.test(c.text));
    for (const c of this.comments) this.commentsByEndRow.set(endLineOf(c) - 1, c);
  }

  /** True when only whitespace precedes the node on its first line. */
  startsLine(node: Node): boolean {
    return this.lines[node.startPosition.row]?.slice(0, node.startPosition.column).trim() === '';
  }

  /** The block of comments directly above a node (no blank line between), cleaned; null when there is none. */
  leadingComment(node: Node): string | null {
    const parts: string[] = [];
    let row = node.startPosition.row;
    for (let c = this.commentsByEndRow.get(row - 1); c && this.startsLine(c); c = this.commentsByEndRow.get(row - 1)) {
      if (c.startIndex >= node.startIndex) break;
      parts.unshift(c.text);
      row = c.startPosition.row;
    }
    return parts.length ? cleanComment(parts.join('\n')) : null;
  }

  /**
   * The file's description: the first comment block before any code that is neither a directive nor a
   * license banner, reduced to its first paragraph.
   */
  leadingDescription(root: Node, skipTypes: ReadonlySet<string> = new Set()): string | null {
    let firstCode = Infinity;
    for (const child of root.namedChildren) {
      if (!child || child.type.includes('comment') || skipTypes.has(child.type)) continue;
      firstCode = child.startIndex;
      break;
    }
    const blocks: { texts: string[]; endRow: number }[] = [];
    for (const c of this.comments) {
      if (c.startIndex >= firstCode) break;
      if (c.parent?.id !== root.id) continue;
      const last = blocks[blocks.length - 1];
      if (last && c.startPosition.row === last.endRow + 1) last.texts.push(c.text);
      else blocks.push({ texts: [c.text], endRow: 0 });
      blocks[blocks.length - 1].endRow = endLineOf(c) - 1;
    }
    for (const block of blocks) {
      if (this.definitionRows.has(block.endRow + 1)) continue;
      const text = cleanComment(block.texts.join('\n'));
      if (!text) continue;
      if (!LICENSE.test(text)) return firstParagraph(text);
      const before = beforeNotice(text);
      if (before) return firstParagraph(before);
    }
    return null;
  }
}

/**
 * What a header comment says before its copyright or license line (Lua's `$Id: lauxlib.h $ / Auxiliary functions
 * for building Lua libraries / See Copyright Notice in lua.h`, GNU's `foo.c -- what it does / Copyright …`), less
 * version-control keywords; null when that is less than three words (a bare name above a license).
 */
function beforeNotice(text: string): string | null {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    if (LICENSE.test(line)) break;
    if (!/^\s*\$\w+(:[^$]*)?\$\s*$/.test(line)) lines.push(line);
  }
  const kept = lines.join('\n').trim();
  return kept.split(/\s+/).filter((w) => /\w/.test(w)).length >= 3 ? kept : null;
}

/** Comment markers of every supported language removed (line, doc and block markers, `#`, leading `*`, C# XML doc tags). */
export function cleanComment(comment: string): string | null {
  const cleaned = comment
    .split('\n')
    .map((line) => line
      .replace(/^\s*(\/\*+!?|\/\/[/!]?|#+|=begin|=end)/, '')
      .replace(/\*+\/\s*$/, '')
      .replace(/^\s*\*(?!\*)\s?/, '')
      // A block comment whose lines start `** ` (Lua, many C code bases); `**bold**` keeps its stars.
      .replace(/^\s*\*\*+(?=\s|$)\s?/, '')
      .replace(/^ /, '')
      .replace(/<\/?(summary|remarks|returns|para|value)>/g, '')
      .replace(/<(see|paramref|typeparamref) (cref|name)="([^"]*)"\s*\/>/g, '$3')
      .trimEnd())
    .join('\n')
    .trim();
  return cleaned ? (cleaned.length > 2000 ? `${cleaned.slice(0, 1997)}...` : cleaned) : null;
}

export function firstParagraph(text: string): string {
  const paragraph = text.split(/\n\s*\n/)[0].replace(/\s+/g, ' ').trim();
  return paragraph.length > 300 ? `${paragraph.slice(0, 297)}...` : paragraph;
}

/** Fields holding a declaration's value: a long or multi-line value is a body, not part of the header. */
const VALUE_FIELDS = ['value', 'right', 'default_value', 'initializer'];
const MAX_INLINE_VALUE = 80;
const MAX_SIGNATURE = 400;

/**
 * A one-line signature: the declaration's header, from its start to its body (a block, a class body, a
 * long value), its tokens joined as written with comments and line breaks left out, and a trailing `{`,
 * `:`, `=` or `;` dropped. A C++ constructor's member initialisers are not part of it.
 */
export function signatureOf(node: Node, bodyField = 'body'): string | null {
  let cut = node.endIndex;
  const body = node.childForFieldName(bodyField);
  if (body && body.startIndex > node.startIndex) cut = body.startIndex;
  for (const child of node.children) {
    if (child?.type === 'field_initializer_list' && child.startIndex < cut) cut = child.startIndex;
  }
  if (!body) {
    for (const field of VALUE_FIELDS) {
      const value = valueOf(node, field);
      if (value && value.startIndex > node.startIndex && (value.text.length > MAX_INLINE_VALUE || value.text.includes('\n'))) cut = Math.min(cut, value.startIndex);
    }
  }
  // A Rust macro's rules are its body.
  if (node.type === 'macro_definition') cut = Math.min(cut, node.namedChildren.find((c) => c?.type === 'macro_rule')?.startIndex ?? cut);
  let text = headerText(node, cut, body ? null : node.childForFieldName('type')?.childForFieldName('body') ?? null);
  if (!body) text = withoutLongValue(text);
  text = text.replace(/[\s{(:;=,]+$/, '').trim();
  return text ? (text.length > MAX_SIGNATURE ? `${text.slice(0, MAX_SIGNATURE - 1)}…` : text) : null;
}

/** `NAME = <value>` keeps the value only when it is short; `=` inside brackets (default arguments) is not the value. */
function withoutLongValue(text: string): string {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if ('([{<'.includes(c)) depth++;
    else if (')]}>'.includes(c) && text[i - 1] !== '=' && text[i - 1] !== '-') depth = Math.max(0, depth - 1);
    else if (c === '=' && depth === 0 && text[i + 1] !== '=' && text[i + 1] !== '>' && !'!<>='.includes(text[i - 1])) {
      return text.length - i - 1 > MAX_INLINE_VALUE ? text.slice(0, i).trimEnd() : text;
    }
  }
  return text;
}

/** A value field of the node or of its single declarator (`int x = …;`, `let x = …;`, `X = …`). */
function valueOf(node: Node, field: string): Node | null {
  const direct = node.childForFieldName(field);
  if (direct) return direct;
  const declarators = node.namedChildren.filter((c) => c && /declarator|assignment|declaration$|element$/.test(c.type));
  return declarators.length === 1 ? valueOf(declarators[0]!, field) : null;
}

/**
 * The leaf tokens of a node before `end`, comments skipped, joined by one space where the source has any;
 * `elide` (a typedef's struct body) is written `{…}`.
 */
function headerText(node: Node, end: number, elide: Node | null): string {
  let out = '';
  let previousEnd = -1;
  const visit = (n: Node) => {
    if (n.startIndex >= end) return;
    if (n.type.includes('comment')) return;
    if (elide && n.id === elide.id) {
      out += out ? ' {…}' : '{…}';
      previousEnd = n.endIndex;
      return;
    }
    if (n.childCount === 0 || /string|char_literal|raw_string/.test(n.type)) {
      const text = n.text.slice(0, Math.max(0, end - n.startIndex));
      const gap = previousEnd >= 0 && n.startIndex > previousEnd;
      // A line break after an opening or before a closing bracket leaves no space (nor a trailing comma).
      if (gap && /^[)>\]]/.test(text)) out = out.replace(/,$/, '');
      out += gap && out && !/[(<[]$/.test(out) && !/^[)>\],;]/.test(text) ? ` ${text}` : text;
      previousEnd = n.endIndex;
      return;
    }
    for (const child of n.children) if (child) visit(child);
  };
  visit(node);
  return out.replace(/\s+/g, ' ');
}

/** Python-style docstring text: quotes and prefixes removed, common indentation removed (like inspect.cleandoc). */
export function cleanDocstring(literal: string): string | null {
  const body = literal.replace(/^[rRuUbBfF]*("""|'''|"|')/, '').replace(/("""|'''|"|')$/, '');
  const lines = body.split('\n');
  const indents = lines.slice(1).filter((l) => l.trim()).map((l) => l.length - l.trimStart().length);
  const indent = indents.length ? Math.min(...indents) : 0;
  const text = [lines[0].trim(), ...lines.slice(1).map((l) => l.slice(indent).trimEnd())].join('\n').trim();
  return text ? (text.length > 2000 ? `${text.slice(0, 1997)}...` : text) : null;
}

/** Text of a string literal node without its quotes (first child `string_content`-like node when present). */
export function stringValue(node: Node): string {
  const content = node.namedChildren.find((c) => c && /content|fragment/.test(c.type));
  if (content) return content.text;
  return node.text.replace(/^[a-zA-Z]*["'`<]/, '').replace(/["'`>]$/, '');
}

/**
 * A text with spans replaced in place, edits sorted by start (one starting inside an earlier one is skipped): by the
 * edit's replacement, else blanked (every character but a line break a space), so that positions and lines stay the
 * file's. The macro passes (cpp-macros.ts, rust-macros.ts) parse such a text again.
 */
export function spliced(text: string, edits: readonly (readonly [from: number, to: number, replacement?: string])[]): string {
  let out = '';
  let at = 0;
  for (const [from, to, replacement] of edits) {
    if (from < at) continue;
    out += text.slice(at, from) + (replacement ?? text.slice(from, to).replace(/[^\n]/g, ' '));
    at = to;
  }
  return out + text.slice(at);
}
