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
