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
      if (text && !LICENSE.test(text)) return firstParagraph(text);
    }
    return null;
  }
}

/** Comment markers of every supported language removed (line, doc and block markers, `#`, leading `*`, C# XML doc tags). */
export function cleanComment(comment: string): string | null {
  const cleaned = comment
    .split('\n')
    .map((line) => line
      .replace(/^\s*(\/\*+!?|\/\/[/!]?|#+|=begin|=end)/, '')
      .replace(/\*+\/\s*$/, '')
      .replace(/^\s*\*(?!\*)\s?/, '')
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

/**
 * A one-line signature: the declaration up to its body (or its first line when it has none), with
 * whitespace collapsed and a trailing `{`, `:` or `;` dropped.
 */
export function signatureOf(node: Node, bodyField = 'body'): string | null {
  const body = node.childForFieldName(bodyField);
  let cut = body && body.startIndex > node.startIndex ? body.startIndex : -1;
  // A comment between the header and the body (Ruby puts class docs there) and a C++ constructor's
  // member initialisers are not part of the signature.
  for (const child of node.children) {
    if (!child || !(child.type.includes('comment') || child.type === 'field_initializer_list')) continue;
    if (child.startIndex > node.startIndex && (cut < 0 || child.startIndex < cut)) cut = child.startIndex;
  }
  let text = cut > 0 ? node.text.slice(0, cut - node.startIndex) : node.text.split('\n')[0];
  text = text.replace(/\s+/g, ' ').replace(/[\s{:;=]+$/, '').trim();
  return text ? (text.length > 240 ? `${text.slice(0, 237)}...` : text) : null;
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
