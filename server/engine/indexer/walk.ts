import fs from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

export interface WalkEntry {
  relPath: string;
  size: number;
  mtimeMs: number;
}

export interface WalkOptions {
  /** Extra gitignore-style patterns (settings, CLI). */
  ignoreGlobs?: string[];
  /** Absolute folders never to enter (the data dir when it lies inside the workspace). */
  excludeDirs?: string[];
}

/** Always skipped, whatever the ignore files say. */
export const DEFAULT_IGNORES = ['.git/', 'node_modules/', '.hg/', '.svn/', '.loupe/', '.DS_Store'];

interface Rules { base: string; ig: Ignore }

/**
 * Lists the indexable files under root: honours .gitignore files at every level and .loupeignore,
 * never follows a symlink out of the root, and returns repository-relative POSIX paths.
 */
export function walk(root: string, options: WalkOptions = {}): WalkEntry[] {
  const absRoot = fs.realpathSync(root);
  const excluded = new Set((options.excludeDirs ?? []).map((d) => path.resolve(d)));
  const entries: WalkEntry[] = [];
  const base = ignore().add(DEFAULT_IGNORES).add(options.ignoreGlobs ?? []);
  const visit = (dirRel: string, rules: Rules[]) => {
    const dirAbs = dirRel ? path.join(absRoot, dirRel) : absRoot;
    let dirents: fs.Dirent[];
    try {
      dirents = fs.readdirSync(dirAbs, { withFileTypes: true });
    } catch {
      return; // unreadable folder: skip it, keep the rest
    }
    // Only the ignore files the listing shows are read (a failed open per folder was most of a
    // no-change walk's system calls).
    const local = dirents.some((d) => IGNORE_FILES.includes(d.name)) ? readIgnoreFiles(dirAbs, dirRel) : null;
    const active = local ? [...rules, local] : rules;
    for (const d of dirents) {
      const rel = dirRel ? `${dirRel}/${d.name}` : d.name;
      let isDir = d.isDirectory();
      let isFile = d.isFile();
      if (d.isSymbolicLink()) {
        const target = safeRealpath(path.join(dirAbs, d.name));
        if (!target || !isInside(absRoot, target)) continue;
        const stat = safeStat(target);
        if (!stat) continue;
        // Linked folders are not entered (they would be indexed twice); linked files inside the root are.
        isDir = false;
        isFile = stat.isFile();
      }
      if (!isDir && !isFile) continue;
      if (isIgnored(active, rel, isDir)) continue;
      if (isDir) {
        if (excluded.has(path.join(dirAbs, d.name))) continue;
        visit(rel, active);
      } else {
        const stat = safeStat(path.join(dirAbs, d.name));
        if (stat) entries.push({ relPath: rel, size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs) });
      }
    }
  };
  visit('', [{ base: '', ig: base }]);
  return entries;
}

/** File-system calls a parallel walk keeps in flight (libuv's pool is the process's: others queue behind them). */
const WALK_CONCURRENCY = 16;

/**
 * walk() with its folder listings and stats in flight together (on libuv's threads) instead of one
 * after another on the calling thread: the same entries in the same order, one stat per file. A
 * large tree's no-change restart is mostly this walk.
 */
