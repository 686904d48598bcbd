/**
 * A real sidecar on 127.0.0.1 with an indexed fixture, and a route that runs the research branch
 * (what POST /v2/search does with chat: true) over hits on that fixture, so the
 * streaming transport is tested on its own, independently of the search ranking.
 */
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { copyFixture, createTestEngine, indexFolder, type TestEngine } from '../helpers/engine';
import { createHttpApp } from '../../server/host';
import { researchOverFixedHits } from '../helpers/fixed-research';
import type { EngineConfig } from '../../server/engine/engine';

export interface Harness {
  t: TestEngine;
  app: FastifyInstance;
  url: string;
  repoId: string;
  close(): Promise<void>;
}

export const RESEARCH_PATH = '/test/research';

export async function startHarness(config: Partial<EngineConfig> = {}): Promise<Harness> {
  const t = createTestEngine(config);
  const repo = await indexFolder(t, copyFixture('ts-paths'));
  const app = await createHttpApp(t.engine);
  app.post(RESEARCH_PATH, { config: { stream: true } }, async (request, reply) => {
    const body = request.body as { query: string; model?: string; conversation_id?: string };
    return researchOverFixedHits(t.engine, request, reply, {
      question: body.query, model: body.model, conversationId: body.conversation_id, repoIds: [repo.id],
      found: {
        results: [{ type: 'code', repo_id: repo.id, file_path: 'src/app/area.ts', start_line: 4, end_line: 7, score: 1 }],
        total: 1, meta: { mode: 'fixed hits' },
        hits: [
          { repoId: repo.id, repoName: repo.name, filePath: 'src/app/area.ts', startLine: 4, endLine: 7, score: 1 },
          { repoId: repo.id, repoName: repo.name, filePath: 'src/lib/math.ts', startLine: null, endLine: null, score: 0.5 },
        ],
      },
    });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { t, app, repoId: repo.id, url: `http://127.0.0.1:${port}${RESEARCH_PATH}`, close: async () => { await app.close(); await t.close(); } };
}
