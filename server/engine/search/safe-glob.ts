/**
 * Path globs from callers (search filters) matched without regular expressions. Glob libraries
 * compile to backtracking RegExps, where `**\/*a*a*a*a*a*a*b` or `{*,*}{*,*}{*,*}x` takes minutes on a
 * 60-character path and blocks the event loop: anyone with a key could stop the server. This matcher
 * is polynomial by construction: a segment is matched with the greedy two-pointer wildcard
 * algorithm (only the last `*` is ever revisited), and `**` blocks are placed leftmost-first, which
 * is exact because a `**` between them absorbs whatever lies in between.
 *
 * Syntax (picomatch's, with `dot: true`): `*` any run within a segment, `?` one character, `[a-z]`,
 * `[!x]`/`[^x]` classes, `**` any number of segments, `{a,b}` and `{1..3}` alternatives, `\x`
 * escapes, a leading `!` negates. Extended globs (`+(a|b)` and friends) are refused.
 */
export class GlobSyntaxError extends Error {}

type Token =
  | { t: 'lit'; c: string }
  | { t: 'any' }
  | { t: 'star' }
  | { t: 'class'; negated: boolean; ranges: [string, string][] };

type Segment = { globstar: true } | { globstar: false; tokens: Token[] };

const MAX_GLOB_LENGTH = 1024;
const MAX_ALTERNATIVES = 256;

