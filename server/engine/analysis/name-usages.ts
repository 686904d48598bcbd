import type { UsageKind } from './references';

/** One place a file's code names one of the names asked about. */
export interface NameUse {
  name: string; line: number; kind: UsageKind;
  /** The word written before `.`, `::` or `->` (`cobra` of `cobra.Command`), when there is one. */
  qualifier?: string;
}

type Family = 'c' | 'hash' | 'python';

/** How each tree-sitter language writes comments and strings (what is blanked before names are read). */
const FAMILY: Record<string, Family> = {
  go: 'c', rust: 'c', java: 'c', csharp: 'c', c: 'c', cpp: 'c', php: 'c', ruby: 'hash', python: 'python',
};

/** Languages whose uses are read from names in the code (TypeScript and JavaScript are parsed by the compiler). */
export const usesByName = (language: string | null): boolean => language !== null && language in FAMILY;

// Comments and string literals, per family; a character literal is short so a Rust lifetime ('a) is not one.
const C_LIKE = /\/\/[^\n]*|\/\*[\s\S]*?\*\/|"(?:\\[\s\S]|[^"\\\n])*"|`[^`]*`|'(?:\\.[^'\n]{0,8}|[^'\\\n])'/g;
// PHP: `#` comments (not `#[` attributes) and single-quoted strings of any length.
const PHP = /\/\/[^\n]*|#(?!\[)[^\n]*|\/\*[\s\S]*?\*\/|"(?:\\[\s\S]|[^"\\])*"|'(?:\\[\s\S]|[^'\\])*'/g;
const HASH = /=begin[\s\S]*?\n=end|#[^\n]*|"(?:\\[\s\S]|[^"\\])*"|'(?:\\[\s\S]|[^'\\])*'/g;
const PYTHON = /#[^\n]*|[rRbBuUfF]{0,2}("""|''')[\s\S]*?\1|[rRbBuUfF]{0,2}"(?:\\.|[^"\\\n])*"|[rRbBuUfF]{0,2}'(?:\\.|[^'\\\n])*'/g;

/** A Python string that is a type written ahead of its definition: `"ds.Headers"`, `'Optional[Node]'`. */
const ANNOTATION = /^(["'])[A-Za-z_][\w.]*(?:\[[\w.[\], ]*\])?\1$/;

const blank = (m: string) => m.replace(/[^\n]/g, ' ');

/** Calls whose string argument is a type: `cast("Node", x)`, `TypeVar("T", bound="Node")`. */
const TYPE_CALLS = /\b(?:cast|TypeVar|NewType|ForwardRef)\s*$/;

/**
 * Whether the string at `at` of `code` (comments and strings blank) stands where Python reads a type: after
 * `->`, a parameter's or a variable's annotation colon, inside a subscript (`Optional["Node"]`), or as an
 * argument of cast/TypeVar. A string compared, assigned, or in a list or dict literal is a value.
 */
function inTypePosition(code: string, at: number): boolean {
  const before = code.slice(Math.max(0, at - 200), at);
  if (/->\s*$/.test(before)) return true;
  let depth = 0;
  let i = at - 1;
  for (; i >= 0 && at - i < 4000; i--) {
    const c = code[i];
    if (c === ')' || c === ']' || c === '}') depth++;
    else if ((c === '(' || c === '[' || c === '{') && depth-- === 0) break;
  }
  const annotated = /:\s*$/.test(before);
  if (i < 0 || at - i >= 4000) {
    // A statement of its own: `name: "Node" = …` or `self.name: "Node"`.
    return annotated && /^[ \t]*[A-Za-z_][\w.]*\s*:\s*$/.test(before.slice(before.lastIndexOf('\n') + 1));
  }
  const opener = code[i];
  const head = code.slice(Math.max(0, i - 200), i);
  if (opener === '[') return /[\w\])]\s*$/.test(head);
  if (opener !== '(') return false;
  if (TYPE_CALLS.test(head)) return true;
  return annotated && /\bdef\s+\w+\s*$/.test(head);
}

/**
 * Where a Python text writes a type in quotes (`"ds.Headers"`, `'Optional[Node]'`), as [start, end) ranges;
 * with `names`, only the strings that hold one of them (each one found costs a look back at its brackets).
 */
function quotedTypes(text: string, names?: ReadonlySet<string>): [number, number][] {
  const holds = (m: string) => !names || (m.match(/[A-Za-z_]\w*/g) ?? []).some((w) => names.has(w));
  const candidates = [...text.matchAll(PYTHON)].filter((m) => ANNOTATION.test(m[0]) && holds(m[0]));
  if (!candidates.length) return [];
  const code = text.replace(PYTHON, blank);
  return candidates.filter((m) => inTypePosition(code, m.index)).map((m) => [m.index, m.index + m[0].length]);
}

