/** Texts and groupings for a file's dependents. Pure, so unit tests cover it. */
import type { DependentEntry, RadiusResult } from '../protocol/lsp';

export interface DependentItem { label: string; description: string; detail: string; uri: string }

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "5 dependents · 1 entry point · 1 test", as the file lens says it. */
export function radiusSummary(radius: Pick<RadiusResult, 'dependents' | 'entryPoints' | 'tests'>): string {
  const parts = [plural(radius.dependents.length, 'dependent', 'dependents')];
  if (radius.entryPoints) parts.push(plural(radius.entryPoints, 'entry point', 'entry points'));
  if (radius.tests) parts.push(plural(radius.tests, 'test', 'tests'));
  return parts.join(' · ');
}

/** Dependents grouped by depth (nearest first), each group sorted: non-tests first, then by path. */
export function byDepth(dependents: DependentEntry[]): [number, DependentEntry[]][] {
  const groups = new Map<number, DependentEntry[]>();
  for (const d of dependents) {
    if (!groups.has(d.depth)) groups.set(d.depth, []);
    groups.get(d.depth)!.push(d);
  }
  return [...groups].sort((a, b) => a[0] - b[0])
    .map(([depth, files]) => [depth, files.sort((a, b) => Number(a.isTest) - Number(b.isTest) || a.path.localeCompare(b.path))]);
}

export function dependentItems(radius: RadiusResult): DependentItem[] {
  return [...radius.dependents]
    .sort((a, b) => a.depth - b.depth || a.path.localeCompare(b.path))
    .map((d) => ({
      label: `${'  '.repeat(Math.min(d.depth - 1, 6))}${d.isTest ? '$(beaker)' : d.isEntryPoint ? '$(rocket)' : '$(file)'} ${d.path}`,
      description: `depth ${d.depth}${d.isEntryPoint ? ' · entry point' : ''}${d.isTest ? ' · test' : ''}`,
      detail: '',
      uri: d.uri,
    }));
}
