/**
 * Finds the lines ripgrep would print for one file's text. Pure and synchronous: it runs inside the
 * grep workers (where a runaway regex can be killed) and, for literals, inline.
 *
 * Line mode (ripgrep's default) never lets a match cross a line end. Instead of running the regex on
 * every line, it runs once over the whole text: a match inside one line proves that line; a match
 * that crosses lines only nominates the lines it touches, which are then checked one by one. Any
 * line with a match is nominated this way, because the scan resumes at or before that match.
 * Multi-line mode (the `m` query flag, `rg -U`) returns every line a match touches.
 */

export type GrepMatcher =
  | { kind: 'literal'; text: string }
  | { kind: 'regex'; exact: string; native: string; flags: string; nativeFlags: string; multiline: boolean };

export interface GrepLine {
  /** 1-based. */
  line: number;
  /** The line without its `\n` (a `\r` stays, as ripgrep prints it). */
  text: string;
  /** [start, end) UTF-16 offsets of the matches within the line. */
  ranges: [number, number][];
}

const UNUSUAL_LINE_ENDS = /[\r\u2028\u2029]/;

export interface CompiledMatcher {
  scan(text: string, maxLines: number): GrepLine[];
}

export function compileMatcher(m: GrepMatcher): CompiledMatcher {
  if (m.kind === 'literal') return { scan: (text, max) => scanLiteral(stripBom(text), m.text, max) };
  const exact = new RegExp(m.exact, m.flags);
  const native = new RegExp(m.native, m.nativeFlags);
  return {
    scan(raw, max) {
      const text = stripBom(raw);
      // JavaScript's ^ $ . also treat \r, U+2028 and U+2029 as line ends; only text free of them may use them.
      const re = UNUSUAL_LINE_ENDS.test(text) ? exact : native;
      return m.multiline ? scanMultiline(text, re, max) : scanLines(text, re, max);
    },
  };
}

// ripgrep decodes a UTF-8 byte-order mark away.
const stripBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

class LineIndex {
  private starts: number[] | null = null;
  constructor(private readonly text: string) {}
  private get all(): number[] {
    if (!this.starts) {
      const s = [0];
      for (let i = this.text.indexOf('\n'); i !== -1; i = this.text.indexOf('\n', i + 1)) s.push(i + 1);
      this.starts = s;
    }
    return this.starts;
  }
  /** 0-based line of an offset. */
  lineOf(offset: number): number {
    const s = this.all;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid] <= offset) lo = mid; else hi = mid - 1;
    }
    return lo;
  }
  start(line: number): number { return this.all[line]; }
  end(line: number): number {
    const next = this.all[line + 1];
    return next === undefined ? this.text.length : next - 1;
  }
  get count(): number {
    // A trailing newline does not start a line ripgrep would print.
    const s = this.all;
    return s[s.length - 1] === this.text.length && s.length > 1 ? s.length - 1 : s.length;
  }
}

function scanLiteral(text: string, needle: string, max: number): GrepLine[] {
  const out: GrepLine[] = [];
  let from = 0;
  // Newlines are counted as the scan moves forward, so the whole scan stays linear.
  let counted = 0;
  let lineNo = 0;
  while (out.length < max) {
    const at = text.indexOf(needle, from);
    if (at === -1) break;
    const lineStart = text.lastIndexOf('\n', at - 1) + 1;
    for (let i = text.indexOf('\n', counted); i !== -1 && i < lineStart; i = text.indexOf('\n', i + 1)) lineNo++;
    counted = lineStart;
    let lineEnd = text.indexOf('\n', at);
    if (lineEnd === -1) lineEnd = text.length;
    const line = text.slice(lineStart, lineEnd);
    const ranges: [number, number][] = [];
    for (let p = line.indexOf(needle); p !== -1; p = line.indexOf(needle, p + needle.length)) ranges.push([p, p + needle.length]);
    out.push({ line: lineNo + 1, text: line, ranges });
    from = lineEnd + 1;
  }
  return out;
}

function rangesInLine(re: RegExp, line: string): [number, number][] {
  const ranges: [number, number][] = [];
  re.lastIndex = 0;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    const start = m.index;
    const end = start + m[0].length;
    ranges.push([start, end]);
    if (end === start) re.lastIndex = end + (isHighSurrogate(line, end) ? 2 : 1);
    if (re.lastIndex > line.length) break;
  }
  return ranges;
}

const isHighSurrogate = (s: string, i: number) => {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff;
};

function scanLines(text: string, re: RegExp, max: number): GrepLine[] {
  const lines = new LineIndex(text);
  const nominated = new Set<number>();
  let proven = 0;
  re.lastIndex = 0;
  while (re.lastIndex <= text.length) {
    const m = re.exec(text);
    if (!m) break;
    const start = m.index;
    const end = start + m[0].length;
    const first = lines.lineOf(start);
    const last = end > start ? lines.lineOf(end - 1) : first;
    if (first === last && !(end > start && text.charCodeAt(end - 1) === 10)) {
      if (!nominated.has(first)) proven++;
      nominated.add(first);
      if (proven >= max) break;
      // The line is proven; further matches on it only matter for highlighting, done per line below.
      const next = lines.end(first) + 1;
      re.lastIndex = next;
      if (next > text.length) break;
    } else {
      for (let l = first; l <= last; l++) nominated.add(l);
      re.lastIndex = end > start ? end : start + 1;
    }
  }
  const out: GrepLine[] = [];
  for (const l of [...nominated].sort((a, b) => a - b)) {
    if (l >= lines.count) continue;
    const line = text.slice(lines.start(l), lines.end(l));
    const ranges = rangesInLine(re, line);
    if (ranges.length) out.push({ line: l + 1, text: line, ranges });
    if (out.length >= max) break;
  }
  return out;
}

function scanMultiline(text: string, re: RegExp, max: number): GrepLine[] {
  const lines = new LineIndex(text);
  const byLine = new Map<number, [number, number][]>();
  re.lastIndex = 0;
  while (re.lastIndex <= text.length) {
    const m = re.exec(text);
    if (!m) break;
    const start = m.index;
    const end = start + m[0].length;
    const first = lines.lineOf(start);
    const last = end > start ? lines.lineOf(end - 1) : first;
    for (let l = first; l <= last; l++) {
      const ls = lines.start(l);
      const le = lines.end(l);
      const r: [number, number] = [Math.max(start, ls) - ls, Math.min(end, le) - ls];
      const list = byLine.get(l) ?? [];
      list.push(r);
      byLine.set(l, list);
    }
    if (byLine.size > max * 4) break;
    if (end === start) re.lastIndex = end + (isHighSurrogate(text, end) ? 2 : 1);
  }
  return [...byLine.keys()].filter((l) => l < lines.count).sort((a, b) => a - b).slice(0, max)
    .map((l) => ({ line: l + 1, text: text.slice(lines.start(l), lines.end(l)), ranges: byLine.get(l)! }));
}
