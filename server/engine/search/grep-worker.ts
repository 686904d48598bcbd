/**
 * A grep worker: scans files (read here, off the main thread) or given texts with one matcher.
 * It runs user regular expressions, so the pool kills it when a scan overruns its time budget.
 */
import { parentPort } from 'node:worker_threads';
import fs from 'node:fs';
import path from 'node:path';
import { ripgrepReadable } from './grep-binary';
import { utf16Text } from '../util/text';
import { compileMatcher, packLines, READY, ScanProgress, type GrepLine, type GrepMatcher, type PackedLines } from './grep-scan';

/** A text to scan, or a file to read: `path` is relative to `root`, the folder it must stay inside once symlinks are resolved. */
export type GrepTask = { key: number; text: string } | { key: number; root: string; path: string };

/**
 * Files of one repository, in order: their keys, their positions in the scan, and their relative paths
 * joined with NUL (which no path contains). Thousands of task objects would cost more to send.
 */
export interface FileBatch { root: string; keys: Int32Array; positions: Int32Array; paths: string }

export interface GrepWorkerRequest {
  id: number;
  /** One search: the batches of a search share what the worker learnt about folders. */
  scanId: number;
  /** Lines found per task of the scan, shared with the pool and the other workers (ScanProgress). */
  progress: Int32Array;
  matcher: GrepMatcher;
  /** Files (grep_code) or texts (grep_docs), each in output order. */
  files: FileBatch[];
  texts: { key: number; position: number; text: string }[];
  maxLinesPerFile: number;
  maxLines: number;
  /** Lower-case literals to look for in each text (the planner's sample). */
  literals?: string[];
}
export interface GrepWorkerResponse {
  id: number;
  /** The files with matching lines, packed (grep-scan.ts). */
  found: PackedLines;
  /** Files and texts scanned (a batch stops early once it holds maxLines lines). */
  scanned: number;
  /** With `literals`: for each text read, the indices of the literals it contains (ignoring ASCII case). */
  contains?: number[][];
  error?: string;
}

