/**
 * grep_code promises ripgrep's answers, so a `/pattern/flags` query is read as ripgrep reads it
 * (Rust `regex` syntax, Unicode-aware classes, `^`/`$` at `\n` only) and translated into an
 * equivalent JavaScript RegExp (`u` flag). What Rust's engine refuses (look-around, back-references,
 * scoped flags we cannot express) is refused here too, with the rule named. The translation also
 * yields the literals a file must contain to hold a match (regex-plan.ts), which pick candidate files
 * from the trigram index and give the scanner strings to look for.
 */
import { literalQuery, planChars, type LiteralQuery, type PlanNode } from './regex-plan';

export interface RegexOptions {
  ignoreCase: boolean;
  /** `.` also matches `\n` ((?s) or the `s` query flag). */
  dotAll: boolean;
  /**
   * Multi-line search (`rg -U`). Without it ripgrep matches each line on its own, so `\A` and `\z`
   * are the line's start and end, as `^` and `$` are.
   */
  multiline?: boolean;
}

export interface TranslatedRegex {
  /** Exact translation: anchors and `.` treat only `\n` as a line end, as ripgrep does. */
  exact: string;
  /** Faster translation using JavaScript's own `^`/`$`/`.`; equal to `exact` on text without `\r`, U+2028, U+2029. */
  native: string;
  flags: string;
  nativeFlags: string;
  /** Literals a file holding a match contains: every one of some list (null when nothing narrows). */
  literals: LiteralQuery;
}

export class RegexSyntaxError extends Error {}

const WORD = '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}';
const SPACE = '\\p{White_Space}';
const DIGIT = '\\p{Nd}';
// Characters JavaScript lets you escape under the `u` flag; any other escaped punctuation is a plain character.
const JS_SYNTAX = new Set('^$\\.*+?()[]{}|/'.split(''));
const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', ascii: '\\x00-\\x7F', blank: '\\t ', cntrl: '\\x00-\\x1F\\x7F', digit: '0-9',
  graph: '!-~', lower: 'a-z', print: ' -~', punct: '!-\\/:-@\\[-`{-~', space: '\\t\\n\\v\\f\\r ', upper: 'A-Z',
  word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f',
};

// Line start and end as ripgrep sees them (\n only), for the exact translation (no `m` flag: ^ and $
// are the text's ends). Not (?<![^\n]): V8 lets a negative look-around succeed between the two halves
// of a surrogate pair, so that one matched inside every emoji.
const LINE_START = '(?:^|(?<=\\n))';
const LINE_END = '(?:$|(?=\\n))';

const RUST_ESCAPABLE = new Set('\\.+*?()|[]{}^$#&-~ '.split(''));
const escapeChar = (c: string) => (JS_SYNTAX.has(c) ? `\\${c}` : c);

