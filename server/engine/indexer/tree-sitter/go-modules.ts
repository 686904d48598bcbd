import { ancestors, dirOf, joinRel, type RepoFiles } from './repo-files';

/** A module of the repository: its path (`module` line, or the left side of a local `replace`) and folder. */
interface GoModule { path: string; dir: string }

/** Folders the go command never looks into for packages or modules. */
const skipDir = (name: string) => name.startsWith('.') || name.startsWith('_') || name === 'testdata' || name === 'vendor' || name === 'node_modules';

const stripComment = (line: string) => line.replace(/\/\/.*$/, '').trim();
const unquote = (s: string) => s.replace(/^"(.*)"$/, '$1').replace(/^`(.*)`$/, '$1');

/** `module` and the `replace` directives whose target is a folder (`=> ./x`, `=> ../x`) of a go.mod. */
export function parseGoMod(text: string): { module: string | null; replaces: { path: string; dir: string }[] } {
  let module: string | null = null;
  const replaces: { path: string; dir: string }[] = [];
  let block: string | null = null;
  for (const raw of text.split('\n')) {
    const line = stripComment(raw);
    if (!line) continue;
    if (block) {
      if (line === ')') { block = null; continue; }
      if (block === 'replace') addReplace(line);
      continue;
    }
    const m = /^(module|replace|require|exclude|retract|go|toolchain|godebug)\b\s*(.*)$/.exec(line);
    if (!m) continue;
    if (m[2] === '(') { block = m[1]; continue; }
    if (m[1] === 'module') module = unquote(m[2].trim()) || null;
    else if (m[1] === 'replace') addReplace(m[2]);
  }
  function addReplace(spec: string) {
    const [left, right] = spec.split('=>').map((s) => s.trim());
    if (!left || !right) return;
    const target = unquote(right.split(/\s+/)[0]);
    if (target.startsWith('./') || target.startsWith('../') || target === '.' || target === '..') replaces.push({ path: unquote(left.split(/\s+/)[0]), dir: target });
  }
  return { module, replaces };
}

const modulesCache = new WeakMap<RepoFiles, { at: string[]; modules: GoModule[] }>();

/**
 * Every module of the repository: each go.mod's module (root or nested), and each local `replace`
 * target inside the repository. They form one workspace, as a go.work listing them all would.
 */
export function goModules(files: RepoFiles): GoModule[] {
  const goMods = files.findAll(['go.mod'], skipDir);
  const cached = modulesCache.get(files);
  if (cached && cached.at === goMods) return cached.modules;
  const modules: GoModule[] = [];
  for (const file of goMods) {
    const { module, replaces } = parseGoMod(files.read(file) ?? '');
    const dir = dirOf(file);
    if (module) modules.push({ path: module, dir });
    for (const r of replaces) {
      const target = joinRel(dir, r.dir);
      if (target !== null && files.isFile(joinRel(target, 'go.mod'))) modules.push({ path: r.path, dir: target });
    }
  }
  // Longest path first: a nested module owns its folder; the module's own go.mod before a replace naming it.
  modules.sort((a, b) => b.path.length - a.path.length);
  modulesCache.set(files, { at: goMods, modules });
  return modules;
}

/** The folder of the nearest go.mod at or above `dir` (any go.mod: one in testdata still fences its folder off). */
function moduleRootOf(dir: string, files: RepoFiles): string | null {
  for (const d of ancestors(dir)) if (files.isFile(joinRel(d, 'go.mod'))) return d;
  return null;
}

/**
 * The folder in the repository holding the package `importPath`, and one of its files; `local` is true when
 * a module of the repository owns the path even if the folder has no Go file (yet).
 */
export function goPackage(importPath: string, files: RepoFiles): { dir: string; file: string } | { local: boolean } {
  let local = false;
  for (const m of goModules(files)) {
    if (importPath !== m.path && !importPath.startsWith(`${m.path}/`)) continue;
    local = true;
    const dir = joinRel(m.dir, importPath.slice(m.path.length + 1));
    // A folder under a nested go.mod belongs to that module, not to this one.
    if (dir === null || moduleRootOf(dir, files) !== m.dir) continue;
    const names = files.list(dir).filter((n) => n.endsWith('.go') && !n.endsWith('_test.go'));
    // The stored edge names one file: the one named like the package (`gin.go` for …/gin, also at a module's root).
    const unversioned = importPath.replace(/\/v\d+$/, '');
    const base = unversioned.slice(unversioned.lastIndexOf('/') + 1);
    const file = names.find((n) => n === `${base}.go`) ?? names[0];
    if (file) return { dir, file: joinRel(dir, file)! };
  }
  return { local };
}
