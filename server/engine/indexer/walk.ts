import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
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

interface Rules { base: string; ig: Ignore; matcher?: (local: string) => boolean }

/** What the `ignore` package keeps of its rules (7.x): read to match them all at once, see compileRules. */
interface IgnoreInternals { _rules?: { _rules?: { negative: boolean; regex: RegExp; body: string }[] } }

/**
 * One rule set's test as a few regular expressions instead of one per rule: a walk tests every path
 * it lists against every rule of every ignore file above it (210 rules in payload's root .gitignore),
 * and `ignore` runs each rule's expression in turn, two thirds of a no-change walk. The rules are
 * cut into runs of the same kind (ignore / re-include); the last run with a match decides, as the
 * last matching rule does. A rule without a slash but at its end is tested on the path's last
 * segment (`ignore` says it answers the same on the whole path). Only for a path whose folders are
 * not ignored (the walk never enters an ignored folder), which is where `ignore` would test this
 * path's rules alone. Null when the package does not look as expected: then `ignore` tests.
 */
function compileRules(ig: Ignore): ((local: string) => boolean) | null {
  const rules = (ig as unknown as IgnoreInternals)._rules?._rules;
  if (!Array.isArray(rules) || !rules.length) return null;
  if (!rules.every((r) => r.regex instanceof RegExp && typeof r.body === 'string' && typeof r.negative === 'boolean')) return null;
  const flags = rules[0].regex.flags;
  // Combined, a back-reference would point at another rule's group.
  if (rules.some((r) => r.regex.flags !== flags || /\\[1-9]|\\k</.test(r.regex.source))) return null;
  const either = (list: { regex: RegExp }[]) => (list.length ? new RegExp(list.map((r) => `(?:${r.regex.source})`).join('|'), flags) : null);
  const runs: { negative: boolean; name: RegExp | null; path: RegExp | null }[] = [];
  for (let i = 0; i < rules.length;) {
    let j = i;
    while (j < rules.length && rules[j].negative === rules[i].negative) j++;
    const run = rules.slice(i, j);
    const onName = run.filter((r) => basenameOnly(r.body));
    runs.push({ negative: rules[i].negative, name: either(onName), path: either(run.filter((r) => !basenameOnly(r.body))) });
    i = j;
  }
  return (local) => {
    const name = basenameOf(local);
    for (let i = runs.length - 1; i >= 0; i--) {
      const run = runs[i];
      if (run.name?.test(name) || run.path?.test(local)) return !run.negative;
    }
    return false;
  };
}

/** A rule body with no slash but at its end matches a path's last segment (as `ignore` decides). */
const basenameOnly = (body: string) => {
  const i = body.indexOf('/');
  return i < 0 || i === body.length - 1;
};

/** A path's last segment, with its trailing slash ('a/b/' → 'b/'), as `ignore` cuts it. */
function basenameOf(p: string): string {
  const end = p.length - 1;
  const i = p.lastIndexOf('/', p[end] === '/' ? end - 1 : end);
  return i < 0 ? p : p.slice(i + 1);
}

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

/** A .gitignore or .loupeignore, at any level: its rules decide which files below it are indexed. */
export const isIgnoreFile = (relPath: string): boolean => IGNORE_FILES.includes(relPath.slice(relPath.lastIndexOf('/') + 1));

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

function isIgnored(rules: Rules[], rel: string, isDir: boolean): boolean {
  for (const r of rules) {
    const local = r.base ? rel.slice(r.base.length + 1) : rel;
    const path = isDir ? `${local}/` : local;
    if (r.matcher === undefined) r.matcher = (compiling && compileRules(r.ig)) || ((p: string) => r.ig.ignores(p));
    if (r.matcher(path)) return true;
  }
  return false;
}