/** The text with comments and strings replaced by spaces (newlines kept, so offsets and lines stay). */
export function codeOnly(language: string, text: string, types?: [number, number][]): string {
  const family = FAMILY[language];
  if (family === 'python') {
    const kept = new Set((types ?? quotedTypes(text)).map(([from]) => from));
    return text.replace(PYTHON, (m, _q, offset: number) => (kept.has(offset) ? m.replace(/['"]/g, ' ') : blank(m)));
  }
  if (family === 'hash') return text.replace(HASH, blank);
  return text.replace(language === 'php' ? PHP : C_LIKE, blank);
}

/**
 * A Python import statement (`import a.b`, `from x import (A,\n B)`, a `\` continuation) or a change to `__all__`
 * (`__all__ = [...]`, `+=`, `.extend(...)`), read from code whose comments and strings are blank (a quoted name is
 * kept: it looks like a type): the names it lists are bound or exported there, not used (kind `reexport`).
 */
const PYTHON_IMPORT = /^[ \t]*(?:from[ \t]+[.\w]+[ \t]+)?import\b[ \t]*(?:\([^)]*\)|(?:\\\r?\n|[^\n])*)/gm;
const PYTHON_ALL = /^__all__[ \t]*(?:\+?=|\.(?:extend|append)[ \t]*\()[ \t]*(?:\[[^\]]*\]|\([^)]*\)|[^\n]*)/gm;

/** Words before a name that make it a declaration, not a use (`func Name(`, `def name`, `class Name`). */
const DECLARES = /(?:\b(?:func|function|def|fn|class|struct|enum|trait|type|interface|module|union|macro_rules!)\s+|\bfunc\s*\([^)\n]*\)\s*)$/;

/**
 * Where a file's code (comments and strings left out) names one of `names`. `qualified`: only a name
 * written after `.` or `::` counts (a Go file of another package reaches a package's names as
 * `pkg.Name`; a bare `Name` there is its own). A name written where it is declared is not a use.
 * Syntax only, as the TypeScript side is: a local name that shadows one of `names` is not told apart.
 */
export function findNameUses(language: string, text: string, names: ReadonlySet<string>, qualified = false): NameUse[] {
  if (!names.size) return [];
  const types = language === 'python' ? quotedTypes(text, names) : [];
  const code = codeOnly(language, text, types);
  const imports = language === 'python' ? [...code.matchAll(PYTHON_IMPORT), ...code.matchAll(PYTHON_ALL)].map((m) => [m.index, m.index + m[0].length]) : [];
  const inImport = (at: number) => imports.some(([from, to]) => at > from && at < to);
  // `from x import gettext_lazy as _`: the file's code names gettext_lazy `_`.
  const aliasOf = new Map<string, string>();
  for (const [from, to] of imports) {
    for (const a of code.slice(from, to).matchAll(/\b([A-Za-z_]\w*)\s+as\s+([A-Za-z_]\w*)/g)) if (names.has(a[1]) && !names.has(a[2])) aliasOf.set(a[2], a[1]);
  }
  const out: NameUse[] = [];
  const word = /[A-Za-z_][A-Za-z0-9_]*/g;
  let line = 1;
  let lineStart = 0;
  for (let m = word.exec(code); m; m = word.exec(code)) {
    const name = names.has(m[0]) ? m[0] : aliasOf.get(m[0]);
    if (name === undefined) continue;
    const at = m.index;
    const alias = name !== m[0];
    if (alias && (inImport(at) || /\.\s*$/.test(code.slice(Math.max(0, at - 40), at)))) continue;
    for (let nl = code.indexOf('\n', lineStart); nl !== -1 && nl < at; nl = code.indexOf('\n', lineStart)) { line++; lineStart = nl + 1; }
    const before = code.slice(Math.max(lineStart, at - 80), at);
    const afterDot = /(?:\.|::|->)\s*$/.test(before);
    if (qualified && !afterDot) continue;
    if (!afterDot && DECLARES.test(before)) continue;
    if (language === 'php' && code[at - 1] === '$') continue; // a PHP variable, not a function or class
    const quotedType = types.some(([from, to]) => at > from && at < to);
    const use: NameUse = { name, line, kind: inImport(at) ? 'reexport' : quotedType ? 'type' : kindAt(code, at, m[0].length, before) };
    const qualifier = afterDot ? /(\w+)\s*(?:\.|::|->)\s*$/.exec(before)?.[1] : undefined;
    if (qualifier) use.qualifier = qualifier;
    out.push(use);
  }
  return out;
}

function kindAt(code: string, at: number, length: number, before: string): UsageKind {
  const after = code.slice(at + length, at + length + 12);
  if (/\bnew\s+$/.test(before) || /^\s*(?:\.new\b|::new\s*\(|\{)/.test(after)) return 'new';
  if (/^\s*\(/.test(after)) return 'call';
  if (/^\s*=[^=>~]/.test(after)) return 'write';
  return 'read';
}
