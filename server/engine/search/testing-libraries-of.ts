import type { SearchStore } from '../store/search-store';
import type { Async } from '../store/surface';
import { testingLibraries, type TestingLibraries } from '../analysis/testing-libraries';

/** Per store and repository: generation → the repository's testing libraries (they depend on all of its paths). */
const cache = new WeakMap<object, Map<string, { generation: number; libraries: TestingLibraries }>>();

/** Each repository's test folders that are libraries for writing tests (analysis/testing-libraries.ts), by repository id. */
export async function testingLibrariesOf(search: Async<SearchStore>, repoIds: string[]): Promise<Map<string, TestingLibraries>> {
  const generations = await search.generations(repoIds);
  const mine = cache.get(search) ?? cache.set(search, new Map()).get(search)!;
  const stale = repoIds.filter((id, i) => mine.get(id)?.generation !== generations[i]);
  if (stale.length) {
    const paths = new Map(stale.map((id) => [id, [] as string[]]));
    for (const f of await search.files(stale)) paths.get(f.repoId)?.push(f.path);
    stale.forEach((id) => mine.set(id, { generation: generations[repoIds.indexOf(id)], libraries: testingLibraries(paths.get(id)!) }));
  }
  return new Map(repoIds.map((id) => [id, mine.get(id)!.libraries]));
}
