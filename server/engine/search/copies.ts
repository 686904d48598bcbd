import type { SearchStore, SearchFileRow } from '../store/search-store';
import type { Async } from '../store/surface';
import { fileRole } from './file-role';

/**
 * Built copies of the repository's own sources: a package that ships its build beside its sources
 * (@tanstack/query-core: `build/legacy/retryer.js`, `build/modern/retryer.cjs`, `build/*\/retryer.d.ts` beside
 * `src/retryer.ts`) had every answer four or five times, the copies competing with the file a reader edits.
 * `dist/` is a generated role by its name alone (file-role.ts); `build/`, `lib/`, `out/`, … cannot be (many
 * repositories keep scripts or their sources there), so a file under such a folder counts as a copy only when the
 * repository also holds the source it was made from: a file outside those folders with the same path tail (the part
 * after the output folder, less variant folders such as `legacy/`, and less the extension) beside the output folder
 * (`packages/a/src/` for `packages/a/build/`), neither a test nor an example, and, when both define names, some of the
 * same ones. Ranked as generated (hybrid.ts).
 */
const OUTPUT = /^(build|lib|out|dist|es|esm|cjs|umd|compiled|_build)$/i;
/** Extensions of code that is compiled or copied into an output folder (the copy's may differ from the source's). */
const CODE = /\.(d\.[cm]?ts|[cm]?[jt]sx?|py|rb|go|rs|java|kt|c|cc|cpp|h|hpp)$/i;
/**
 * The share of the names of the side defining fewer (copy or source) that the other defines, at least. The path tail
 * is the strong sign; the names only turn away an unrelated file of the same name. query-core's retryer.cjs shares 6 of
 * src/retryer.ts's 13 (its types are gone, a bundler's seven helpers came), an unrelated file next to none.
 */
const SAME_NAMES = 1 / 3;

const stripExt = (p: string) => p.replace(CODE, '');
const extOf = (p: string) => CODE.exec(p)?.[1].toLowerCase() ?? '';
const JS_OUT = /^(d\.[cm]?ts|[cm]?jsx?)$/;
const JS_IN = /^([cm]?tsx?|[cm]?jsx?)$/;
/** A copy's extension is its source's, or JavaScript (or declarations) built from TypeScript or JavaScript; never a `.c` from its `.h`. */
const builtFrom = (copy: string, source: string) => {
  const [c, s] = [extOf(copy), extOf(source)];
  return c === s || (JS_OUT.test(c) && JS_IN.test(s) && !s.startsWith('d.'));
};

/**
 * A path under an output folder, split there: the folder holding the output folder (`packages/a/`, or the root) and
 * the tail after it, less the extension (`packages/a/build/legacy/retryer.js` → `packages/a/`, `legacy/retryer`).
 */
export function outputSplit(path: string): { prefix: string; tail: string } | null {
  if (!CODE.test(path)) return null;
  const parts = path.split('/');
  for (let i = parts.length - 2; i >= 0; i--) {
    if (OUTPUT.test(parts[i])) return { prefix: parts.slice(0, i).map((p) => `${p}/`).join(''), tail: stripExt(parts.slice(i + 1).join('/')) };
  }
  return null;
}

/** Per store and repository: generation → source files by base name (without extension). */
const cache = new WeakMap<object, Map<string, { generation: number; byName: Map<string, SearchFileRow[]> }>>();

async function sourcesByName(search: Async<SearchStore>, repoIds: string[]): Promise<Map<string, Map<string, SearchFileRow[]>>> {
  const generations = await search.generations(repoIds);
  const mine = cache.get(search) ?? cache.set(search, new Map()).get(search)!;
  const stale = repoIds.filter((id, i) => mine.get(id)?.generation !== generations[i]);
  if (stale.length) {
    const fresh = new Map(stale.map((id) => [id, new Map<string, SearchFileRow[]>()]));
    for (const f of await search.files(stale)) {
      if (!CODE.test(f.path) || outputSplit(f.path) || fileRole(f.path)) continue;
      const base = stripExt(f.path.slice(f.path.lastIndexOf('/') + 1));
      const byName = fresh.get(f.repoId)!;
      byName.set(base, [...(byName.get(base) ?? []), f]);
    }
    stale.forEach((id) => mine.set(id, { generation: generations[repoIds.indexOf(id)], byName: fresh.get(id)! }));
  }
  return new Map(repoIds.map((id) => [id, mine.get(id)!.byName]));
}

/** The ids of `files` that are built copies of a source the repository holds (see the header). */
export async function builtCopies(search: Async<SearchStore>, files: SearchFileRow[]): Promise<Set<number>> {
  const out = new Set<number>();
  const candidates: { copy: SearchFileRow; sources: SearchFileRow[] }[] = [];
  const maybe = files.filter((f) => outputSplit(f.path));
  if (!maybe.length) return out;
  const sources = await sourcesByName(search, [...new Set(maybe.map((f) => f.repoId))]);
  for (const copy of maybe) {
    const { prefix, tail } = outputSplit(copy.path)!;
    const base = tail.slice(tail.lastIndexOf('/') + 1);
    // A source beside the output folder (under `prefix`): its path there, less its first folder (src/, source/) or
    // not, and less its extension, ends the copy's tail at a folder boundary.
    const matching = (sources.get(copy.repoId)?.get(base) ?? []).filter((s) => {
      if (!s.path.startsWith(prefix) || !builtFrom(copy.path, s.path)) return false;
      const plain = stripExt(s.path.slice(prefix.length));
      const rel = plain.includes('/') ? plain.slice(plain.indexOf('/') + 1) : plain;
      return [rel, plain].some((r) => tail === r || tail.endsWith(`/${r}`));
    });
    if (matching.length) candidates.push({ copy, sources: matching });
  }
  if (!candidates.length) return out;
  const symbols = await search.symbols([...new Set(candidates.flatMap((c) => [c.copy.id, ...c.sources.map((s) => s.id)]))]);
  const names = new Map<number, Set<string>>();
  for (const s of symbols) (names.get(s.fileId) ?? names.set(s.fileId, new Set()).get(s.fileId)!).add(s.name);
  // Most names of the smaller side are the other's: a bundler adds helpers of its own (`__export`, `__toCommonJS`),
  // a declaration file keeps only the exported names, JavaScript loses the source's types.
  for (const { copy, sources: from } of candidates) {
    const own = names.get(copy.id) ?? new Set<string>();
    const held = (s: SearchFileRow) => {
      const theirs = [...(names.get(s.id) ?? [])];
      if (!theirs.length || !own.size) return true;
      return theirs.filter((n) => own.has(n)).length / Math.min(theirs.length, own.size) >= SAME_NAMES;
    };
    if (from.some(held)) out.add(copy.id);
  }
  return out;
}