/** Off in a test that compares the compiled rules with `ignore`'s own answers. */
let compiling = true;
export function compileIgnoreRules(on: boolean): void {
  compiling = on;
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

// ---------------------------------------------------------------------------------------------------
// The walk with a catalog: a folder whose listing has not changed since the last walk is not listed
// again. A folder's mtime and ctime move when an entry is added, removed or renamed in it (not when a
// file's content changes, which each file's own stat shows: every file is still stat'ed once), so
// the last walk's kept entries of a folder whose mtime and ctime are what they were then are its
// entries now. Its ignore files are stat'ed too: when one changed (or a folder's own listing
// changed), everything below it is listed again, since the rules below may differ.

/** What the last walk kept of one folder. */
export interface CatalogDir {
  /** The folder's inode, mtime and ctime (ms) before it was listed. */
  i: number;
  m: number;
  c: number;
  /** When it was stat'ed (ms, this machine's clock). */
  at: number;
  /** Its ignore files' stats ('' when it has none; never equal to a stat when they were too recent to trust). */
  ig: string;
  /** Names kept: plain files, symlinks (resolved again at each walk), folders entered. */
  files: string[];
  links: string[];
  dirs: string[];
}

/** The last walk of one folder (root and options in `key`), by repository-relative folder path ('' the root). */
export interface WalkCatalog {
  key: string;
  dirs: Record<string, CatalogDir>;
}

export interface CatalogWalk {
  entries: WalkEntry[];
  catalog: WalkCatalog;
  /** Folders listed (readdir) and folders taken from the catalog. */
  listed: number;
  trusted: number;
  /** The catalog differs from the one given. */
  changed: boolean;
}

/**
 * A folder's entries are trusted only when its mtime and ctime were older than the stat that recorded
 * them by this much: a file added in the same tick of a coarse clock (1 s on some file systems, 2 s on
 * FAT) as that stat would leave them equal, and a listing that raced with it could have missed it.
 */
export const TRUST_MARGIN_MS = 2_000;

const catalogKey = (absRoot: string, options: WalkOptions) =>
  JSON.stringify([1, absRoot, DEFAULT_IGNORES, options.ignoreGlobs ?? [], [...(options.excludeDirs ?? [])].map((d) => path.resolve(d)).sort()]);

/**
 * walk() that lists only the folders whose entries may have changed since `previous` (the catalog the
 * last walk of this root with these options returned; null: every folder is listed). Same entries as
 * walk(); each file is stat'ed once, each folder once, each ignore file once.
 */
export function walkWithCatalog(root: string, options: WalkOptions, previous: WalkCatalog | null): CatalogWalk {
  const absRoot = fs.realpathSync(root);
  const key = catalogKey(absRoot, options);
  const before = previous && previous.key === key ? previous.dirs : null;
  const excluded = new Set((options.excludeDirs ?? []).map((d) => path.resolve(d)));
  const entries: WalkEntry[] = [];
  const dirs: Record<string, CatalogDir> = {};
  const base: Rules = { base: '', ig: ignore().add(DEFAULT_IGNORES).add(options.ignoreGlobs ?? []) };
  let listed = 0;
  let trusted = 0;
  let changed = !before;

  const pushFile = (dirAbs: string, rel: string, name: string) => {
    const stat = safeStat(path.join(dirAbs, name));
    if (stat?.isFile()) entries.push({ relPath: rel, size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs) });
  };
  /** A symlink's target, when it is a file inside the root (linked folders are not entered). */
  const pushLink = (dirAbs: string, rel: string, name: string): boolean => {
    const target = safeRealpath(path.join(dirAbs, name));
    if (!target || !isInside(absRoot, target)) return false;
    const stat = safeStat(target);
    if (!stat?.isFile()) return false;
    entries.push({ relPath: rel, size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs) });
    return true;
  };

  /** `rules()` gives the rules that apply in this folder, read only when a folder below has to be listed. */
  const visit = (dirRel: string, dirAbs: string, parentRules: () => Rules[], trust: boolean) => {
    const at = Date.now();
    const st = safeStat(dirAbs);
    if (!st?.isDirectory()) return; // gone (or no longer a folder) since its parent was listed
    const prev = trust ? before?.[dirRel] : undefined;
    const stampOf = (names: readonly string[]) => ignoreStamp(dirAbs, names, at);
    // The ignore files' stamp, when the folder had any (none added or removed: the folder's mtime would show it).
    const stamp = prev && prev.ig !== '' ? stampOf(IGNORE_FILES) : '';
    if (prev && st.ino === prev.i && st.mtimeMs === prev.m && st.ctimeMs === prev.c
      && Math.max(prev.m, prev.c) <= prev.at - TRUST_MARGIN_MS && stamp === prev.ig) {
      trusted++;
      dirs[dirRel] = prev;
      let rules: Rules[] | null = null;
      const here = () => (rules ??= withLocal(parentRules(), dirAbs, dirRel, prev.ig !== ''));
      for (const name of prev.files) pushFile(dirAbs, dirRel ? `${dirRel}/${name}` : name, name);
      for (const name of prev.links) pushLink(dirAbs, dirRel ? `${dirRel}/${name}` : name, name);
      for (const name of prev.dirs) {
        const rel = dirRel ? `${dirRel}/${name}` : name;
        visit(rel, path.join(dirAbs, name), here, true);
      }
      return;
    }
    // Listed: this folder's entries, or its rules, may have changed; so may the rules of all below.
    listed++;
    changed = true;
    let dirents: fs.Dirent[];
    try {
      dirents = fs.readdirSync(dirAbs, { withFileTypes: true });
    } catch {
      return; // unreadable folder: skip it, keep the rest
    }
    const ignoreNames = dirents.filter((d) => IGNORE_FILES.includes(d.name)).map((d) => d.name);
    const rules = withLocal(parentRules(), dirAbs, dirRel, ignoreNames.length > 0);
    const record: CatalogDir = { i: st.ino, m: st.mtimeMs, c: st.ctimeMs, at, ig: ignoreNames.length ? stampOf(IGNORE_FILES) : '', files: [], links: [], dirs: [] };
    // The folders below keep their trust when the rules here are the ones their entries were kept under.
    const rulesKept = !!prev && record.ig === prev.ig;
    dirs[dirRel] = record;
    const subdirs: string[] = [];
    for (const d of dirents) {
      const rel = dirRel ? `${dirRel}/${d.name}` : d.name;
      if (d.isSymbolicLink()) {
        if (isIgnored(rules, rel, false)) continue;
        // Kept whatever it points at now: its target may come (or go) without this folder changing.
        record.links.push(d.name);
        pushLink(dirAbs, rel, d.name);
        continue;
      }
      const isDir = d.isDirectory();
      if ((!isDir && !d.isFile()) || isIgnored(rules, rel, isDir)) continue;
      if (isDir) {
        if (excluded.has(path.join(dirAbs, d.name))) continue;
        record.dirs.push(d.name);
        subdirs.push(d.name);
      } else {
        record.files.push(d.name);
        pushFile(dirAbs, rel, d.name);
      }
    }
    for (const name of subdirs) visit(dirRel ? `${dirRel}/${name}` : name, path.join(dirAbs, name), () => rules, rulesKept);
  };
  visit('', absRoot, () => [base], true);
  if (before && !changed) changed = Object.keys(before).length !== Object.keys(dirs).length;
  return { entries, catalog: { key, dirs }, listed, trusted, changed };
}

