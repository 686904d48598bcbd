/** Pure text helpers for hover: what is under the cursor, and Markdown links that open files. */

export interface Span { text: string; start: number; end: number }

/** The string literal ('…', "…" or `…` without interpolation) around `character`, quotes excluded. */
export function stringAt(line: string, character: number): Span | null {
  const re = /(['"`])((?:\\.|(?!\1)[^\\\n])*)\1/g;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    const start = m.index + 1;
    const end = m.index + m[0].length - 1;
    if (character >= m.index && character <= end) {
      if (m[1] === '`' && m[2].includes('${')) return null;
      return { text: m[2], start, end };
    }
  }
  return null;
}

/** The identifier around `character`. */
export function wordAt(line: string, character: number): Span | null {
  const re = /[A-Za-z_$][\w$]*/g;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    if (character >= m.index && character <= m.index + m[0].length) return { text: m[0], start: m.index, end: m.index + m[0].length };
  }
  return null;
}

/** A Markdown link VS Code opens in the editor (`#L12` selects the line). */
export function fileLink(label: string, uri: string): string {
  const safe = label.replace(/[[\]\\`*_]/g, (c) => `\\${c}`);
  return `[${safe}](${uri.replace(/[()\s]/g, (c) => encodeURIComponent(c))})`;
}