/** Parses Rust regex syntax into JavaScript sources plus the literals every match needs. */
export function translateRustRegex(pattern: string, options: RegexOptions): TranslatedRegex {
  let ignoreCase = options.ignoreCase;
  let dotAll = options.dotAll;
  let i = 0;
  // Leading global flag groups such as (?i) or (?is) are how ripgrep users write flags inline.
  for (let lead = /^\(\?([a-zA-Z-]+)\)/.exec(pattern); lead; lead = /^\(\?([a-zA-Z-]+)\)/.exec(pattern.slice(i))) {
    let on = true;
    for (const f of lead[1]) {
      if (f === '-') on = false;
      else if (f === 'i') ignoreCase = on;
      else if (f === 's') dotAll = on;
      else if (f === 'm' || f === 'u') { if (!on) throw new RegexSyntaxError(`the flag (?-${f}) is not supported`); }
      else throw new RegexSyntaxError(`the inline flag ${f} is not supported (use i, s or m)`);
    }
    i += lead[0].length;
  }

  let exact = '';
  let native = '';
  // Where the last atom starts in each translation (to group it when a quantifier is quantified again).
  let atomStart: [number, number] = [0, 0];
  const groupStarts: [number, number][] = [];
  let lastWasQuantifier = false;
  const emit = (both: string, nat = both) => { exact += both; native += nat; canRepeat = true; };
  const mark = () => { atomStart = [exact.length, native.length]; lastWasQuantifier = false; };
  let canRepeat = false;
  // \A or \z in multi-line mode: the text's ends, which only the exact translation (no `m` flag) has.
  let textAnchor = false;
  // The pattern's structure for the literal planner: per open group, its alternatives so far.
  const groups: PlanNode[][][] = [[[]]];
  const sequence = () => { const alts = groups[groups.length - 1]; return alts[alts.length - 1]; };
  const EMPTY: PlanNode = { kind: 'empty' };
  const ANY: PlanNode = { kind: 'char', set: null };
  const literal = (c: string) => {
    mark();
    emit(escapeChar(c));
    sequence().push(planChars([c], ignoreCase));
  };
  const atom = (plan: PlanNode, both: string, nat = both) => { mark(); emit(both, nat); sequence().push(plan); };

  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') {
      const { js, literalChar, length, assertion } = readEscape(pattern, i, false);
      const anchor = pattern[i + 1] === 'A' || pattern[i + 1] === 'z' ? pattern[i + 1] : null;
      i += length;
      if (literalChar !== undefined) literal(literalChar);
      else if (anchor && !options.multiline) atom(EMPTY, anchor === 'A' ? LINE_START : LINE_END, anchor === 'A' ? '^' : '$');
      else if (anchor) { textAnchor = true; atom(EMPTY, anchor === 'A' ? '^' : '$'); }
      else atom(assertion ? EMPTY : ANY, js);
      continue;
    }
    if (c === '[') {
      const { js, length, chars } = readClass(pattern, i);
      i += length;
      atom(planChars(chars, ignoreCase), js);
      continue;
    }
    if (c === '(') {
      if (pattern.startsWith('(?=', i) || pattern.startsWith('(?!', i) || pattern.startsWith('(?<=', i) || pattern.startsWith('(?<!', i)) {
        throw new RegexSyntaxError('look-around is not supported');
      }
      let open = '(';
      let length = 1;
      if (pattern.startsWith('(?:', i)) { open = '(?:'; length = 3; }
      else if (pattern.startsWith('(?P<', i) || pattern.startsWith('(?<', i)) {
        const nameStart = pattern.indexOf('<', i) + 1;
        const close = pattern.indexOf('>', nameStart);
        const name = close < 0 ? '' : pattern.slice(nameStart, close);
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new RegexSyntaxError('invalid capture group name');
        open = `(?<${name}>`;
        length = close + 1 - i;
      } else if (pattern[i + 1] === '?') {
        throw new RegexSyntaxError('scoped inline flags such as (?i:...) are not supported; put (?i) at the start or use /pattern/i');
      }
      groupStarts.push([exact.length, native.length]);
      lastWasQuantifier = false;
      emit(open);
      groups.push([[]]);
      canRepeat = false;
      i += length;
      continue;
    }
    if (c === ')') {
      if (groups.length === 1) throw new RegexSyntaxError('unopened group');
      const alts = groups.pop()!;
      sequence().push({ kind: 'alt', items: alts.map((items): PlanNode => ({ kind: 'concat', items })) });
      atomStart = groupStarts.pop()!;
      lastWasQuantifier = false;
      emit(')');
      canRepeat = true;
      i++;
      continue;
    }
    if (c === '|') {
      lastWasQuantifier = false;
      emit('|');
      groups[groups.length - 1].push([]);
      canRepeat = false;
      i++;
      continue;
    }
    if (c === '*' || c === '+' || c === '?' || c === '{') {
      const q = readQuantifier(pattern, i);
      if (!q && c === '{' && canRepeat) throw new RegexSyntaxError('repetition quantifier expects a valid decimal');
      if (!q || (!canRepeat && !lastWasQuantifier)) throw new RegexSyntaxError('repetition operator missing expression');
      if (lastWasQuantifier) {
        // Rust accepts a quantified quantifier (a**); JavaScript needs the inner one grouped.
        exact = `${exact.slice(0, atomStart[0])}(?:${exact.slice(atomStart[0])})`;
        native = `${native.slice(0, atomStart[1])}(?:${native.slice(atomStart[1])})`;
      }
      emit(q.text);
      lastWasQuantifier = true;
      const seq = sequence();
      seq.push({ kind: 'repeat', item: seq.pop()!, min: q.min, max: q.max });
      canRepeat = false;
      i += q.text.length;
      continue;
    }
    if (c === '.') { atom(ANY, dotAll ? '[^]' : '[^\\n]', dotAll ? '[^]' : '.'); i++; continue; }
    if (c === '^') { atom(EMPTY, LINE_START, '^'); i++; continue; }
    if (c === '$') { atom(EMPTY, LINE_END, '$'); i++; continue; }
    const cp = pattern.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    literal(ch);
    i += ch.length;
  }
  if (groups.length > 1) throw new RegexSyntaxError('unclosed group');
  const flags = `gu${ignoreCase ? 'i' : ''}`;
  if (textAnchor) native = exact;
  const nativeFlags = textAnchor ? flags : `${flags}m`;
  // Check both compile (a translation bug must surface as a clear error, not a 500).
  try {
    new RegExp(exact, flags);
    new RegExp(native, nativeFlags);
  } catch (error) {
    throw new RegexSyntaxError((error as Error).message.replace(/^Invalid regular expression: /, ''));
  }
  const root: PlanNode = { kind: 'alt', items: groups[0].map((items): PlanNode => ({ kind: 'concat', items })) };
  return { exact, native, flags, nativeFlags, literals: literalQuery(root) };
}

