import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { ancestors, dirOf, joinRel, type RepoFiles } from './repo-files';

/** Folders never searched for Python projects. */
const skipDir = (name: string) => name.startsWith('.') || name === 'node_modules' || name === '__pycache__' || name === 'site-packages';

type Table = Record<string, unknown>;
const table = (v: unknown): Table => (v && typeof v === 'object' && !Array.isArray(v) ? v as Table : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : typeof v === 'string' ? [v] : []);

/** Folders a pyproject.toml puts packages in (setuptools, poetry, hatch, pdm, maturin), relative to its folder. */
function pyprojectDirs(text: string): string[] {
  let doc: Table;
  try { doc = parseToml(text) as Table; } catch { return []; }
  const tool = table(doc.tool);
  const setuptools = table(tool.setuptools);
  const hatchWheel = table(table(table(table(tool.hatch).build).targets).wheel);
  return [
    ...strings(table(setuptools['package-dir'])['']),
    ...strings(table(table(setuptools.packages).find).where),
    ...(Array.isArray(table(tool.poetry).packages) ? (table(tool.poetry).packages as unknown[]).flatMap((p) => strings(table(p).from)) : []),
    ...strings(hatchWheel.packages).map((p) => dirOf(p)),
    ...Object.entries(table(hatchWheel.sources)).filter(([, to]) => to === '').map(([from]) => from),
    ...strings(table(table(tool.pdm).build)['package-dir']),
    ...strings(table(tool.maturin)['python-source']),
  ];
}

/** `[options] package_dir = =src` and `[options.packages.find] where = src` of a setup.cfg. */
function setupCfgDirs(text: string): string[] {
  const out: string[] = [];
  let section = '';
  let key = '';
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s[#;].*$/, '');
    const header = /^\[([^\]]+)\]/.exec(line);
    if (header) { section = header[1].trim(); key = ''; continue; }
    const entry = /^([A-Za-z_][\w.-]*)\s*[=:]\s*(.*)$/.exec(line);
    const value = entry ? entry[2].trim() : /^\s+\S/.test(line) ? line.trim() : null;
    if (entry) key = entry[1];
    if (value === null || value === '') continue;
    if (section === 'options' && key === 'package_dir') {
      const m = /^=\s*(\S+)$/.exec(value);
      if (m) out.push(m[1]);
    } else if (section === 'options.packages.find' && key === 'where') out.push(value);
  }
  return out;
}

/** `package_dir={'': 'src'}` and `find_packages('src')` / `find_packages(where='src')` in a setup.py. */
function setupPyDirs(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/package_dir\s*=\s*\{\s*(['"])\1\s*:\s*['"]([^'"]+)['"]/g)) out.push(m[2]);
  for (const m of text.matchAll(/find(?:_namespace)?_packages\(\s*(?:where\s*=\s*)?['"]([^'"]+)['"]/g)) out.push(m[1]);
  return out;
}

const NAMES = ['pyproject.toml', 'setup.cfg', 'setup.py', 'src'];

/** A source root and the project folder it belongs to (a `src/` folder's parent, a manifest's folder). */
interface Root { dir: string; project: string }

const rootsCache = new WeakMap<RepoFiles, { at: string[]; roots: Root[] }>();

/**
 * The project's source roots (where its absolute imports are found): the repository root, every `src/`
 * folder that is not itself a package (the src layout, wherever a project sits), and for each pyproject.toml,
 * setup.cfg and setup.py its folder and the package folders it declares.
 */
function sourceRoots(files: RepoFiles): Root[] {
  const found = files.findAll(NAMES, skipDir);
  const cached = rootsCache.get(files);
  if (cached?.at === found) return cached.roots;
  const roots: Root[] = [];
  const add = (dir: string | null, project: string) => {
    if (dir !== null && !roots.some((r) => r.dir === dir) && files.isDir(dir)) roots.push({ dir, project });
  };
  add('', '');
  // In code-unit order of the paths, as the oracle (bench/oracles/python-graph.py) sorts them.
  for (const entry of [...found].sort()) {
    const name = entry.slice(entry.lastIndexOf('/') + 1);
    const dir = dirOf(entry);
    if (name === 'src') {
      if (!files.isFile(joinRel(entry, '__init__.py'))) add(entry, dir);
      continue;
    }
    const text = files.read(entry) ?? '';
    add(dir, dir);
    for (const d of name === 'pyproject.toml' ? pyprojectDirs(text) : name === 'setup.cfg' ? setupCfgDirs(text) : setupPyDirs(text)) add(joinRel(dir, d), dir);
  }
  rootsCache.set(files, { at: found, roots });
  return roots;
}

const isWithin = (dir: string, project: string) => project === '' || dir === project || dir.startsWith(`${project}/`);

/**
 * sys.path for a file inside the repository: the folder its module name starts from (`baseDirOf`), then the
 * source roots of the projects it sits in, nearest project first, then every other source root. When the root
 * is itself a package, the folder above it comes right after the file's own folder for every file: a script
 * in a folder without `__init__.py` (django/bin/django-admin.py) imports the package it ships in by name.
 */
export function pythonPath(fromPath: string, files: RepoFiles): string[] {
  const base = baseDirOf(fromPath, files);
  const dir = dirOf(fromPath);
  const roots = sourceRoots(files);
  const own = roots.filter((r) => isWithin(dir, r.project)).sort((a, b) => b.project.length - a.project.length);
  const above = rootIsPackage(files) ? [ABOVE_ROOT] : [];
  const order = [base, ...above, ...own.map((r) => r.dir), ...roots.filter((r) => !isWithin(dir, r.project)).map((r) => r.dir)];
  return order.filter((d, i) => order.indexOf(d) === i);
}

/**
 * The folder a file's module name starts from: the nearest folder above it that is not a package (has no
 * `__init__.py`). As a script, the file runs with it as sys.path[0]; pytest puts it there for a test file.
 */
export function baseDirOf(filePath: string, files: RepoFiles): string {
  for (const dir of ancestors(dirOf(filePath))) {
    if (dir === '') return rootIsPackage(files) ? ABOVE_ROOT : '';
    if (!files.isFile(joinRel(dir, '__init__.py'))) return dir;
  }
  return '';
}

/**
 * The folder above the repository, as a sys.path entry, when the repository's root is itself a package
 * (`__init__.py` at the root: a package folder opened on its own, such as `site-packages/flask` or
 * `src/mypkg`). Python finds that package there under the root folder's name; nothing else above the
 * root is visible (`packageAt`), so resolution still never leaves the repository.
 */
export const ABOVE_ROOT = '\0above-root';

export const rootIsPackage = (files: RepoFiles): boolean => files.isFile('__init__.py');

/** The package the root is, by its folder's name (as `import flask` finds `…/flask/__init__.py`). */
export const rootPackageName = (files: RepoFiles): string => path.basename(files.absoluteRoot);

/** A sys.path entry joined with a module name: the folder it names in the repository, or null. */
export function packageAt(entry: string, name: string, files: RepoFiles): string | null {
  if (entry !== ABOVE_ROOT) return joinRel(entry, name);
  return rootIsPackage(files) && name === rootPackageName(files) ? '' : null;
}
