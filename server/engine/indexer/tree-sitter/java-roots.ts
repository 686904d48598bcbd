import { dirOf, type RepoFiles } from './repo-files';

/**
 * Java's repository-wide lookups (tree-sitter/java.ts): the source roots of any build layout, and the file that
 * declares a package whatever its folder. Each is one walk of the repository, kept until its files change.
 */

const skipDir = (name: string) => name.startsWith('.') || name === 'node_modules';
const SKIP_FOLDERS = new Set(['node_modules']);
/** A type's name is capitalised (`List`, `Outer`); a package's segments are not. */
export const isTypeName = (name: string) => /^\p{Lu}/u.test(name);

/**
 * The folders of the repository that hold a folder named `first` (a package's first segment, `com`): the source
 * roots a package may live under whatever the build's layout (Bazel's java/ and javatests/, an Ant src/ and test/),
 * nearest the file first. javac, given a folder's files together, finds a type in any of them; so does Loupe once
 * the Maven/Gradle layouts above the file have not. One walk of the repository per first segment, until its files change.
 */
export function sourceRootsHolding(files: RepoFiles, first: string, fromPath: string): string[] {
  const roots = files.memo(`java:roots:${first}`, () => files.findAll([first], skipDir).filter((p) => files.isDir(p)).map(dirOf));
  if (roots.length < 2) return roots;
  const from = dirOf(fromPath);
  return files.memo(`java:roots:${first}:${from}`, () => nearest(roots, fromPath));
}

/**
 * A type whose file is not in its package's folders (javac goes by the `package` line, not the folder: Bazel keeps
 * `com.google.devtools.build.runfiles` in tools/java/runfiles/): the file named like it (`C.java`, anywhere in the
 * repository) that declares the package, nearest `fromPath` first; the longest type-like prefix first, as typeUnder.
 */
export function declaredWhereverNamed(segments: string[], fromPath: string, files: RepoFiles): string | null {
  for (let k = segments.length; k >= 1; k--) {
    if (!isTypeName(segments[k - 1])) continue;
    const found = declaredAnywhere(segments.slice(0, k - 1).join('.'), segments[k - 1], fromPath, files);
    if (found) return found;
  }
  return null;
}

/**
 * The file `<name>.java` that declares package `pkg`, other than `fromPath`, wherever it is; nearest `fromPath` first.
 * Not the default package: its files in different folders are different programs (examples, test data).
 */
export function declaredAnywhere(pkg: string, name: string, fromPath: string, files: RepoFiles): string | null {
  if (pkg === '') return null;
  const byName = files.memo('java:by-name', () => {
    const map = new Map<string, string[]>();
    for (const file of files.filesBelow('', '.java', SKIP_FOLDERS)) {
      const base = file.slice(file.lastIndexOf('/') + 1);
      const list = map.get(base);
      if (list) list.push(file); else map.set(base, [file]);
    }
    return map;
  });
  const named = (byName.get(`${name}.java`) ?? []).filter((f) => f !== fromPath && declaredPackage(f, files) === pkg);
  return nearest(named, fromPath)[0] ?? null;
}

/** The package a .java file declares, read from its text (comments left out); '' for none. */
function declaredPackage(rel: string, files: RepoFiles): string {
  return files.memo(`java:package:${rel}`, () => {
    const head = (files.read(rel) ?? '').slice(0, 64 * 1024).replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
    return /^\s*(?:@[\w$.]+(?:\([^)]*\))?\s*)*package\s+([\w$]+(?:\s*\.\s*[\w$]+)*)\s*;/.exec(head)?.[1].replace(/\s+/g, '') ?? '';
  });
}

/** Paths ordered by how many leading folders they share with `fromPath` (most first), then by path. */
function nearest(paths: string[], fromPath: string): string[] {
  if (paths.length < 2) return paths;
  const b = fromPath.split('/');
  const shared = (p: string) => {
    const a = p.split('/');
    let n = 0;
    while (n < a.length && a[n] === b[n]) n++;
    return n;
  };
  return paths.map((p) => [p, shared(p)] as const).sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).map(([p]) => p);
}
