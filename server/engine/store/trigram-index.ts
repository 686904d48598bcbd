import type { Db } from './db';

/**
 * grep's trigram index (migration 027): for each trigram of printable ASCII, case folded, the chunks that
 * hold it, as posting lists in `chunk_trigrams` (tri, seg, ids). FTS5's trigram tokenizer did the same job at
 * ~4.5 MB/s of chunk text on this machine (payload's 36 MB: 8.4 s of the index writer's CPU, the largest
 * part of a cold index's tail); built here in one pass with typed arrays it takes 1.7 s (docs/benchmarks.md).
 *
 * - A trigram is three characters of 32–126, ASCII letters lower-cased: `(a << 14) | (b << 7) | c`. Other
 *   characters hold no trigram; a literal's trigrams that hold one are not looked up (the lookup proposes
 *   more files, never fewer: the caller confirms every candidate by scanning).
 * - `ids`: a segment's chunk ids holding the trigram, ascending, as varint deltas. A segment is one fill of
 *   the backlog (the chunks from `trigram_backlog.from_id` up, written since the last fill); `seg` is the
 *   first chunk id it covered (`trigram_segments` lists them). Past MAX_SEGMENTS, the segments are merged into one.
 * - Deleted chunks are not taken out: their ids match no chunk row, and a merge drops them. A chunk id that
 *   SQLite gives again (the largest one deleted, then a chunk inserted) moves the backlog back to it
 *   (migration 027's trigger), so a reused id is looked up as backlog until the next fill.
 */

const FOLD = (() => {
  const fold = new Int8Array(65536).fill(-1);
  for (let c = 32; c < 127; c++) fold[c] = c >= 65 && c <= 90 ? c + 32 : c;
  return fold;
})();
const TRIGRAMS = 1 << 21;
/** Segments before they are merged into one (each lookup reads one row per segment and trigram). */
const MAX_SEGMENTS = 16;
/** Candidate chunks few enough that intersecting more trigram lists does not pay. */
const ENOUGH = 8;

/** The distinct trigrams of a literal (lower-cased as the index is); null when it has none the index holds. */
export function literalTrigrams(literal: string): number[] | null {
  const out = new Set<number>();
  let a = -1;
  let b = -1;
  for (let i = 0; i < literal.length; i++) {
    const c = FOLD[literal.charCodeAt(i)];
    if (c >= 0 && a >= 0 && b >= 0) out.add((a << 14) | (b << 7) | c);
    a = b;
    b = c;
  }
  return out.size ? [...out] : null;
}

function decodeInto(blob: Uint8Array, out: number[]): void {
  let id = 0;
  for (let i = 0; i < blob.length;) {
    let d = 0;
    let shift = 0;
    let byte: number;
    do { byte = blob[i++]; d += (byte & 127) * 2 ** shift; shift += 7; } while (byte & 128);
    id += d;
    out.push(id);
  }
}

function encode(ids: Int32Array | number[], from: number, to: number, scratch: { buf: Buffer }): Buffer {
  if (scratch.buf.length < (to - from) * 5) scratch.buf = Buffer.alloc((to - from) * 5 * 2);
  const buf = scratch.buf;
  let len = 0;
  let last = 0;
  for (let k = from; k < to; k++) {
    let d = ids[k] - last;
    last = ids[k];
    while (d >= 128) { buf[len++] = (d & 127) | 128; d >>>= 7; }
    buf[len++] = d;
  }
  return Buffer.from(buf.subarray(0, len));
}

/** Sorted, without repeats, in place (the same array). */
function sortUnique(ids: number[]): number[] {
  ids.sort((x, y) => x - y);
  let n = 0;
  for (let i = 0; i < ids.length; i++) if (i === 0 || ids[i] !== ids[i - 1]) ids[n++] = ids[i];
  ids.length = n;
  return ids;
}

export class TrigramIndex {
  /** A fill's per-trigram counts, positions and last chunk seen (8 MB each) and its trigram lists, kept for the next segment. */
  private scratch: TrigramScratch | null = null;

  constructor(private readonly db: Db) {}

  /**
   * Adds the trigram rows of the chunks with `fromId <= id < untilId` as one segment (call inside a
   * transaction). One pass over the chunks' text lists each chunk's distinct trigrams (one int each: a
   * segment of 4,000 payload chunks holds ~1 M); counting them gives each trigram's place, and the lists put
   * the chunk ids there.
   */
  addSegment(fromId: number, untilId: number): void {
    const rows = this.db.prepare('SELECT id, content FROM chunks WHERE id >= ? AND id < ? ORDER BY id').raw().all(fromId, untilId) as [number, string][];
    if (!rows.length) return;
    this.scratch ??= { count: new Int32Array(TRIGRAMS), next: new Int32Array(TRIGRAMS), stamp: new Int32Array(TRIGRAMS), tris: new Int32Array(1 << 20) };
    const { count, next } = this.scratch;
    // tris[ends[r - 1] .. ends[r]]: row r's distinct trigrams.
    const ends = new Int32Array(rows.length);
    const total = listTrigrams(rows, this.scratch, ends);
    const tris = this.scratch.tris;
    count.fill(0);
    for (let k = 0; k < total; k++) count[tris[k]]++;
    // next[t]: where trigram t's next id goes; once placed, its ids end there and begin count[t] before.
    for (let t = 0, at = 0; t < TRIGRAMS; t++) { next[t] = at; at += count[t]; }
    const ids = new Int32Array(total);
    for (let r = 0, k = 0; r < rows.length; r++) {
      const id = rows[r][0];
      for (const end = ends[r]; k < end; k++) ids[next[tris[k]]++] = id;
    }
    const insert = this.db.prepare('INSERT OR REPLACE INTO chunk_trigrams (tri, seg, ids) VALUES (?, ?, ?)');
    const buffer = { buf: Buffer.alloc(1 << 16) };
    for (let t = 0; t < TRIGRAMS; t++) if (count[t]) insert.run(t, fromId, encode(ids, next[t] - count[t], next[t], buffer));
    this.db.prepare('INSERT OR IGNORE INTO trigram_segments (seg) VALUES (?)').run(fromId);
  }