export function compileGlob(glob: string): (path: string) => boolean {
  if (glob.length > MAX_GLOB_LENGTH) throw new GlobSyntaxError(`longer than ${MAX_GLOB_LENGTH} characters`);
  let negated = false;
  let source = glob;
  while (source.startsWith('!') && !source.startsWith('!(')) { negated = !negated; source = source.slice(1); }
  if (/(^|[^\\])[?*+@!]\(/.test(source)) throw new GlobSyntaxError('extended globs such as +(a|b) are not supported; use {a,b}');
  const alternatives = expandBraces(source).map(parsePattern);
  return (path: string) => {
    const segments = path.split('/');
    const hit = alternatives.some((p) => matchSegments(p, segments));
    return negated ? !hit : hit;
  };
}

/** `{a,b}` and `{1..3}` expanded, nested ones included, refusing an explosion of alternatives. */
function expandBraces(glob: string): string[] {
  let results = [''];
  let i = 0;
  let literal = '';
  const flush = () => { if (literal) { results = results.map((r) => r + literal); literal = ''; } };
  while (i < glob.length) {
    const c = glob[i];
    if (c === '\\' && i + 1 < glob.length) { literal += glob.slice(i, i + 2); i += 2; continue; }
    if (c === '[') {
      const end = classEnd(glob, i);
      if (end > 0) { literal += glob.slice(i, end + 1); i = end + 1; continue; }
    }
    if (c === '{') {
      const end = braceEnd(glob, i);
      if (end > 0) {
        const body = glob.slice(i + 1, end);
        const options = braceOptions(body);
        if (options) {
          flush();
          const expandedOptions = options.flatMap(expandBraces);
          if (results.length * expandedOptions.length > MAX_ALTERNATIVES) throw new GlobSyntaxError(`expands to more than ${MAX_ALTERNATIVES} alternatives`);
          results = results.flatMap((r) => expandedOptions.map((o) => r + o));
          i = end + 1;
          continue;
        }
      }
    }
    literal += c;
    i++;
  }
  flush();
  return results;
}

function braceEnd(s: string, start: number): number {
  let depth = 0;
  for (let i = start; i < s.length; i++) {
    if (s[i] === '\\') { i++; continue; }
    if (s[i] === '{') depth++;
    else if (s[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

/** The alternatives of a brace body, or null when it is not a brace expression (`{a}` stays literal). */
function braceOptions(body: string): string[] | null {
  const range = /^(-?\d+)\.\.(-?\d+)$/.exec(body) ?? /^([a-zA-Z])\.\.([a-zA-Z])$/.exec(body);
  if (range) {
    const numeric = /\d/.test(range[1]);
    const from = numeric ? Number(range[1]) : range[1].charCodeAt(0);
    const to = numeric ? Number(range[2]) : range[2].charCodeAt(0);
    if (Math.abs(to - from) + 1 > MAX_ALTERNATIVES) throw new GlobSyntaxError(`the range {${body}} has more than ${MAX_ALTERNATIVES} values`);
    const step = from <= to ? 1 : -1;
    const out: string[] = [];
    for (let v = from; v !== to + step; v += step) out.push(numeric ? String(v) : String.fromCharCode(v));
    return out;
  }
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\' && i + 1 < body.length) { current += body.slice(i, i + 2); i++; continue; }
    if (c === '{') depth++;
    if (c === '}') depth--;
    if (c === ',' && depth === 0) { parts.push(current); current = ''; continue; }
    current += c;
  }
  parts.push(current);
  return parts.length > 1 ? parts : null;
}

function classEnd(s: string, start: number): number {
  let i = start + 1;
  if (s[i] === '!' || s[i] === '^') i++;
  if (s[i] === ']') i++;
  for (; i < s.length; i++) {
    if (s[i] === '\\') { i++; continue; }
    if (s[i] === '/') return -1;
    if (s[i] === ']') return i;
  }
  return -1;
}

function parsePattern(glob: string): Segment[] {
  const trimmed = glob.replace(/^\.\//, '');
  return trimmed.split('/').map((part): Segment => (part === '**' ? { globstar: true } : { globstar: false, tokens: tokenize(part) }))
    // Consecutive ** are one **.
    .filter((seg, i, all) => !(seg.globstar && i > 0 && all[i - 1].globstar));
}

function tokenize(part: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < part.length; i++) {
    const c = part[i];
    if (c === '\\' && i + 1 < part.length) { tokens.push({ t: 'lit', c: part[++i] }); continue; }
    if (c === '*') {
      if (tokens[tokens.length - 1]?.t !== 'star') tokens.push({ t: 'star' }); // ** inside a segment is *
      continue;
    }
    if (c === '?') { tokens.push({ t: 'any' }); continue; }
    if (c === '[') {
      const end = classEnd(part, i);
      if (end > 0) { tokens.push(parseClass(part.slice(i + 1, end))); i = end; continue; }
    }
    tokens.push({ t: 'lit', c });
  }
  return tokens;
}

const POSIX: Record<string, [string, string][]> = {
  alnum: [['0', '9'], ['A', 'Z'], ['a', 'z']], alpha: [['A', 'Z'], ['a', 'z']], digit: [['0', '9']],
  lower: [['a', 'z']], upper: [['A', 'Z']], space: [[' ', ' '], ['\t', '\r']], word: [['0', '9'], ['A', 'Z'], ['a', 'z'], ['_', '_']],
  xdigit: [['0', '9'], ['A', 'F'], ['a', 'f']],
};

function parseClass(body: string): Token {
  let i = 0;
  const negated = body[0] === '!' || body[0] === '^';
  if (negated) i++;
  const ranges: [string, string][] = [];
  while (i < body.length) {
    const posix = /^\[:([a-z]+):\]/.exec(body.slice(i));
    if (posix && POSIX[posix[1]]) { ranges.push(...POSIX[posix[1]]); i += posix[0].length; continue; }
    let c = body[i];
    if (c === '\\' && i + 1 < body.length) c = body[++i];
    if (body[i + 1] === '-' && i + 2 < body.length) {
      let d = body[i + 2];
      let skip = 3;
      if (d === '\\' && i + 3 < body.length) { d = body[i + 3]; skip = 4; }
      ranges.push([c, d]);
      i += skip;
      continue;
    }
    ranges.push([c, c]);
    i++;
  }
  return { t: 'class', negated, ranges };
}

function tokenMatches(token: Token, c: string): boolean {
  if (token.t === 'lit') return token.c === c;
  if (token.t === 'any') return true;
  if (token.t === 'class') return token.ranges.some(([a, b]) => c >= a && c <= b) !== token.negated;
  return false;
}

/** One segment against its tokens: the greedy wildcard algorithm, O(len × tokens) at worst. */
function matchSegment(tokens: Token[], text: string): boolean {
  let t = 0;
  let s = 0;
  let starT = -1;
  let starS = 0;
  while (s < text.length) {
    const token = tokens[t];
    if (token && token.t === 'star') { starT = t++; starS = s; continue; }
    if (token && tokenMatches(token, text[s])) { t++; s++; continue; }
    if (starT < 0) return false;
    t = starT + 1;
    s = ++starS;
  }
  while (tokens[t]?.t === 'star') t++;
  return t === tokens.length;
}

function matchBlock(block: Token[][], segments: string[], at: number): boolean {
  for (let k = 0; k < block.length; k++) if (!matchSegment(block[k], segments[at + k])) return false;
  return true;
}

/**
 * Segment patterns between `**` form blocks. The first and last block are anchored; the others
 * are placed at their leftmost fit, in order: a leftmost fit leaves the most room for the rest.
 */
function matchSegments(pattern: Segment[], segments: string[]): boolean {
  const blocks: Token[][][] = [[]];
  for (const seg of pattern) {
    if (seg.globstar) blocks.push([]);
    else blocks[blocks.length - 1].push(seg.tokens);
  }
  if (blocks.length === 1) return blocks[0].length === segments.length && matchBlock(blocks[0], segments, 0);
  const first = blocks[0];
  const last = blocks[blocks.length - 1];
  if (first.length + last.length > segments.length) return false;
  if (!matchBlock(first, segments, 0)) return false;
  const end = segments.length - last.length;
  if (!matchBlock(last, segments, end)) return false;
  let pos = first.length;
  for (const block of blocks.slice(1, -1)) {
    let found = -1;
    for (let at = pos; at + block.length <= end; at++) {
      if (matchBlock(block, segments, at)) { found = at; break; }
    }
    if (found < 0) return false;
    pos = found + block.length;
  }
  return true;
}
