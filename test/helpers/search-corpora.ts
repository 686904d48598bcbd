import assert from 'node:assert/strict';
import { indexFolder, type TestEngine } from './engine';
import type { SearchRequest } from '../../server/engine/search/types';

/** Indexes each folder for the engine's owner and waits for the vectors, so that searches are hybrid: name → repo id. */
export async function indexCorpora<K extends string>(t: TestEngine, folders: Record<K, string>): Promise<Record<K, string>> {
  const ids = {} as Record<K, string>;
  for (const name of Object.keys(folders) as K[]) ids[name] = (await indexFolder(t, folders[name])).id;
  await t.engine.vectors.idle();
  return ids;
}

/** A file search in one repository, checked to be hybrid (the vectors were ready). */
export async function hybridSearch(t: TestEngine, repoId: string, query: string, more: Partial<SearchRequest> = {}) {
  const r = await t.engine.search.search(t.ownerId, { query, scope: 'files', limit: 10, repoIds: [repoId], ...more });
  assert.deepEqual(r.warnings, [], 'the vectors are ready: the search is hybrid');
  return r.results;
}