/** The rules of a folder: its parent's, with its own ignore files when it has any. */
function withLocal(parent: Rules[], dirAbs: string, dirRel: string, hasFiles: boolean): Rules[] {
  const local = hasFiles ? readIgnoreFiles(dirAbs, dirRel) : null;
  return local ? [...parent, local] : parent;
}

/**
 * The stats of a folder's ignore files as one string (size, mtime, ctime of each present). One too
 * recent to trust (see TRUST_MARGIN_MS) makes a stamp no later stat equals, so the folder is listed again.
 */
function ignoreStamp(dirAbs: string, names: readonly string[], at: number): string {
  let stamp = '';
  for (const name of names) {
    const st = safeStat(path.join(dirAbs, name));
    if (!st) continue;
    if (Math.max(st.mtimeMs, st.ctimeMs) > at - TRUST_MARGIN_MS) return `recent:${at}:${Math.random()}`;
    stamp += `${name}:${st.size}:${st.mtimeMs}:${st.ctimeMs};`;
  }
  return stamp;
}

/** A catalog as bytes (v8's serializer: ~1 ms a thousand folders) and back; null when not one. */
export function catalogBytes(catalog: WalkCatalog): Buffer {
  return v8.serialize(catalog);
}
export function catalogFrom(bytes: Buffer | null): WalkCatalog | null {
  if (!bytes) return null;
  try {
    const value = v8.deserialize(bytes) as WalkCatalog;
    return value && typeof value.key === 'string' && value.dirs && typeof value.dirs === 'object' ? value : null;
  } catch {
    return null;
  }
}
