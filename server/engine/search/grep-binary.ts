/**
 * ripgrep's default handling of binary files, which grep_code must reproduce line for line.
 *
 * A file is binary for ripgrep once it holds a NUL byte, and ripgrep then stops searching it. Where it
 * stops depends on how it reads (grep-searcher 0.1, ripgrep 13):
 * - Line mode reads a file found by walking a folder in buffers of 64 KiB. Each fill keeps the
 *   unfinished last line of the previous one and reads until the new bytes hold a line end (the
 *   buffer triples when full). A fill whose new bytes hold a NUL is not searched, and reading stops:
 *   the lines of earlier fills were printed, the rest are not.
 * - Multi-line mode (`-U`) reads the whole file. A NUL in its first 64 KiB prints nothing; further on,
 *   matches are printed until one whose lines hold a NUL (the scanner stops there: `binary`).
 *
 * One case cannot be matched: a buffer grown for a line over 64 KiB stays grown for the next files the
 * same ripgrep thread reads, so where ripgrep stops in those depends on its scheduling. The emulation
 * starts every file with a fresh buffer, as ripgrep does on its first file or with no long lines.
 */

/** ripgrep's read buffer (grep-searcher's DEFAULT_BUFFER_CAPACITY). */
export const RIPGREP_BUFFER = 64 * 1024;

export interface Readable {
  /** The bytes ripgrep searches. */
  bytes: Buffer;
  /** Multi-line mode: they hold a NUL, and the scan stops at the first match whose lines hold one. */
  binary: boolean;
}

export function ripgrepReadable(bytes: Buffer, multiline: boolean): Readable {
  const nul = bytes.indexOf(0);
  if (nul === -1) return { bytes, binary: false };
  if (multiline) return nul < RIPGREP_BUFFER ? { bytes: bytes.subarray(0, 0), binary: false } : { bytes, binary: true };
  return { bytes: bytes.subarray(0, lineModeStop(bytes, nul)), binary: false };
}

/** Line mode: the offset where the fill holding the first NUL (at `nul`) begins; every line before it is searched. */
function lineModeStop(bytes: Buffer, nul: number): number {
  let capacity = RIPGREP_BUFFER;
  // The buffer holds [start, filled): the unfinished line of the last fill, then what was read since.
  let start = 0;
  let filled = 0;
  for (;;) {
    if (filled - start === capacity) capacity *= 3;
    const from = filled;
    filled = Math.min(bytes.length, filled + capacity - (filled - start));
    if (nul < filled) return start;
    const lineEnd = bytes.lastIndexOf(10, filled - 1);
    // No line end among the new bytes: read more into the same fill.
    if (lineEnd >= from) start = lineEnd + 1;
  }
}
