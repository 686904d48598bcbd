import fs from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import ts from 'typescript';
import { parse as parseYaml } from 'yaml';

/**
 * The packages of JavaScript/TypeScript workspaces inside a repository, by package name: what a package
 * manager links into `node_modules` at install time. A repository cloned without installing has no
 * `node_modules`, so the compiler would find none of them; `ModuleResolver` shows it these folders where
 * the install would have linked them.
 *
 * A workspace root is a folder with `pnpm-workspace.yaml` (`packages:`), a package.json with `workspaces`
 * (npm, yarn: an array or `{ packages: [...] }`), or a lerna.json with `packages`; its members are the
 * folders matching those globs (`!` excludes) that hold a package.json with a `name`. Projects named by a
 * tsconfig's `references` (followed transitively) are members of the repository root's workspace.
 */
export interface Workspace {
  /** Absolute folder whose `node_modules` the packages are linked into. */
  dir: string;
  /** Package name → absolute folder of its source. */
  packages: Map<string, string>;
}

const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'build', 'out', '.next', '.turbo', 'coverage']);
/** Globs are matched against folders at most this deep below the workspace root (`packages/**`). */
const MAX_DEPTH = 6;

export function readJson(file: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The member globs a folder declares as a workspace root, or null when it declares none. */
function memberGlobs(dir: string): string[] | null {
  const globs: string[] = [];
  let declared = false;
  try {
    const yaml = parseYaml(fs.readFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'utf8')) as { packages?: unknown } | null;
    declared = true;
    globs.push(...strings(yaml?.packages));
  } catch { /* no pnpm workspace (or unreadable YAML) */ }
  const pkg = readJson(path.join(dir, 'package.json'));
  const ws = pkg?.workspaces;
  if (ws !== undefined) {
    declared = true;
    globs.push(...strings(Array.isArray(ws) ? ws : (ws as { packages?: unknown } | null)?.packages));
  }
  const lerna = readJson(path.join(dir, 'lerna.json'));
  if (lerna?.packages !== undefined) {
    declared = true;
    globs.push(...strings(lerna.packages));
  }
  return declared ? globs : null;
}

const clean = (glob: string) => glob.replace(/^\.\//, '').replace(/\/+$/, '');

/** Folders below root (relative, POSIX) matching the include globs and none of the `!` ones. */
function matchFolders(root: string, globs: string[]): string[] {
  const include = globs.filter((g) => !g.startsWith('!')).map(clean).filter(Boolean);
  const exclude = globs.filter((g) => g.startsWith('!')).map((g) => clean(g.slice(1)));
  const isExcluded = exclude.length ? picomatch(exclude) : () => false;
  const out = new Set<string>();
  for (const glob of include) {
    const parts = glob.split('/');
    const firstGlob = parts.findIndex((p) => /[*?[{]/.test(p));
    if (firstGlob < 0) {
      if (!isExcluded(glob)) out.add(glob);
      continue;
    }
    // Walk only below the glob's static prefix (`packages/*` → packages/), only as deep as it can match.
    const isIncluded = picomatch(glob);
    const maxDepth = glob.includes('**') ? MAX_DEPTH : parts.length;
    const visit = (rel: string, depth: number) => {
      if (depth > firstGlob && isIncluded(rel) && !isExcluded(rel)) out.add(rel);
      if (depth >= maxDepth) return;
      let entries: fs.Dirent[];
      try { entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true }); } catch { return; }
      for (const e of entries) {
        if (!e.isDirectory() || SKIP_DIRS.has(e.name) || e.name.startsWith('.')) continue;
        visit(rel ? `${rel}/${e.name}` : e.name, depth + 1);
      }
    };
    visit(parts.slice(0, firstGlob).join('/'), firstGlob);
  }
  return [...out].sort();
}

/** The package names and folders of a workspace root's members. */
function membersOf(root: string, globs: string[]): Map<string, string> {
  const packages = new Map<string, string>();
  for (const rel of matchFolders(root, globs)) {
    const dir = path.join(root, rel);
    const name = readJson(path.join(dir, 'package.json'))?.name;
    if (typeof name === 'string' && name && !packages.has(name)) packages.set(name, dir);
  }
  return packages;
}

/** Packages of the projects a tsconfig references, followed transitively. */
export function referencedPackages(tsconfig: string, into: Map<string, string>, seen = new Set<string>()): void {
  if (seen.has(tsconfig)) return;
  seen.add(tsconfig);
  let config: { references?: { path?: unknown }[] } | undefined;
  try {
    // tsconfig files allow comments and trailing commas: the compiler's own reader takes them.
    config = ts.parseConfigFileTextToJson(tsconfig, fs.readFileSync(tsconfig, 'utf8')).config as typeof config;
  } catch {
    return;
  }
  for (const ref of config?.references ?? []) {
    if (typeof ref?.path !== 'string') continue;
    const target = path.resolve(path.dirname(tsconfig), ref.path);
    const file = target.endsWith('.json') ? target : path.join(target, 'tsconfig.json');
    const dir = path.dirname(file);
    const name = readJson(path.join(dir, 'package.json'))?.name;
    if (typeof name === 'string' && name && !into.has(name)) into.set(name, dir);
    referencedPackages(file, into, seen);
  }
}

/**
 * Every workspace of a repository: the root and the folders one or two levels below it that declare one.
 */
export function findWorkspaces(root: string): Workspace[] {
  const out: Workspace[] = [];
  const consider = (dir: string) => {
    const globs = memberGlobs(dir);
    if (globs !== null) out.push({ dir, packages: membersOf(dir, globs) });
  };
  // The root and folders one or two levels down (`web/` in a polyglot repository, a nested yarn workspace).
  consider(root);
  for (const child of subfolders(root)) {
    consider(child);
    for (const grandchild of subfolders(child)) consider(grandchild);
  }
  const references = new Map<string, string>();
  referencedPackages(path.join(root, 'tsconfig.json'), references);
  if (references.size) {
    const rootWorkspace = out.find((w) => w.dir === root);
    if (rootWorkspace) for (const [name, dir] of references) { if (!rootWorkspace.packages.has(name)) rootWorkspace.packages.set(name, dir); }
    else out.push({ dir: root, packages: references });
  }
  return out.filter((w) => w.packages.size > 0);
}

function subfolders(dir: string): string[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !SKIP_DIRS.has(e.name) && !e.name.startsWith('.'))
      .map((e) => path.join(dir, e.name));
  } catch {
    return [];
  }
}
