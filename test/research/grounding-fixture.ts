import { copyFixture, createTestEngine, indexFolder, type TestEngine } from '../helpers/engine';
import { SqliteResearchStore, type ResearchStore } from '../../server/engine/store/research-store';
import { asyncStore } from '../../server/engine/store/async-store';
import { buildGroundingContext, type GroundingContext, type ResearchHit } from '../../server/engine/research/grounding';

export interface IndexedFixture {
  t: TestEngine;
  repoId: string;
  store: ResearchStore;
  context(question: string, paths: [string, number?, number?][]): Promise<GroundingContext>;
  close(): Promise<void>;
}

/** The ts-paths fixture indexed into a real engine, and grounding built from hits on it. */
export async function indexedFixture(): Promise<IndexedFixture> {
  const t = createTestEngine();
  const repo = await indexFolder(t, copyFixture('ts-paths'));
  const store = new SqliteResearchStore(t.engine.db);
  return {
    t, repoId: repo.id, store,
    context: (question, paths) => buildGroundingContext(asyncStore(store), question, paths.map(([filePath, startLine, endLine], i): ResearchHit => ({
      repoId: repo.id, repoName: repo.name, filePath, startLine: startLine ?? null, endLine: endLine ?? null, score: 1 / (i + 1),
    }))),
    close: () => t.close(),
  };
}
