import type { ImportGraph } from './import-graph';

/** `fileIndex\0name` → the files that import that name from that file. */
export type NameImporters = Map<string, Set<number>>;

/**
 * Python: a name imported from a package (`from django.http import HttpRequest`) is one of the module that declares
 * it, reached through the package's `__init__.py`, which re-exports what it imports (kind `export`, `export-all` for
 * `*`). Adds each such importer to the declaring module's name; the package itself declares nothing of it.
 */
export function throughPackages(graph: ImportGraph, importers: NameImporters, declares: (file: number, name: string) => boolean): NameImporters {
  const out: NameImporters = new Map(importers);
  for (const [key, users] of importers) {
    const cut = key.indexOf('\0');
    const file = Number(key.slice(0, cut));
    const name = key.slice(cut + 1);
    if (graph.files[file].language !== 'python' || declares(file, name)) continue;
    const declarer = declarerOf(graph, file, name, declares, new Set());
    if (declarer === undefined) continue;
    const at = `${declarer}\0${name}`;
    out.set(at, new Set([...out.get(at) ?? [], ...users]));
  }
  return out;
}

/** The module `name` comes from, following `file`'s re-exports (a package's explicit ones first, then its `*`). */
function declarerOf(graph: ImportGraph, file: number, name: string, declares: (file: number, name: string) => boolean, seen: Set<number>): number | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  const rows = graph.statements[file].filter((s) => s.targetPath !== null && ((s.kind === 'export' && s.names.includes(name)) || s.kind === 'export-all'));
  rows.sort((a, b) => Number(a.kind === 'export-all') - Number(b.kind === 'export-all'));
  for (const s of rows) {
    const to = graph.indexOfPath.get(s.targetPath!);
    if (to === undefined || graph.files[to].language !== 'python') continue;
    if (declares(to, name)) return to;
    const deeper = declarerOf(graph, to, name, declares, seen);
    if (deeper !== undefined) return deeper;
  }
  return undefined;
}