function readQuantifier(p: string, i: number): { text: string; min: number; max: number } | null {
  let text: string;
  let min: number;
  let max: number;
  if (p[i] === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
    if (!m) return null;
    text = m[0];
    min = Number(m[1]);
    max = m[2] === undefined ? min : m[3] ? Number(m[3]) : Infinity;
    if (max < min) throw new RegexSyntaxError('invalid repetition range');
  } else {
    text = p[i];
    min = p[i] === '+' ? 1 : 0;
    max = p[i] === '?' ? 1 : Infinity;
  }
  if (p[i + text.length] === '?') text += '?';
  return { text, min, max };
}

/** One escape sequence, outside (`inClass` false) or inside a character class. */
function readEscape(p: string, i: number, inClass: boolean): { js: string; literalChar?: string; length: number; assertion?: boolean } {
  const c = p[i + 1];
  if (c === undefined) throw new RegexSyntaxError('incomplete escape sequence at the end');
  const classy = (content: string, negated: boolean) => (inClass ? content : negated ? `[^${content}]` : `[${content}]`);
  switch (c) {
    case 'd': return { js: DIGIT, length: 2 };
    case 'D': return { js: '\\P{Nd}', length: 2 };
    case 's': return { js: inClass ? SPACE : SPACE, length: 2 };
    case 'S': return { js: '\\P{White_Space}', length: 2 };
    case 'w': return { js: classy(WORD, false), length: 2 };
    case 'W':
      if (inClass) throw new RegexSyntaxError('\\W inside a character class is not supported');
      return { js: classy(WORD, true), length: 2 };
    case 'n': return { js: '\\n', literalChar: '\n', length: 2 };
    case 't': return { js: '\\t', literalChar: '\t', length: 2 };
    case 'r': return { js: '\\r', literalChar: '\r', length: 2 };
    case 'f': return { js: '\\f', literalChar: '\f', length: 2 };
    case 'v': return { js: '\\v', literalChar: '\v', length: 2 };
    case 'a': return { js: '\\x07', literalChar: '\x07', length: 2 };
    case 'x': {
      const braced = /^\\x\{([0-9A-Fa-f]{1,6})\}/.exec(p.slice(i));
      const short = /^\\x([0-9A-Fa-f]{2})/.exec(p.slice(i));
      const m = braced ?? short;
      if (!m) throw new RegexSyntaxError('invalid hexadecimal escape');
      const cp = parseInt(m[1], 16);
      if (cp > 0x10ffff) throw new RegexSyntaxError('hexadecimal escape out of range');
      return { js: `\\u{${cp.toString(16)}}`, literalChar: String.fromCodePoint(cp), length: m[0].length };
    }
    case 'p': case 'P': {
      const m = /^\\[pP](\{([^}]*)\}|([A-Za-z]))/.exec(p.slice(i));
      if (!m) throw new RegexSyntaxError('invalid Unicode class');
      const name = m[2] ?? m[3];
      return { js: `\\${c}{${unicodeProperty(name)}}`, length: m[0].length };
    }
    default:
      if (!inClass && (c === 'b' || c === 'B' || c === 'A' || c === 'z')) {
        const w = `[${WORD}]`;
        const js = {
          b: `(?:(?<=${w})(?!${w})|(?<!${w})(?=${w}))`,
          B: `(?:(?<=${w})(?=${w})|(?<!${w})(?!${w}))`,
          A: '^',
          z: '$',
        }[c];
        return { js, length: 2, assertion: true };
      }
      if (/[0-9]/.test(c)) throw new RegexSyntaxError('back-references are not supported');
      // Rust lets only its meta characters be escaped; anything else is an error there too.
      if (!RUST_ESCAPABLE.has(c)) throw new RegexSyntaxError(`unrecognized escape sequence \\${c}`);
      return { js: escapeChar(c), literalChar: c, length: 2 };
  }
}

