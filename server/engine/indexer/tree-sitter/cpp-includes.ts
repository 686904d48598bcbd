import nodePath from 'node:path';
import type { Resolution } from '../resolver';
import { resolvedTo, unresolved } from './language';
import { ancestors, dirOf, joinRel, type RepoFiles } from './repo-files';

/** Where the file an `#include` names is: what the compiler would open, if it is inside the repository. */
export function resolveInclude(fromPath: string, specifier: string, files: RepoFiles): Resolution {
  const system = specifier.startsWith('<');
  const path = system ? specifier.slice(1, -1) : specifier;
  if (path.startsWith('/')) return unresolved(system ? path : null);
  const flags = includeDirs(fromPath, files);
  let candidates: (string | null)[];
  if (flags) {
    // The compiler's own search: quoted includes beside the file, then -iquote; both kinds then -I, -isystem.
    candidates = [...(system ? [] : [dirOf(fromPath), ...flags.quote]), ...flags.angle].map((d) => joinRel(d, path));
  } else {
    const dirs = ancestors(dirOf(fromPath));
    // Without compile_commands.json: quoted beside the including file, then the usual -I roots (each folder
    // above, its include/ and src/); system in the include/ folders above, then, for a path that starts with a
    // folder (`<nlohmann/json.hpp>`), from a folder above that holds it (a project indexed at its include root).
    candidates = system
      ? [...dirs.map((d) => joinRel(d, 'include', path)), ...(path.includes('/') ? dirs.map((d) => joinRel(d, path)) : [])]
      : [joinRel(dirOf(fromPath), path), ...dirs.flatMap((d) => [joinRel(d, path), joinRel(d, 'include', path), joinRel(d, 'src', path)])];
  }
  const target = files.firstFile(candidates) ?? (flags ? null : inOtherIncludeFolder(path, system, files));
  return target ? resolvedTo(target) : unresolved(system ? path : null);
}

/**
 * Without a compilation database, a header of a sibling project: the one file `<any folder>/include/<path>` in the
 * repository (googlemock's `#include "gtest/gtest.h"` is googletest/include/gtest/gtest.h, which its build adds
 * with -I). Two include/ folders holding the path are a guess, so none is taken; nor for a `<name.h>` without a
 * folder, which is the toolchain's far more often than a project's.
 */
function inOtherIncludeFolder(path: string, system: boolean, files: RepoFiles): string | null {
  if (system && !path.includes('/')) return null;
  const found = filesUnderIncludeFolders(files).get(joinRel(path) ?? '');
  return found?.length === 1 ? found[0] : null;
}

const skipDir = (name: string) => name.startsWith('.') || name === 'node_modules';
const SKIP = new Set(['node_modules']);

/** Every file below a folder named include/, keyed by its path below that folder; built once until the files change. */
function filesUnderIncludeFolders(files: RepoFiles): Map<string, string[]> {
  return files.memo('cpp:include-folders', () => {
    const byPath = new Map<string, string[]>();
    for (const folder of files.findAll(['include'], skipDir)) {
      if (!files.isDir(folder)) continue;
      for (const file of files.filesBelow(folder, '', SKIP)) {
        const key = file.slice(folder.length + 1);
        const list = byPath.get(key);
        if (!list) byPath.set(key, [file]);
        else if (!list.includes(file)) list.push(file);
      }
    }
    return byPath;
  });
}

interface IncludeFlags { quote: string[]; angle: string[] }

/**
 * Include directories from the compile_commands.json at the repository root or in build/ (what CMake,
 * Meson and Bear write): the file's own entry, or for a header (no entry) the union of every entry's.
 * Folders outside the repository are dropped. Null when there is no compilation database.
 */
function includeDirs(fromPath: string, files: RepoFiles): IncludeFlags | null {
  const db = files.memo('cpp:compile_commands', () => readCompileCommands(files));
  if (!db) return null;
  return db.byFile.get(fromPath) ?? db.all;
}

function readCompileCommands(files: RepoFiles): { byFile: Map<string, IncludeFlags>; all: IncludeFlags } | null {
  const dbPath = files.firstFile(['compile_commands.json', 'build/compile_commands.json']);
  if (!dbPath) return null;
  let entries: { directory?: string; file?: string; command?: string; arguments?: string[] }[];
  try { entries = JSON.parse(files.read(dbPath) ?? '') as typeof entries; } catch { return null; }
  if (!Array.isArray(entries)) return null;
  const root = files.absoluteRoot;
  const rel = (dir: string, p: string) => {
    const abs = nodePath.resolve(dir, p);
    const r = nodePath.relative(root, abs).split(nodePath.sep).join('/');
    return r.startsWith('..') || nodePath.isAbsolute(r) ? null : r;
  };
  const byFile = new Map<string, IncludeFlags>();
  const all: IncludeFlags = { quote: [], angle: [] };
  for (const e of entries) {
    const dir = nodePath.resolve(root, e.directory ?? '.');
    const args = e.arguments ?? splitCommand(e.command ?? '');
    const flags: IncludeFlags = { quote: [], angle: [] };
    for (let i = 0; i < args.length; i++) {
      const m = /^-(I|iquote|isystem|idirafter)(.*)$/.exec(args[i]);
      if (!m) continue;
      const value = m[2] || args[++i] || '';
      const folder = rel(dir, value);
      if (folder === null) continue;
      (m[1] === 'iquote' ? flags.quote : flags.angle).push(folder);
    }
    const file = e.file ? rel(dir, e.file) : null;
    if (file) byFile.set(file, flags);
    for (const f of flags.quote) if (!all.quote.includes(f)) all.quote.push(f);
    for (const f of flags.angle) if (!all.angle.includes(f)) all.angle.push(f);
  }
  return { byFile, all };
}

/** A shell command line split into words (quotes and backslashes as sh reads them, no expansion). */
function splitCommand(command: string): string[] {
  const words: string[] = [];
  for (const m of command.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|((?:[^\s"'\\]|\\.)+)/g)) {
    words.push((m[1] ?? m[2] ?? m[3]).replace(/\\(.)/g, '$1'));
  }
  return words;
}
