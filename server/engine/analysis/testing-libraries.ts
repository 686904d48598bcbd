/**
 * Folders named test/tests/testing that hold a library for writing tests, not tests: Django's `django/test/`
 * (`TestCase`, `Client`, `override_settings`, imported by Django itself and by every Django project),
 * numpy's `numpy/testing/`. Python and Go find tests by file name (unittest/pytest: `test_*.py`, `*_test.py`,
 * Django's `tests.py`; Go: `*_test.go`, the only files `go test` compiles tests from), so a folder of Python or Go
 * code in which no file is so named holds no tests. Other languages' runners take any file under test/ (mocha's
 * default is `./test/*.js`), so their folders stay tests whatever their files are named.
 */
const FOLDER = /^(tests?|testing)$/i;
/** Named as Python's or Go's runners find tests (broader than entry-points.ts' names, so that doubt keeps a folder tests). */
const RUN_AS_TESTS = /(^|\/)(test_[^/]*|[^/]*_tests?|tests?)\.pyw?$|_test\.go$/i;
const LIBRARY_CODE = /\.(pyw?|pyi|go)$/i;
/** Code of another language: its runner may take any file name, so the folder may hold tests. */
const OTHER_CODE = /\.([cm]?[jt]sx?|rb|java|kt|kts|scala|groovy|php|rs|cs|swift|c|cc|cpp|cxx|h|hpp|m|mm|ex|exs|erl|lua|pl|pm|t|sh|bash|zsh|dart|clj|hs|ml|r|jl|vue|svelte)$/i;

export interface TestingLibraries {
  /** The folders (`django/test/`, ending in `/`) judged libraries. */
  folders: ReadonlySet<string>;
  /** The path is under a test/tests/testing folder, and every such folder it is under is a library. */
  holds(path: string): boolean;
}

/** The test-named folders a path is under, outermost first (`tests/testing/` → `tests/`, `tests/testing/`). */
function testFolders(path: string): string[] {
  const parts = path.split('/');
  const out: string[] = [];
  for (let i = 0; i < parts.length - 1; i++) if (FOLDER.test(parts[i])) out.push(`${parts.slice(0, i + 1).join('/')}/`);
  return out;
}

/** The path is under a test/tests/testing folder: only then can a testing library change its role. */
export const underTestFolder = (path: string): boolean => testFolders(path).length > 0;

/**
 * The testing libraries among a repository's paths. A folder counts its own files and those of its subfolders that
 * are not themselves test folders (numpy's `testing/_private/utils.py` is `testing/`'s; `testing/tests/test_utils.py`
 * is `testing/tests/`'s, which stays tests). It is a library when those files include Python or Go code, no code of
 * another language, and no file named as its runner finds tests.
 */
export function testingLibraries(paths: Iterable<string>): TestingLibraries {
  const seen = new Map<string, { code: boolean; tests: boolean }>();
  for (const p of paths) {
    const own = testFolders(p).pop();
    if (!own) continue;
    const group = seen.get(own) ?? seen.set(own, { code: false, tests: false }).get(own)!;
    if (RUN_AS_TESTS.test(p) || OTHER_CODE.test(p)) group.tests = true;
    else if (LIBRARY_CODE.test(p)) group.code = true;
  }
  const folders = new Set([...seen].filter(([, g]) => g.code && !g.tests).map(([f]) => f));
  return {
    folders,
    holds: (path) => {
      if (!folders.size) return false;
      const under = testFolders(path);
      return under.length > 0 && under.every((f) => folders.has(f));
    },
  };
}

export const NO_TESTING_LIBRARIES: TestingLibraries = { folders: new Set(), holds: () => false };

const byGraph = new WeakMap<object, TestingLibraries>();

/** An import graph's testing libraries, worked out once per graph (a graph's files do not change). */
export function librariesOf(graph: { files: readonly { path: string }[] }): TestingLibraries {
  let libraries = byGraph.get(graph);
  if (!libraries) byGraph.set(graph, (libraries = testingLibraries(graph.files.map((f) => f.path))));
  return libraries;
}
