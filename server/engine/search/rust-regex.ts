/**
 * grep_code promises ripgrep's answers, so a `/pattern/flags` query is read as ripgrep reads it
 * (Rust `regex` syntax, Unicode-aware classes, `^`/`$` at `\n` only) and translated into an
 * equivalent JavaScript RegExp (`u` flag). What Rust's engine refuses (look-around, back-references,
 * scoped flags we cannot express) is refused here too, with the rule named. The translation also
 * yields the literal runs every match must contain, which pick candidate files from the trigram index.
 */

export interface RegexOptions {
  ignoreCase: boolean;
  /** `.` also matches `\n` ((?s) or the `s` query flag). */
  dotAll: boolean;
}

export interface TranslatedRegex {
  /** Exact translation: anchors and `.` treat only `\n` as a line end, as ripgrep does. */
  exact: string;
  /** Faster translation using JavaScript's own `^`/`$`/`.`; equal to `exact` on text without `\r`, U+2028, U+2029. */
  native: string;
  flags: string;
  nativeFlags: string;
  /** Substrings every match contains (empty when none can be derived). */
  requiredLiterals: string[];
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
  const literals: string[] = [];
  let run = '';
  let depth = 0;
  let topLevelAlternation = false;
  let canRepeat = false;
  const endRun = () => { if (run) literals.push(run); run = ''; };
  /** Appends a literal character; at top level it joins the current literal run. */
  const literal = (c: string) => {
    mark();
    emit(escapeChar(c));
    if (depth > 0) return;
    const foldsOutsideAscii = ignoreCase && /[ksKS]/.test(c); // K and S have non-ASCII case partners (K, ſ)
    if (c.charCodeAt(0) > 0x7f || c === '\n' || foldsOutsideAscii) endRun();
    else run += c;
  };
  /** Anything that is not a plain literal ends the run (at top level). */
  const atom = (both: string, nat = both) => { mark(); emit(both, nat); if (depth === 0) endRun(); };

  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') {
      const { js, literalChar, length } = readEscape(pattern, i, false);
      i += length;
      if (literalChar !== undefined) literal(literalChar);
      else atom(js);
      continue;
    }
    if (c === '[') {
      const { js, length } = readClass(pattern, i);
      i += length;
      atom(js);
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
      if (depth === 0) endRun();
      depth++;
      canRepeat = false;
      i += length;
      continue;
    }
    if (c === ')') {
      if (depth === 0) throw new RegexSyntaxError('unopened group');
      depth--;
      atomStart = groupStarts.pop()!;
      lastWasQuantifier = false;
      emit(')');
      canRepeat = true;
      i++;
      continue;
    }
    if (c === '|') {
      if (depth === 0) topLevelAlternation = true;
      lastWasQuantifier = false;
      emit('|');
      endRun();
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
      // The quantified atom was the last character of the run: optional → drop it; required → keep, then end.
      if (depth === 0 && run) {
        if (q.min === 0) run = run.slice(0, -1);
        endRun();
      }
      canRepeat = false;
      i += q.text.length;
      continue;
    }
    if (c === '.') { atom(dotAll ? '[^]' : '[^\\n]', dotAll ? '[^]' : '.'); i++; continue; }
    if (c === '^') { atom('(?<![^\\n])', '^'); i++; continue; }
    if (c === '$') { atom('(?![^\\n])', '$'); i++; continue; }
    const cp = pattern.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    literal(ch);
    i += ch.length;
  }
  if (depth > 0) throw new RegexSyntaxError('unclosed group');
  endRun();
  const flags = `gu${ignoreCase ? 'i' : ''}`;
  const nativeFlags = `${flags}m`;
  // Check both compile (a translation bug must surface as a clear error, not a 500).
  try {
    new RegExp(exact, flags);
    new RegExp(native, nativeFlags);
  } catch (error) {
    throw new RegexSyntaxError((error as Error).message.replace(/^Invalid regular expression: /, ''));
  }
  const required = topLevelAlternation ? [] : literals.filter((l) => l.length >= 3);
  return { exact, native, flags, nativeFlags, requiredLiterals: required };
}

function readQuantifier(p: string, i: number): { text: string; min: number } | null {
  let text: string;
  let min: number;
  if (p[i] === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
    if (!m) return null;
    text = m[0];
    min = Number(m[1]);
    if (m[3] && Number(m[3]) < min) throw new RegexSyntaxError('invalid repetition range');
  } else {
    text = p[i];
    min = p[i] === '+' ? 1 : 0;
  }
  if (p[i + text.length] === '?') text += '?';
  return { text, min };
}

/** One escape sequence, outside (`inClass` false) or inside a character class. */
function readEscape(p: string, i: number, inClass: boolean): { js: string; literalChar?: string; length: number } {
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
          A: '(?<![^])',
          z: '(?![^])',
        }[c];
        return { js, length: 2 };
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

/** A bracketed class, Rust style: `]` first is literal, POSIX classes allowed, nested sets refused. */
function readClass(p: string, start: number): { js: string; length: number } {
  let i = start + 1;
  let out = '[';
  if (p[i] === '^') { out += '^'; i++; }
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
      continue;
    }
    if ((c === '&' && p[i + 1] === '&') || (c === '-' && p[i + 1] === '-') || (c === '~' && p[i + 1] === '~')) {
      throw new RegexSyntaxError('character class set operations are not supported');
    }
    if (c === '\\') {
      const e = readEscape(p, i, true);
      out += e.literalChar !== undefined ? classChar(e.literalChar) : e.js;
      i += e.length;
      continue;
    }
    const ch = String.fromCodePoint(p.codePointAt(i)!);
    out += ch === '-' ? '-' : classChar(ch); // a raw '-' is Rust's range operator too
    i += ch.length;
  }
  if (out === '[' || out === '[^') throw new RegexSyntaxError('empty character class');
  return { js: `${out}]`, length: i - start };
}

const classChar = (c: string) => (']\\[^/-'.includes(c) ? `\\${c}` : c === '\n' ? '\\n' : c);
