/**
 * Finds the lines ripgrep would print for one file's text. Pure and synchronous: it runs inside the
 * grep workers (where a runaway regex can be killed) and, for literals, inline.
 *
 * Line mode (ripgrep's default) never lets a match cross a line end. Instead of running the regex on
 * every line, it runs once over the whole text: a match inside one line proves that line; a match
 * that crosses lines only nominates the lines it touches, which are then checked one by one. Any
 * line with a match is nominated this way, because the scan resumes at or before that match.
 * Multi-line mode (the `m` query flag, `rg -U`) returns every line a match touches.
 *
 * Files can also be scanned as UTF-8 bytes, when a line-mode regex comes with needles (strings one of
 * which every match contains, regex-plan.ts) or the literal is ASCII: Buffer.indexOf finds the needles
 * (far faster than V8's regex engine finds a literal), and only the lines that hold one are decoded
 * and matched. Decoding a line alone gives what decoding the file gives there: a \n byte is never
 * part of a multi-byte sequence.
 */

export type GrepMatcher =
  | { kind: 'literal'; text: string }
  | {
    kind: 'regex'; exact: string; native: string; flags: string; nativeFlags: string; multiline: boolean;
    /** Line mode only: every match contains one of these (case-sensitive) strings. */
    needles?: string[];
  };

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
  /** `binary`: the text holds a NUL byte that ripgrep stops at in multi-line mode (grep-binary.ts). */
  scan(text: string, maxLines: number, binary?: boolean): GrepLine[];
  /** The same over a file's UTF-8 bytes, when the matcher has needles to look for. */
  scanBytes?(bytes: Buffer, maxLines: number): GrepLine[];
}

export function compileMatcher(m: GrepMatcher): CompiledMatcher {
  if (m.kind === 'literal') {
    const needle = /^[\x00-\x7f]+$/.test(m.text) ? [Buffer.from(m.text)] : null;
    return {
      scan: (text, max) => scanLiteral(stripBom(text), m.text, max),
      ...(needle ? { scanBytes: (bytes, max) => scanNeedleLines(bytes, needle, (line) => literalRanges(line, m.text), max) } : {}),
    };
  }
  const exact = new RegExp(m.exact, m.flags);
  const native = new RegExp(m.native, m.nativeFlags);
  // JavaScript's ^ $ . also treat \r, U+2028 and U+2029 as line ends; only text free of them may use them.
  const regexFor = (text: string) => (UNUSUAL_LINE_ENDS.test(text) ? exact : native);
  const needles = !m.multiline && m.needles?.length ? m.needles.map((n) => Buffer.from(n)) : null;
  return {
    scan(raw, max, binary) {
      const text = stripBom(raw);
      const re = regexFor(text);
      return m.multiline ? scanMultiline(text, re, max, binary) : scanLines(text, re, max);
    },
    ...(needles ? { scanBytes: (bytes, max) => scanNeedleLines(bytes, needles, (line) => rangesInLine(regexFor(line), line), max) } : {}),
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
    out.push({ line: lineNo + 1, text: line, ranges: literalRanges(line, needle) });
    from = lineEnd + 1;
  }
  return out;
}

/**
 * The lines of UTF-8 bytes that hold a needle and have matches (`ranges` of the decoded line). Lines
 * without a needle are neither decoded nor counted until a later line matches.
 */
function scanNeedleLines(bytes: Buffer, needles: Buffer[], ranges: (line: string) => [number, number][], max: number): GrepLine[] {
  const out: GrepLine[] = [];
  // ripgrep decodes a UTF-8 byte-order mark away.
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const next = needles.map((n) => bytes.indexOf(n, start));
  let from = start;
  let counted = start;
  let lineNo = 0;
  while (out.length < max) {
    let at = -1;
    for (let k = 0; k < needles.length; k++) {
      if (next[k] !== -1 && next[k] < from) next[k] = bytes.indexOf(needles[k], from);
      if (next[k] !== -1 && (at === -1 || next[k] < at)) at = next[k];
    }
    if (at === -1) break;
    const lineStart = Math.max(start, bytes.lastIndexOf(10, at) + 1);
    let lineEnd = bytes.indexOf(10, at);
    if (lineEnd === -1) lineEnd = bytes.length;
    const line = bytes.toString('utf8', lineStart, lineEnd);
    const found = ranges(line);
    if (found.length) {
      for (let i = bytes.indexOf(10, counted); i !== -1 && i < lineStart; i = bytes.indexOf(10, i + 1)) lineNo++;
      counted = lineStart;
      out.push({ line: lineNo + 1, text: line, ranges: found });
    }
    from = lineEnd + 1;
  }
  return out;
}

