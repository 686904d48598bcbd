/**
 * Standard libraries, so that an import of one never resolves to a project file and is never listed as a
 * project's dependency. Python's names come from the interpreter (python-names.ts is generated); Go's
 * rule is the toolchain's own: a standard-library import path has no dot in its first element.
 */
import { isOtherStandardLibrary } from './others';
import { PYTHON2_STDLIB, PYTHON_STDLIB } from './python-names';

const python3 = new Set(PYTHON_STDLIB);
const python2 = new Set(PYTHON2_STDLIB);

const topLevel = (dotted: string) => dotted.split('.', 1)[0];

/** `os.path`, `json`, `xml.etree.ElementTree`: a module of Python 3's standard library (by its top-level name). */
export function isPythonStdlib(moduleName: string): boolean {
  return python3.has(topLevel(moduleName));
}

/**
 * True also for Python 2's standard-library names (`cPickle`, `urllib2`, `ConfigParser`): not a dependency
 * of the project when no project file has that name (Python 3 would import a project file that has it).
 */
export function isPythonStdlibAnyVersion(moduleName: string): boolean {
  return python3.has(topLevel(moduleName)) || python2.has(topLevel(moduleName));
}

/**
 * `fmt`, `net/http`, `C` (cgo): the Go standard library, whose import paths have no dot in their first
 * element. Ask only for paths that no module of the repository provides: a module may be named `myapp`.
 */
export function isGoStdlib(importPath: string): boolean {
  const first = importPath.split('/', 1)[0];
  return first !== '' && !first.includes('.');
}

/** The standard library of `language` (as `detectLanguage` names it) holds `name`; false for other languages. */
export function isStandardLibrary(language: string | null, name: string): boolean {
  if (language === 'python') return isPythonStdlibAnyVersion(name);
  if (language === 'go') return isGoStdlib(name);
  return isOtherStandardLibrary(language, name);
}