// O_NOFOLLOW makes opening a symlink fail, so a plain file needs no realpath of its own; O_NONBLOCK
// keeps a file that turned into a FIFO from blocking the open.
const NOFOLLOW = fs.constants.O_NOFOLLOW as number | undefined;
const OPEN_FLAGS = fs.constants.O_RDONLY | (NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

const inside = (realRoot: string, real: string, orEqual: boolean) => {
  const rel = path.relative(realRoot, real);
  return (orEqual || rel !== '') && !rel.startsWith('..') && !path.isAbsolute(rel);
};

/**
 * Reads files only where they really are inside their repository. A file may have become a symlink
 * out of it since it was indexed (a fetched commit, a local edit), or one of its folders may have:
 * the real path of each folder is resolved once per search (one lstat each, from the root down),
 * and the file itself is opened without following a symlink; a symlinked file is resolved in full.
 * Files are read into one buffer, reused: a file's bytes are only valid until the next read.
 */
class Reader {
  private roots = new Map<string, string | null>();
  /** Real paths of folders, and whether each folder of a repository (root NUL relative folder) is inside it. */
  private dirs = new Map<string, string | null>();
  private folders = new Map<string, boolean>();
  private static buffer = Buffer.allocUnsafe(1 << 20);

  read(root: string, relative: string): Buffer | undefined {
    const folder = path.dirname(relative);
    const key = `${root}\0${folder}`;
    let ok = this.folders.get(key);
    if (ok === undefined) {
      const realRoot = this.realRoot(root);
      const dir = realRoot && this.realDir(path.join(root, folder), root, realRoot);
      ok = !!realRoot && !!dir && inside(realRoot, dir, true);
      this.folders.set(key, ok);
    }
    if (!ok) return undefined;
    const file = path.join(root, relative);
    const realRoot = this.realRoot(root)!;
    let fd: number;
    try {
      if (NOFOLLOW === undefined && fs.lstatSync(file).isSymbolicLink()) return this.readSymlink(file, realRoot);
      fd = fs.openSync(file, OPEN_FLAGS);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ELOOP' || code === 'EMLINK' ? this.readSymlink(file, realRoot) : undefined; // else gone since indexing
    }
    try { return Reader.readAll(fd); } catch { return undefined; } finally { fs.closeSync(fd); }
  }

  private static readAll(fd: number): Buffer {
    // A file far over the indexer's 1 MiB limit (it grew since) does not keep its buffer.
    if (Reader.buffer.length > 1 << 23) Reader.buffer = Buffer.allocUnsafe(1 << 20);
    let length = 0;
    for (;;) {
      if (length === Reader.buffer.length) {
        const bigger = Buffer.allocUnsafe(Reader.buffer.length * 2);
        Reader.buffer.copy(bigger, 0, 0, length);
        Reader.buffer = bigger;
      }
      const n = fs.readSync(fd, Reader.buffer, length, Reader.buffer.length - length, null);
      if (n === 0) return Reader.buffer.subarray(0, length);
      length += n;
    }
  }

  private readSymlink(file: string, realRoot: string): Buffer | undefined {
    try {
      const real = fs.realpathSync(file);
      return inside(realRoot, real, false) ? fs.readFileSync(real) : undefined;
    } catch {
      return undefined;
    }
  }

  private realRoot(root: string): string | null {
    let real = this.roots.get(root);
    if (real === undefined) {
      try { real = fs.realpathSync(root); } catch { real = null; }
      this.roots.set(root, real);
    }
    return real;
  }

  private realDir(dir: string, root: string, realRoot: string): string | null {
    const known = this.dirs.get(dir);
    if (known !== undefined) return known;
    let real: string | null;
    const parent = path.dirname(dir);
    if (dir === root) {
      real = realRoot;
    } else if (!dir.startsWith(root + path.sep) || parent === dir) {
      try { real = fs.realpathSync(dir); } catch { real = null; }
    } else {
      const realParent = this.realDir(parent, root, realRoot);
      try {
        real = realParent === null ? null
          : fs.lstatSync(dir).isSymbolicLink() ? fs.realpathSync(dir) : path.join(realParent, path.basename(dir));
      } catch {
        real = null;
      }
    }
    this.dirs.set(dir, real);
    return real;
  }
}

let cached: { json: string; scan: ReturnType<typeof compileMatcher> } | null = null;
let current: { scanId: number; reader: Reader; progress: ScanProgress } | null = null;

function scanBatch(req: GrepWorkerRequest): GrepWorkerResponse {
  const json = JSON.stringify(req.matcher);
  if (!cached || cached.json !== json) cached = { json, scan: compileMatcher(req.matcher) };
  if (current?.scanId !== req.scanId) current = { scanId: req.scanId, reader: new Reader(), progress: new ScanProgress(req.progress) };
  const { reader, progress } = current;
  const scan = cached.scan;
  const results: { key: number; lines: GrepLine[] }[] = [];
  const contains: number[][] = [];
  let found = 0;
  let scanned = 0;
  // The search keeps at most maxLines lines in output order: once this batch or the tasks before it
  // hold them, later files cannot matter.
  const more = () => found < req.maxLines && progress.held() < req.maxLines;
  const multiline = req.matcher.kind === 'regex' && req.matcher.multiline;
  const visit = (key: number, position: number, content: string | Buffer | undefined) => {
    scanned++;
    let lines: GrepLine[] = [];
    if (typeof content === 'string') lines = linesOf(content);
    else if (content) {
      // ripgrep searches UTF-16 (with a byte-order mark) as UTF-8, and stops at a NUL byte (grep-binary.ts).
      const utf16 = utf16Text(content);
      const { bytes, binary } = ripgrepReadable(utf16 === null ? content : Buffer.from(utf16, 'utf8'), multiline);
      lines = linesOf(bytes, binary);
    }
    progress.set(position, lines.length);
    if (lines.length) { results.push({ key, lines }); found += lines.length; }
  };
  const linesOf = (content: string | Buffer, binary = false): GrepLine[] => {
    if (typeof content !== 'string' && scan.scanBytes && !req.literals) return scan.scanBytes(content, req.maxLinesPerFile);
    const text = typeof content === 'string' ? content : content.toString('utf8');
    if (req.literals) {
      const lower = text.toLowerCase();
      contains.push(req.literals.flatMap((l, i) => (lower.includes(l) ? [i] : [])));
    }
    return scan.scan(text, req.maxLinesPerFile, binary);
  };
  for (const batch of req.files) {
    const paths = batch.paths.split('\0');
    for (let i = 0; i < paths.length && more(); i++) visit(batch.keys[i], batch.positions[i], reader.read(batch.root, paths[i]));
  }
  for (const t of req.texts) if (more()) visit(t.key, t.position, t.text);
  return { id: req.id, found: packLines(results), scanned, ...(req.literals ? { contains } : {}) };
}

parentPort?.on('message', (req: GrepWorkerRequest) => {
  let response: GrepWorkerResponse;
  try {
    response = scanBatch(req);
  } catch (error) {
    response = { id: req.id, found: packLines([]), scanned: 0, error: (error as Error).message };
  }
  parentPort!.postMessage(response);
});
parentPort?.postMessage(READY);
