import type { RepoSymbolRow } from '../store/analysis-store';
import type { ImportGraph } from './import-graph';
import { findNameUses, usesByName } from './name-usages';
import { bindsModule, offeredNames } from './python-packages';

/** Top-level kinds a repository overview ranks: what other files name (not methods, fields or modules). */
export const RANKED_KINDS: ReadonlySet<string> = new Set(['function', 'variable', 'constant', 'class', 'struct', 'interface', 'trait', 'enum', 'type']);

/** Background work gives the event loop back after this long. */
const SLICE_MS = 10;

/** Two Go files compiled together: the same folder and package clause (an internal test with its package). */
export function sameGoPackage(graph: ImportGraph, a: number, b: number): boolean {
  const fa = graph.files[a];
  const fb = graph.files[b];
  const dir = (p: string) => p.slice(0, Math.max(0, p.lastIndexOf('/')));
  return dir(fa.path) === dir(fb.path) && fa.unit === fb.unit;
}

/**
 * `fileIndex\0name` → the files whose code uses that exported top-level name of that file, for the imports
 * that name nothing: a Go import names a package (`cobra.Command` is written in the code), a C `#include`
 * a header, a Go sibling's `reference` names only the first name it found. An import that lists its names
 * (`from x import a`, `use crate::ast::Ast`, TypeScript's) is counted from those names (repo-facts
 * importedNames) and not read again. Each such user is read once, comments and strings left out
 * (name-usages.ts); a Go file of another package counts only `pkg.Name`.
 */
export async function nameUsers(graph: ImportGraph, exported: Map<number, RepoSymbolRow[]>, read: (path: string) => Promise<string | null>): Promise<Map<string, Set<number>>> {
  const users = new Map<string, Set<number>>();
  const add = (t: number, name: string, u: number) => {
    const key = `${t}\0${name}`;
    let set = users.get(key);
    if (!set) users.set(key, (set = new Set()));
    set.add(u);
  };
  const offers = new Map<number, [number, RepoSymbolRow][]>();
  const offeredBy = (t: number) => {
    let list = offers.get(t);
    if (!list) offers.set(t, (list = offeredNames(graph, t, exported)));
    return list;
  };
  let until = performance.now() + SLICE_MS;
  for (let u = 0; u < graph.files.length; u++) {
    const language = graph.files[u].language;
    if (!language || !usesByName(language) || !graph.out[u].length) continue;
    const named = new Set(graph.statements[u]
      .filter((s) => s.kind !== 'reference' && s.targetPath && s.names.some((n) => n !== '*' && n !== 'default') && !(language === 'python' && bindsModule(s)))
      .map((s) => s.targetPath));
    const plain = new Map<string, number[]>();
    const qualified = new Map<string, number[]>();
    // Python binds only what a statement names: `from django.db.models.expressions import Func` runs django/db/__init__.py
    // (a row without names) but gives the file no name to reach its `connection` by.
    const bound = language === 'python' ? new Set(graph.statements[u].filter((s) => s.targetPath && s.names.length).map((s) => s.targetPath)) : null;
    for (const e of graph.out[u]) {
      const t = e.to;
      if (named.has(graph.path(t)) || (bound && !bound.has(graph.path(t)))) continue;
      const byPackage = language === 'go' && !sameGoPackage(graph, u, t);
      // A Python package offers what its __init__.py re-exports too, each name for the module declaring it.
      const offered = language === 'python' ? offeredBy(t) : (exported.get(t) ?? []).map((s): [number, RepoSymbolRow] => [t, s]);
      for (const [declarer, s] of offered) {
        if (s.parent !== null || !RANKED_KINDS.has(s.kind) || !/^[A-Za-z_]\w*$/.test(s.name)) continue;
        if (byPackage && !/^[A-Z]/.test(s.name)) continue;
        const into = byPackage ? qualified : plain;
        const list = into.get(s.name);
        if (!list) into.set(s.name, [declarer]);
        else if (!list.includes(declarer)) list.push(declarer);
      }
    }
    if (!plain.size && !qualified.size) continue;
    const text = await read(graph.path(u));
    if (text === null) continue;
    // One pass for both: `status.Errorf` is status's Errorf, not grpc's (the word before the dot is the package's
    // name in the file).
    const localName = qualified.size ? goLocalNames(graph, u, text) : null;
    for (const use of findNameUses(language, text, new Set([...plain.keys(), ...qualified.keys()]))) {
      for (const t of plain.get(use.name) ?? []) add(t, use.name, u);
      if (!use.qualifier) continue;
      for (const t of qualified.get(use.name) ?? []) if (use.qualifier === localName!(t)) add(t, use.name, u);
    }
    if (performance.now() > until) {
      await new Promise((resolve) => setImmediate(resolve));
      until = performance.now() + SLICE_MS;
    }
  }
  return users;
}

const dirOf = (p: string) => p.slice(0, Math.max(0, p.lastIndexOf('/')));

/** The name a Go file uses another package's file by: the alias of its import, else the package clause. */
function goLocalNames(graph: ImportGraph, u: number, text: string): (t: number) => string | null {
  const aliases = new Map<string, string>();
  for (const m of text.matchAll(/^\s*(?:import\s+)?([A-Za-z_]\w*)\s+"([^"\n]+)"/gm)) aliases.set(m[2], m[1]);
  const byDir = new Map<string, string>();
  for (const s of graph.statements[u]) {
    const alias = s.kind === 'import' && s.targetPath ? aliases.get(s.specifier) : undefined;
    if (alias) byDir.set(dirOf(s.targetPath!), alias);
  }
  return (t) => byDir.get(dirOf(graph.path(t))) ?? graph.files[t].unit;
}
