import type { ImportGraph } from './import-graph';

/** `fileIndex\0name` → the files that import that name from that file. */
/**
 * A Python `from django.db import models` whose one name is the specifier's last part binds that module, not a name
 * of it (its code then says `models.Model`), as the stored row reads it.
 */
export const bindsModule = (s: { specifier: string; names: string[] }): boolean => s.names.length === 1 && s.specifier.split('.').pop() === s.names[0];

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

/**
 * Python: the names a module offers and the file declaring each: its own exported top-level symbols, then what its
 * re-exports bring (`from .base import Model` the names listed; `from .fields import *` the names fields declares
 * and its own `*`s, not what it merely imports, which its `__all__` usually leaves out), transitively.
 * `django.db.models` offers Model (base.py) and CharField (fields/__init__.py): `models.Model` uses base.py's.
 */
export function offeredNames<S extends { name: string; parent: string | null }>(graph: ImportGraph, file: number, symbols: Map<number, S[]>): [number, S][] {
  const out: [number, S][] = [];
  const seen = new Set<string>();
  const visit = (at: number, only: Set<string> | null, starred: boolean) => {
    const key = `${at}\0${starred}\0${only ? [...only].join(',') : '*'}`;
    if (seen.has(key) || seen.size > 500) return;
    seen.add(key);
    for (const s of symbols.get(at) ?? []) if (s.parent === null && (!only || only.has(s.name))) out.push([at, s]);
    for (const row of graph.statements[at]) {
      if (row.targetPath === null || (row.kind !== 'export' && row.kind !== 'export-all') || (starred && row.kind === 'export')) continue;
      const to = graph.indexOfPath.get(row.targetPath);
      if (to === undefined || to === at || graph.files[to].language !== 'python') continue;
      const names = row.kind === 'export' ? new Set(row.names.filter((n) => !only || only.has(n))) : only;
      if (!names || names.size) visit(to, names, row.kind === 'export-all');
    }
  };
  visit(file, null, false);
  const unique = new Map(out.map(([at, s]) => [`${at}\0${s.name}`, [at, s] as [number, S]]));
  return [...unique.values()];
}
