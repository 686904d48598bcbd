/** Quick-pick rows for a file's dependents. Pure, so unit tests cover it. */
import type { RadiusResult } from '../protocol/lsp';

export interface DependentItem { label: string; description: string; detail: string; uri: string }

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
