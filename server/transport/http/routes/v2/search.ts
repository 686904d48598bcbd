import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Operations } from '../../../../engine/operations';
import type { Logger } from '../../../../engine/log';
import { PagedEnvelope } from '../../../../../protocol/api/common';
import { SearchData, SearchRequest } from '../../../../../protocol/api/search';
import { researchStreamContent } from '../../../../../protocol/api/research';
import { callContext, callerOf, send } from '../../context';
import { errors } from '../../../common/error-responses';
import { assertAcceptsNdjson, streamNdjson } from '../../ndjson';

/** POST /v2/search: search (JSON) or, with `chat: true`, research (NDJSON). */
export async function searchRoutes(fastify: FastifyInstance, ops: Operations, log: Logger): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v2/search', {
    schema: {
      operationId: 'search', tags: ['search'],
      summary: 'Search code, files, functions and repositories (5 credits); with chat: true, stream a research answer',
      description: 'scan_mode semantic ranks by BM25 fused with vector similarity; grep_code returns exactly the lines ripgrep returns '
        + '(a literal, or /pattern/flags with i, m, s), every matching line up to 1,000 per page by default (`pagination`, `offset` for the next); '
        + 'grep_docs greps the files\' generated documentation.',
      body: SearchRequest,
      response: {
        200: {
          description: 'JSON search results; or, with chat: true and Accept: application/x-ndjson, the research stream.',
          content: { 'application/json': { schema: PagedEnvelope(SearchData) }, ...researchStreamContent },
        },
        ...errors(400, 401, 402, 406, 429),
      },
    },
    // With chat: true the answer is a stream: it takes one of the key's stream slots (guard.ts), 429 when none is free.
    config: { stream: (request) => (request.body as { chat?: unknown } | undefined)?.chat === true },
  }, async (request, reply) => {
    const caller = callerOf(request);
    // A search with a retrieval model stops the model call when the client goes away.
    if (!request.body.chat) return send(reply, await ops.search.run(caller, request.body, callContext(request, reply)));
    // Research: every refusal (406 here; 402, 400, 404 in the operation) is an ordinary JSON error
    // before the first byte; then the answer streams as NDJSON.
    assertAcceptsNdjson(request);
    const research = await ops.search.research(caller, request.body);
    reply.raw.once('close', () => research.cancel());
    await streamNdjson(request, reply, log, (signal) => research.events(signal), { 'x-loupe-model': research.model });
  });
}
