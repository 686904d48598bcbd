import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Engine } from '../../../../engine/engine';
import type { SearchHit, SearchOutcome, SearchRequest as EngineSearchRequest } from '../../../../engine/search/types';
import { Envelope } from '../../../../../protocol/api/common';
import { SearchData, SearchRequest } from '../../../../../protocol/api/search';
import { researchStreamContent } from '../../../../../protocol/api/research';
import { callerOf, ok } from '../../context';
import { errors } from '../../../common/error-responses';
import { answerResearch } from '../../research-stream';

/** Wire form of a hit: snake_case, optional fields only when they apply. */
export const toWireHit = (h: SearchHit) => ({
  type: h.type, repo_id: h.repoId, repo_name: h.repoName, file_path: h.filePath, score: h.score,
  ...(h.startLine !== undefined ? { start_line: h.startLine, end_line: h.endLine } : {}),
  ...(h.language !== undefined ? { language: h.language } : {}),
  ...(h.snippet ? { snippet: { start_line: h.snippet.startLine, text: h.snippet.text, highlights: h.snippet.highlights } } : {}),
  ...(h.name !== undefined ? { name: h.name, kind: h.kind, signature: h.signature ?? null, exported: h.exported } : {}),
  ...(h.matches !== undefined ? { matches: h.matches } : {}),
  ...(h.doc ? { doc: h.doc } : {}),
});

export const toWireSearch = (o: SearchOutcome) => ({
  results: o.results.map(toWireHit),
  total: o.total,
  totals: o.totals as Record<string, number>,
  search: {
    mode: o.mode, scope: o.scope, repo_ids: o.repoIds, timings: o.timings, warnings: o.warnings,
    ...(o.retriever ? { retriever: o.retriever } : {}),
    ...(o.embedding !== undefined ? { embedding: o.embedding } : {}),
    ...(o.candidates ? { candidates: o.candidates } : {}),
  },
});

/** POST /v2/search: search (JSON, 5 credits, history `search`) or, with `chat: true`, research (NDJSON). */
export async function searchRoutes(fastify: FastifyInstance, engine: Engine): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v2/search', {
    schema: {
      operationId: 'search', tags: ['search'],
      summary: 'Search code, files, functions and repositories (5 credits); with chat: true, stream a research answer',
      description: 'scan_mode semantic ranks by BM25 fused with vector similarity; grep_code returns exactly the lines ripgrep returns '
        + '(a literal, or /pattern/flags with i, m, s); grep_docs greps the files\' generated documentation.',
      body: SearchRequest,
      response: {
        200: {
          description: 'JSON search results; or, with chat: true and Accept: application/x-ndjson, the research stream.',
          content: { 'application/json': { schema: Envelope(SearchData) }, ...researchStreamContent },
        },
        ...errors(400, 401, 402, 406),
      },
    },
    // With chat: true the answer is a stream: it takes one of the key's stream slots (guard.ts), 429 when none is free.
    config: { cost: 5, operation: 'search.run', history: 'search', stream: (request) => (request.body as { chat?: unknown } | undefined)?.chat === true },
  }, async (request, reply) => {
    const body = request.body;
    const caller = callerOf(request);
    const engineRequest: EngineSearchRequest = {
      query: body.query, scope: body.scope, scanMode: body.scan_mode, repoIds: body.repo_ids, repoUrls: body.repo_urls,
      similarityThreshold: body.similarity_threshold, fields: body.fields, limit: body.limit,
      filters: body.filters && {
        fileTypes: body.filters.file_types, filePaths: body.filters.file_paths, dependencies: body.filters.dependencies,
        functionNames: body.filters.function_names, hasFunctions: body.filters.has_functions, minLines: body.filters.min_lines,
        maxLines: body.filters.max_lines, visibility: body.filters.visibility,
      },
    };

    if (body.chat) {
      // Research: the research service streams the answer; this search is its first line and its grounding.
      return answerResearch(engine, request, reply, {
        question: body.query, model: body.model, conversationId: body.conversation_id, repoIds: body.repo_ids,
        search: async () => {
          const outcome = await engine.search.search(caller.userId, engineRequest);
          const wire = toWireSearch(outcome);
          return {
            results: wire.results, total: wire.total, meta: { search: wire.search },
            hits: outcome.results.filter((h) => h.filePath).map((h) => ({
              repoId: h.repoId, repoName: h.repoName, filePath: h.filePath!, startLine: h.startLine ?? null, endLine: h.endLine ?? null, score: h.score,
            })),
          };
        },
      });
    }

    const outcome = await engine.search.search(caller.userId, engineRequest);
    return ok(engine, request, reply, toWireSearch(outcome), {
      history: { query: body.query, repoIds: outcome.repoIds, summary: `${outcome.total} results (${outcome.mode}, ${outcome.scope})` },
    });
  });
}