function unicodeProperty(name: string): string {
  const short: Record<string, string> = { L: 'L', M: 'M', N: 'N', P: 'P', S: 'S', Z: 'Z', C: 'C' };
  if (short[name]) return short[name];
  const candidates = [name, `Script=${name}`, `General_Category=${name}`];
  for (const candidate of candidates) {
    try { new RegExp(`\\p{${candidate}}`, 'u'); return candidate; } catch { /* try the next spelling */ }
  }
  throw new RegexSyntaxError(`unknown Unicode class ${name}`);
}

/**
 * A bracketed class, Rust style: `]` first is literal, POSIX classes allowed, nested sets refused.
 * `chars` lists its characters when it is made of plain characters and ranges only (for the planner).
 */
function readClass(p: string, start: number): { js: string; length: number; chars: string[] | null } {
  let i = start + 1;
  let out = '[';
  // The class as plain characters (code points) and range dashes; null once it holds anything else.
  let items: (number | '-')[] | null = [];
  if (p[i] === '^') { out += '^'; i++; items = null; }
  let first = true;
  for (;;) {
    if (i >= p.length) throw new RegexSyntaxError('unclosed character class');
    const c = p[i];
    if (c === ']' && !first) { i++; break; }
    first = false;
    if (c === '[') {
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(p.slice(i));
      if (!posix) throw new RegexSyntaxError('nested character classes are not supported');
      const set = POSIX[posix[2]];
      if (!set) throw new RegexSyntaxError(`unknown POSIX class ${posix[2]}`);
      if (posix[1]) throw new RegexSyntaxError('negated POSIX classes are not supported');
      out += set;
      i += posix[0].length;
      items = null;
      continue;
    }
    if ((c === '&' && p[i + 1] === '&') || (c === '-' && p[i + 1] === '-') || (c === '~' && p[i + 1] === '~')) {
      throw new RegexSyntaxError('character class set operations are not supported');
    }
    if (c === '\\') {
      const e = readEscape(p, i, true);
      out += e.literalChar !== undefined ? classChar(e.literalChar) : e.js;
      if (e.literalChar === undefined) items = null;
      else items?.push(e.literalChar.codePointAt(0)!);
      i += e.length;
      continue;
    }
    const ch = String.fromCodePoint(p.codePointAt(i)!);
    out += ch === '-' ? '-' : classChar(ch); // a raw '-' is Rust's range operator too
    items?.push(ch === '-' ? '-' : ch.codePointAt(0)!);
    i += ch.length;
  }
  if (out === '[' || out === '[^') throw new RegexSyntaxError('empty character class');
  return { js: `${out}]`, length: i - start, chars: items && classChars(items) };
}

/** The characters of a class given as characters and dashes (a dash between two characters is a range), if few. */
function classChars(items: (number | '-')[]): string[] | null {
  const out: string[] = [];
  for (let k = 0; k < items.length; k++) {
    const lo = items[k];
    const hi = items[k + 2];
    if (lo !== '-' && items[k + 1] === '-' && hi !== undefined && hi !== '-') {
      if (hi - lo > 64) return null;
      for (let c = lo; c <= hi; c++) out.push(String.fromCodePoint(c));
      k += 2;
    } else {
      out.push(lo === '-' ? '-' : String.fromCodePoint(lo));
    }
  }
  return out;
}

const classChar = (c: string) => (']\\[^/-'.includes(c) ? `\\${c}` : c === '\n' ? '\\n' : c);
