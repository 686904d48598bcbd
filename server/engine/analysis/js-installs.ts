import path from 'node:path';
import picomatch from 'picomatch';
import { parse as parseYaml } from 'yaml';
import type { Manifest } from './manifests';

/**
 * How a JavaScript repository is installed, as its files say: one install per workspace root (its members are
 * installed with it) and per package outside every workspace, each with the package manager the folder names.
 * The manager of a folder: its package.json's `packageManager`, else its own files (`pnpm-workspace.yaml` or
 * `pnpm-lock.yaml` → pnpm, `yarn.lock` or `.yarnrc.yml` → yarn, `bun.lock` or `bun.lockb` → bun), else the
 * nearest folder above that names one, else npm. Payload (pnpm, 70 package.json files) was told to run
 * `npm install` in every package; it is `pnpm install` at the root, then the examples outside its workspace.
 */
export interface JsInstalls {
  /** Install commands, the repository's root first (`pnpm install`, `cd examples/astro && pnpm install`). */
  installs: string[];
  /** The package manager that runs a package.json's scripts (`npm run build` → `pnpm run build`). */
  managerOf(manifestPath: string): string;
}

const LOCKS: [RegExp, string][] = [
  [/^(pnpm-workspace\.yaml|pnpm-lock\.yaml)$/, 'pnpm'], [/^(yarn\.lock|\.yarnrc\.yml)$/, 'yarn'], [/^bun\.lockb?$/, 'bun'],
  [/^(package-lock|npm-shrinkwrap)\.json$/, 'npm'],
];

/** `readText` reads an indexed file (pnpm-workspace.yaml); `paths` are every file the repository holds. */
export function jsInstalls(manifests: Manifest[], paths: Iterable<string>, readText: (p: string) => string | null): JsInstalls {
  const packages = manifests.filter((m) => m.ecosystem === 'npm' && path.posix.basename(m.path) === 'package.json');
  const dirOf = (p: string) => path.posix.dirname(p);
  const named = new Map<string, string>();
  for (const p of paths) {
    const lock = LOCKS.find(([re]) => re.test(path.posix.basename(p)));
    if (lock && !named.has(dirOf(p))) named.set(dirOf(p), lock[1]);
  }
  for (const m of packages) if (m.packageManager) named.set(dirOf(m.path), m.packageManager);
  const managerAt = (dir: string): string => {
    for (let d = dir; ; d = dirOf(d)) {
      const pm = named.get(d);
      if (pm) return pm;
      if (d === '.') return 'npm';
    }
  };

  // Workspace roots and their member globs: package.json `workspaces`, pnpm-workspace.yaml `packages`.
  const roots = new Map<string, string[]>();
  for (const m of packages) if (m.workspaces?.length) roots.set(dirOf(m.path), [...m.workspaces]);
  for (const p of paths) {
    if (path.posix.basename(p) !== 'pnpm-workspace.yaml') continue;
    let globs: string[] = [];
    try {
      const yaml = parseYaml(readText(p) ?? '') as { packages?: unknown } | null;
      globs = Array.isArray(yaml?.packages) ? yaml.packages.filter((g): g is string => typeof g === 'string') : [];
    } catch { /* unreadable YAML: no members */ }
    roots.set(dirOf(p), [...(roots.get(dirOf(p)) ?? []), ...globs]);
  }
  const member = [...roots].map(([root, globs]) => {
    const clean = (g: string) => g.replace(/^\.\//, '').replace(/\/+$/, '');
    const include = globs.filter((g) => !g.startsWith('!')).map(clean).filter(Boolean);
    const exclude = globs.filter((g) => g.startsWith('!')).map((g) => clean(g.slice(1)));
    const isIn = include.length ? picomatch(include) : () => false;
    const isOut = exclude.length ? picomatch(exclude) : () => false;
    return (dir: string) => {
      if (root !== '.' && !dir.startsWith(`${root}/`)) return false;
      const rel = root === '.' ? dir : dir.slice(root.length + 1);
      return rel !== '.' && isIn(rel) && !isOut(rel);
    };
  });

  const installs: string[] = [];
  for (const m of packages) {
    const dir = dirOf(m.path);
    if (member.some((isMember) => isMember(dir))) continue;
    installs.push(`${dir === '.' ? '' : `cd ${dir} && `}${managerAt(dir)} install`);
  }
  return { installs, managerOf: (manifestPath) => managerAt(dirOf(manifestPath)) };
}