export async function walkParallel(root: string, options: WalkOptions = {}, concurrency = WALK_CONCURRENCY): Promise<WalkEntry[]> {
  const absRoot = await fs.promises.realpath(root);
  const excluded = new Set((options.excludeDirs ?? []).map((d) => path.resolve(d)));
  const base = ignore().add(DEFAULT_IGNORES).add(options.ignoreGlobs ?? []);
  const limit = limiter(concurrency);
  const stat = (p: string) => limit(() => fs.promises.stat(p)).catch(() => null);
  const visit = async (dirRel: string, rules: Rules[]): Promise<WalkEntry[]> => {
    const dirAbs = dirRel ? path.join(absRoot, dirRel) : absRoot;
    let dirents: fs.Dirent[];
    try {
      dirents = await limit(() => fs.promises.readdir(dirAbs, { withFileTypes: true }));
    } catch {
      return []; // unreadable folder: skip it, keep the rest
    }
    const local = dirents.some((d) => IGNORE_FILES.includes(d.name)) ? await readIgnoreFilesAsync(dirAbs, dirRel) : null;
    const active = local ? [...rules, local] : rules;
    // In listing order; files and folders resolve as their stats and listings come back.
    const parts: Promise<WalkEntry | WalkEntry[] | null>[] = [];
    for (const d of dirents) {
      const rel = dirRel ? `${dirRel}/${d.name}` : d.name;
      const abs = path.join(dirAbs, d.name);
      if (d.isSymbolicLink()) {
        parts.push((async () => {
          const target = await limit(() => fs.promises.realpath(abs)).catch(() => null);
          if (!target || !isInside(absRoot, target)) return null;
          const s = await stat(target);
          // Linked folders are not entered (they would be indexed twice); linked files inside the root are.
          if (!s?.isFile() || isIgnored(active, rel, false)) return null;
          return { relPath: rel, size: s.size, mtimeMs: Math.trunc(s.mtimeMs) };
        })());
        continue;
      }
      const isDir = d.isDirectory();
      if (!isDir && !d.isFile()) continue;
      if (isIgnored(active, rel, isDir)) continue;
      if (isDir) {
        if (!excluded.has(abs)) parts.push(visit(rel, active));
      } else {
        parts.push(stat(abs).then((s) => (s ? { relPath: rel, size: s.size, mtimeMs: Math.trunc(s.mtimeMs) } : null)));
      }
    }
    const out: WalkEntry[] = [];
    for (const part of await Promise.all(parts)) {
      if (Array.isArray(part)) { for (const e of part) out.push(e); } else if (part) out.push(part);
    }
    return out;
  };
  return visit('', [{ base: '', ig: base }]);
}

/** Runs at most n of the given calls at once, the rest in the order they came. */
function limiter(n: number): <T>(call: () => Promise<T>) => Promise<T> {
  let active = 0;
  const queue: (() => void)[] = [];
  const next = () => {
    active--;
    queue.shift()?.();
  };
  return <T>(call: () => Promise<T>) => new Promise<T>((resolve, reject) => {
    const start = () => {
      active++;
      call().then(resolve, reject).finally(next);
    };
    if (active < n) start(); else queue.push(start);
  });
}

/** True when rel (a file) is indexable under the same rules walk() applies. */
export function isIndexable(root: string, relPath: string, options: WalkOptions = {}): boolean {
  const absRoot = fs.realpathSync(root);
  const parts = relPath.split('/');
  const rules: Rules[] = [{ base: '', ig: ignore().add(DEFAULT_IGNORES).add(options.ignoreGlobs ?? []) }];
  for (let i = 0; i < parts.length; i++) {
    const dirRel = parts.slice(0, i).join('/');
    const local = readIgnoreFiles(dirRel ? path.join(absRoot, dirRel) : absRoot, dirRel);
    if (local) rules.push(local);
    const rel = parts.slice(0, i + 1).join('/');
    if (isIgnored(rules, rel, i < parts.length - 1)) return false;
  }
  const abs = path.join(absRoot, relPath);
  const real = safeRealpath(abs);
  return !!real && isInside(absRoot, real) && !(options.excludeDirs ?? []).some((d) => isInside(path.resolve(d), abs));
}

const IGNORE_FILES = ['.gitignore', '.loupeignore'];

function readIgnoreFiles(dirAbs: string, dirRel: string): Rules | null {
  let patterns = '';
  for (const name of IGNORE_FILES) {
    try {
      patterns += `${fs.readFileSync(path.join(dirAbs, name), 'utf8')}\n`;
    } catch {
      // no such file here
    }
  }
  return patterns.trim() ? { base: dirRel, ig: ignore().add(patterns) } : null;
}

async function readIgnoreFilesAsync(dirAbs: string, dirRel: string): Promise<Rules | null> {
  let patterns = '';
  for (const name of IGNORE_FILES) {
    try {
      patterns += `${await fs.promises.readFile(path.join(dirAbs, name), 'utf8')}\n`;
    } catch {
      // no such file here
    }
  }
  return patterns.trim() ? { base: dirRel, ig: ignore().add(patterns) } : null;
}

function isIgnored(rules: Rules[], rel: string, isDir: boolean): boolean {
  for (const { base, ig } of rules) {
    const local = base ? rel.slice(base.length + 1) : rel;
    if (ig.ignores(isDir ? `${local}/` : local)) return true;
  }
  return false;
}

export function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function safeRealpath(p: string): string | null {
  try { return fs.realpathSync(p); } catch { return null; }
}

function safeStat(p: string): fs.Stats | null {
  try { return fs.statSync(p); } catch { return null; }
}
