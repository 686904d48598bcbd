/** What the "Radius of My Change" view says about a result. Pure, so unit tests cover it. */
import type { ChangeRadiusResult } from '../../protocol/lsp';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function changeSummary(r: Pick<ChangeRadiusResult, 'changed' | 'dependents' | 'tests' | 'entryPoints'>): string {
  const parts = [
    `${plural(r.changed.length, 'changed file affects', 'changed files affect')} ${plural(r.dependents.length, 'file', 'files')}`,
  ];
  if (r.entryPoints) parts.push(plural(r.entryPoints, 'entry point', 'entry points'));
  parts.push(`${plural(r.tests.length, 'test', 'tests')} to run`);
  return parts.join(' · ');
}