function literalRanges(line: string, needle: string): [number, number][] {
  const ranges: [number, number][] = [];
  for (let p = line.indexOf(needle); p !== -1; p = line.indexOf(needle, p + needle.length)) ranges.push([p, p + needle.length]);
  return ranges;
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

/** `binary`: the text holds a NUL byte; ripgrep stops at the first match whose lines hold one (grep-binary.ts). */
function scanMultiline(text: string, re: RegExp, max: number, binary = false): GrepLine[] {
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
    if (binary) {
      const nul = text.indexOf('\0', lines.start(first));
      if (nul !== -1 && nul <= lines.end(last)) break;
    }
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

/**
 * Lines found in many files, packed for postMessage: a structured clone of thousands of small objects
 * costs more than finding them, typed arrays and one string cost almost nothing.
 */
export interface PackedLines {
  /** Per file: its key and how many lines. */
  keys: Int32Array;
  counts: Int32Array;
  /** Per line: its number and how many ranges; then the ranges' [start, end) pairs, in line order. */
  lines: Int32Array;
  ranges: Int32Array;
  /** The lines' texts joined with \n (a line never contains one). */
  text: string;
}

export function packLines(files: { key: number; lines: GrepLine[] }[]): PackedLines {
  let lineCount = 0;
  let rangeCount = 0;
  for (const f of files) for (const l of f.lines) { lineCount++; rangeCount += l.ranges.length; }
  const keys = new Int32Array(files.length);
  const counts = new Int32Array(files.length);
  const lines = new Int32Array(lineCount * 2);
  const ranges = new Int32Array(rangeCount * 2);
  const texts: string[] = [];
  let li = 0;
  let ri = 0;
  files.forEach((f, i) => {
    keys[i] = f.key;
    counts[i] = f.lines.length;
    for (const l of f.lines) {
      lines[li++] = l.line;
      lines[li++] = l.ranges.length;
      for (const [start, end] of l.ranges) { ranges[ri++] = start; ranges[ri++] = end; }
      texts.push(l.text);
    }
  });
  return { keys, counts, lines, ranges, text: texts.join('\n') };
}

export function unpackLines(p: PackedLines, into: Map<number, GrepLine[]>): number {
  const texts = p.text.split('\n');
  let li = 0;
  let ri = 0;
  let ti = 0;
  for (let i = 0; i < p.keys.length; i++) {
    const out: GrepLine[] = [];
    for (let j = 0; j < p.counts[i]; j++) {
      const line = p.lines[li++];
      const n = p.lines[li++];
      const ranges: [number, number][] = [];
      for (let k = 0; k < n; k++, ri += 2) ranges.push([p.ranges[ri], p.ranges[ri + 1]]);
      out.push({ line, text: texts[ti++], ranges });
    }
    into.set(p.keys[i], out);
  }
  return ti;
}

/**
 * Lines found per task of a scan, in shared memory (-1: not scanned yet). The pool writes 0 for tasks
 * it skips, the workers the count of each file they scan; anyone can then tell how many lines the
 * tasks from the first on hold, and a search that holds all the lines it keeps stops at once.
 */
export class ScanProgress {
  private done = 0;
  private lines = 0;
  constructor(readonly counts: Int32Array) {}
  static create(tasks: number): ScanProgress {
    return new ScanProgress(new Int32Array(new SharedArrayBuffer(4 * tasks)).fill(-1));
  }
  /** Lines in the tasks scanned from the first on, up to the first one not scanned yet. */
  held(): number {
    while (this.done < this.counts.length && Atomics.load(this.counts, this.done) >= 0) this.lines += this.counts[this.done++];
    return this.lines;
  }
  set(task: number, lines: number): void {
    Atomics.store(this.counts, task, lines);
  }
}

/** A grep worker's first message: its module has loaded (grep-pool.ts starts a scan's budget after it). */
export const READY = 'ready';
