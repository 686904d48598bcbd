/**
 * What is at a position of a source text, from the language's own parser: an identifier (and
 * whether it names a property or a binding), a string literal, a comment, or something else. Hover
 * uses it so that a word inside a comment or a string is never taken for a symbol. TypeScript and
 * JavaScript go through the TypeScript parser; the tree-sitter languages through their grammar.
 */
import ts from 'typescript';
import { treeSitterGrammar } from '../indexer/parse-tree-sitter';
import { loadGrammar } from '../indexer/tree-sitter/runtime';
import { componentScript } from '../indexer/parse-component';
import { isComponentLanguage } from '../indexer/languages';

export type Token =
  /** `member`: a property or member name (`a.b`, `{ b: 1 }`, a method): not a top-level binding. */
  | { kind: 'identifier'; text: string; start: number; end: number; member: boolean }
  | { kind: 'string'; text: string; start: number; end: number }
  | { kind: 'comment' | 'other' };

/** Offsets are UTF-16 code units into `text`, as LSP positions count them. */
export async function tokenAt(language: string | null, text: string, offset: number): Promise<Token> {
  if (language === 'typescript' || language === 'javascript') return scriptTokenAt(text, offset, language);
  if (isComponentLanguage(language)) {
    // A component's scripts in place (the rest blanked): inside one, TypeScript's token; in the template, nothing.
    const script = componentScript(text);
    return script[offset] === text[offset] && /\S/.test(text[offset] ?? '') ? scriptTokenAt(script, offset, 'typescript') : { kind: 'other' };
  }
  const grammar = language ? treeSitterGrammar(language) : undefined;
  if (grammar) return treeSitterTokenAt(grammar, text, offset);
  return { kind: 'other' };
}

function scriptTokenAt(text: string, offset: number, language: string): Token {
  const source = ts.createSourceFile('hover.tsx', text, ts.ScriptTarget.Latest, true, language === 'typescript' ? ts.ScriptKind.TSX : ts.ScriptKind.JSX);
  // The innermost node whose text (not its leading trivia: comments and space) holds the offset.
  let node: ts.Node = source;
  for (;;) {
    const children = node.getChildren(source);
    const child = children.find((c) => c.getStart(source) <= offset && offset <= c.getEnd() && c.kind !== ts.SyntaxKind.EndOfFileToken);
    if (!child) {
      // Between tokens: in the leading trivia of the child that follows (comments are only there).
      const next = children.find((c) => c.pos <= offset && offset < c.getStart(source));
      const comments = next ? [...ts.getLeadingCommentRanges(text, next.pos) ?? [], ...ts.getTrailingCommentRanges(text, next.pos) ?? []] : [];
      if (node === source || comments.some((r) => r.pos <= offset && offset < r.end) || node.getChildCount(source) > 0) {
        return { kind: comments.some((r) => r.pos <= offset && offset < r.end) ? 'comment' : 'other' };
      }
      break;
    }
    node = child;
  }
  const start = node.getStart(source);
  const end = node.getEnd();
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return { kind: 'string', text: node.text, start: start + 1, end: end - 1 };
  if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) return { kind: 'identifier', text: node.text, start, end, member: isMemberName(node) };
  if (node.kind >= ts.SyntaxKind.FirstTemplateToken && node.kind <= ts.SyntaxKind.LastTemplateToken) return { kind: 'string', text: '', start, end };
  return { kind: 'other' };
}

/** `b` in `a.b`, `{ b: 1 }`, `class { b() {} }`, `a?.b`, `<X b="" />`: names that are not bindings of the file. */
function isMemberName(node: ts.Identifier | ts.PrivateIdentifier): boolean {
  const parent = node.parent;
  if (!parent) return false;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return true;
  if (ts.isQualifiedName(parent) && parent.right === node) return true;
  if ((ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isMethodDeclaration(parent) || ts.isPropertySignature(parent)
    || ts.isMethodSignature(parent) || ts.isGetAccessor(parent) || ts.isSetAccessor(parent) || ts.isEnumMember(parent)
    || ts.isJsxAttribute(parent) || ts.isBindingElement(parent)) && parent.name === node) {
    // `{ a }` destructuring binds `a`; `{ a: b }` binds `b`, and `a` is a member name.
    return !(ts.isBindingElement(parent) && !parent.propertyName);
  }
  if (ts.isBindingElement(parent) && parent.propertyName === node) return true;
  return false;
}

const COMMENT = /comment/;
const STRING = /string|char_literal|heredoc|raw_string/;
const IDENTIFIER = /identifier$|^name$|^constant$|^type_identifier$/;
const MEMBER = /^(field_identifier|property_identifier)$/;

async function treeSitterTokenAt(grammarName: string, text: string, offset: number): Promise<Token> {
  const grammar = await loadGrammar(grammarName);
  const tree = grammar.parser.parse(text);
  if (!tree) return { kind: 'other' };
  try {
    const before = text.slice(0, offset);
    const row = before.split('\n').length - 1;
    const column = Buffer.byteLength(before.slice(before.lastIndexOf('\n') + 1), 'utf8');
    const node = tree.rootNode.descendantForPosition({ row, column });
    // A string's content node sits inside the string node: look up a few levels for either kind.
    for (let n = node, i = 0; n && i < 4; n = n.parent, i++) {
      if (COMMENT.test(n.type)) return { kind: 'comment' };
      if (STRING.test(n.type)) {
        const raw = n.text;
        const quote = /^[a-zA-Z]*("""|'''|["'`])/.exec(raw);
        const open = quote ? quote[0].length : 0;
        const close = quote ? quote[1].length : 0;
        const startOffset = offsetOf(text, n.startPosition);
        return { kind: 'string', text: raw.slice(open, raw.length - close), start: startOffset + open, end: startOffset + raw.length - close };
      }
    }
    if (!node) return { kind: 'other' };
    if (IDENTIFIER.test(node.type) || MEMBER.test(node.type)) {
      const startOffset = offsetOf(text, node.startPosition);
      // Python's `a.b`: `b` is an identifier under an `attribute` node, a member name like JavaScript's.
      const member = MEMBER.test(node.type) || (node.parent?.type === 'attribute' && node.parent.childForFieldName('attribute')?.equals(node)) === true;
      const name = text.slice(startOffset).match(/^[\p{L}\p{N}_$]+/u)?.[0] ?? '';
      return { kind: 'identifier', text: name, start: startOffset, end: startOffset + name.length, member };
    }
    return { kind: 'other' };
  } finally {
    tree.delete();
  }
}

function offsetOf(text: string, position: { row: number; column: number }): number {
  const start = lineStart(text, position.row);
  return start + charsIn(text, start, position.column);
}

function lineStart(text: string, row: number): number {
  let at = 0;
  for (let r = 0; r < row; r++) at = text.indexOf('\n', at) + 1;
  return at;
}

/** UTF-16 units of `text` from `from` that make `bytes` UTF-8 bytes (tree-sitter columns count bytes). */
function charsIn(text: string, from: number, bytes: number): number {
  let i = from;
  for (let b = 0; b < bytes && i < text.length; i++) {
    const code = text.codePointAt(i)!;
    b += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (code >= 0x10000) i++;
  }
  return i - from;
}
