import { isPythonStdlib } from '../stdlib';
import { ABOVE_ROOT, baseDirOf, packageAt, pythonPath, rootPackageName } from './python-roots';
import { dirOf, joinRel, type RepoFiles } from './repo-files';

/** What importlib's PathFinder finds for one module: its file (none for a namespace package) and, for a package, its folders. */
export interface ModuleSpec { file: string | null; locations: string[] | null }

/**
 * PathFinder's search for the last part of a module name along `entries`: in each folder a regular package
 * (`name/__init__.py`) first, then a module (`name.py`); the first entry that has either wins. Folders without
 * `__init__.py` are namespace-package portions, used only when no entry has a regular one. A stub alone
 * (`name.pyi`, a compiled extension's description) stands for the module when nothing else does.
 */
export function findSpec(name: string, entries: readonly string[], files: RepoFiles): ModuleSpec | null {
  const portions: string[] = [];
  for (const entry of entries) {
    const dir = packageAt(entry, name, files);
    if (dir === null) continue;
    const init = joinRel(dir, '__init__.py');
    if (files.isFile(init)) return { file: init, locations: [dir] };
    if (dir !== '' && files.isFile(`${dir}.py`)) return { file: `${dir}.py`, locations: null };
    if (files.isDir(dir)) portions.push(dir);
  }
  if (portions.length) return { file: null, locations: portions };
  for (const entry of entries) {
    const stub = entry === ABOVE_ROOT ? null : joinRel(entry, `${name}.pyi`);
    if (stub !== null && files.isFile(stub)) return { file: stub, locations: null };
  }
  return null;
}

/** Each module of a dotted name that imports (parents first); shorter than `parts` where one is missing. */
export function findChain(parts: readonly string[], entries: readonly string[], files: RepoFiles): ModuleSpec[] {
  const chain: ModuleSpec[] = [];
  let locations: readonly string[] | null = entries;
  for (const part of parts) {
    if (!locations) break;
    const spec = findSpec(part, locations, files);
    if (!spec) break;
    chain.push(spec);
    locations = spec.locations;
  }
  return chain;
}

/** A module name as written (`a.b`, `.x`, `..`) made absolute, with the folders to look for it in. */
export interface AbsoluteName { parts: string[]; entries: string[]; relative: boolean }

/**
 * Relative names resolve against the importing file's package (its folders up to the one its module name
 * starts from, as importlib.util.resolve_name does); beyond the top-level package they resolve to nothing.
 */
export function absoluteName(fromPath: string, specifier: string, files: RepoFiles): AbsoluteName | null {
  const dots = /^\.*/.exec(specifier)![0].length;
  const rest = specifier.slice(dots).split('.').filter(Boolean);
  if (dots === 0) return { parts: rest, entries: pythonPath(fromPath, files), relative: false };
  const base = baseDirOf(fromPath, files);
  const dir = dirOf(fromPath);
  // A root that is itself a package sits in the folder above the repository, under its folder's name.
  const inside = base === ABOVE_ROOT ? (dir === '' ? [] : dir.split('/')) : null;
  const pkg = inside ? [rootPackageName(files), ...inside] : dir === base ? [] : (base === '' ? dir : dir.slice(base.length + 1)).split('/');
  if (dots > pkg.length) return null;
  return { parts: [...pkg.slice(0, pkg.length - (dots - 1)), ...rest], entries: [base], relative: true };
}

/** How one import resolves: its module's file, or the package name it stands for when not the project's. */
export function resolveModule(fromPath: string, specifier: string, files: RepoFiles): { file: string | null; chain: ModuleSpec[]; packageName: string | null; name: AbsoluteName | null } {
  const name = absoluteName(fromPath, specifier, files);
  if (!name || name.parts.length === 0) return { file: null, chain: [], packageName: null, name };
  if (!name.relative && isPythonStdlib(name.parts[0])) return { file: null, chain: [], packageName: name.parts[0], name };
  const chain = findChain(name.parts, name.entries, files);
  if (chain.length === 0) return { file: null, chain, packageName: name.relative ? null : name.parts[0], name };
  const complete = chain.length === name.parts.length;
  return { file: complete ? chain[chain.length - 1].file : null, chain, packageName: null, name };
}