  /** Whether the segments are many enough to merge (see merge). */
  shouldMerge(): boolean {
    return (this.db.prepare('SELECT count(*) FROM trigram_segments').pluck().get() as number) > MAX_SEGMENTS;
  }

  /** Merges every segment into one (segment 0), leaving out ids no chunk has any more (call inside a transaction). */
  merge(): void {
    const top = (this.db.prepare('SELECT coalesce(max(id), 0) AS top FROM chunks').get() as { top: number }).top;
    const live = new Uint8Array(top + 1);
    for (const [id] of this.db.prepare('SELECT id FROM chunks').raw().iterate() as Iterable<[number]>) live[id] = 1;
    const merged: [number, Buffer][] = [];
    const scratch = { buf: Buffer.alloc(1 << 16) };
    let tri = -1;
    let ids: number[] = [];
    const flush = () => {
      const kept = sortUnique(ids).filter((id) => id <= top && live[id]);
      if (tri >= 0 && kept.length) merged.push([tri, encode(kept, 0, kept.length, scratch)]);
    };
    for (const [t, blob] of this.db.prepare('SELECT tri, ids FROM chunk_trigrams ORDER BY tri').raw().iterate() as Iterable<[number, Buffer]>) {
      if (t !== tri) { flush(); tri = t; ids = []; }
      decodeInto(blob, ids);
    }
    flush();
    this.db.prepare('DELETE FROM chunk_trigrams').run();
    this.db.prepare('DELETE FROM trigram_segments').run();
    const insert = this.db.prepare('INSERT INTO chunk_trigrams (tri, seg, ids) VALUES (?, 0, ?)');
    for (const [t, blob] of merged) insert.run(t, blob);
    if (merged.length) this.db.prepare('INSERT INTO trigram_segments (seg) VALUES (0)').run();
  }

  /** The chunk ids in one trigram's rows, ascending (deleted chunks' ids included until a merge). */
  chunksWith(tri: number): number[] {
    return idsOf(this.db.prepare('SELECT ids FROM chunk_trigrams WHERE tri = ?').pluck().all(tri) as Buffer[]);
  }

  /**
   * The chunk ids that hold every trigram of one of the lists (an OR of ANDs; each list has at least one, as
   * literalTrigrams gives them), ascending. Backlog chunks are not included. Each list's trigrams are
   * intersected rarest first (by their rows' bytes), and no further once a handful of chunks is left: the
   * caller confirms every candidate, and a few more cost less to scan than a common trigram's list to read.
   */
  chunksWithAll(lists: number[][]): number[] {
    const read = this.db.prepare('SELECT ids FROM chunk_trigrams WHERE tri = ?').pluck();
    const out = new Set<number>();
    for (const tris of lists) {
      const postings = tris.map((tri) => read.all(tri) as Buffer[])
        .map((blobs) => ({ blobs, bytes: blobs.reduce((n, b) => n + b.length, 0) }))
        .sort((a, b) => a.bytes - b.bytes);
      let found: number[] | null = null;
      for (const { blobs } of postings) {
        found = found === null ? idsOf(blobs) : intersect(found, idsOf(blobs));
        if (found.length <= ENOUGH) break;
      }
      for (const id of found ?? []) out.add(id);
    }
    return [...out].sort((x, y) => x - y);
  }
}

/** A trigram's chunk ids from its segments' rows, ascending, once each. */
function idsOf(blobs: Buffer[]): number[] {
  const ids: number[] = [];
  for (const blob of blobs) decodeInto(blob, ids);
  return sortUnique(ids);
}

interface TrigramScratch { count: Int32Array; next: Int32Array; stamp: Int32Array; tris: Int32Array }

/**
 * Lists each chunk's distinct trigrams (ids above 0), chunks in row order, into `scratch.tris` (grown as
 * needed); `ends[r]` is where row r's end. Returns how many were listed.
 */
function listTrigrams(rows: [number, string][], scratch: TrigramScratch, ends: Int32Array): number {
  const stamp = scratch.stamp;
  stamp.fill(0);
  let tris = scratch.tris;
  let n = 0;
  for (let r = 0; r < rows.length; r++) {
    const [id, text] = rows[r];
    // A chunk holds at most one trigram per character: room for all of them before its loop.
    if (n + text.length > tris.length) {
      const grown = new Int32Array(Math.max(tris.length * 2, n + text.length));
      grown.set(tris.subarray(0, n));
      scratch.tris = tris = grown;
    }
    let a = -1;
    let b = -1;
    for (let i = 0; i < text.length; i++) {
      const c = FOLD[text.charCodeAt(i)];
      if (c >= 0 && a >= 0 && b >= 0) {
        const tri = (a << 14) | (b << 7) | c;
        if (stamp[tri] !== id) { stamp[tri] = id; tris[n++] = tri; }
      }
      a = b;
      b = c;
    }
    ends[r] = n;
  }
  return n;
}

function intersect(a: number[], b: number[]): number[] {
  const out: number[] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i] === b[j]) { out.push(a[i]); i++; j++; } else if (a[i] < b[j]) i++; else j++;
  }
  return out;
}
