import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CODE_OP_COST, CODE_OPS, type Operations } from '../../../../engine/operations';
import { Envelope, PagedEnvelope } from '../../../../../protocol/api/common';
import { HistoryItem } from '../../../../../protocol/api/history';
import {
  CodeOpRequest, CodeOpResult, ExplainRequest, ExplainResult, FundiChatRequest, FundiChatResult, FundiHistoryRequest, FundiStatus,
} from '../../../../../protocol/api/fundi';
import { callContext, callerOf, send } from '../../context';
import { errors } from '../../../common/error-responses';

/**
 * Legacy `/v1/fundi…`, kept for old clients: each route is a thin adapter over a V2 operation
 * (ops.legacy), marked deprecated in the OpenAPI document, with a `Deprecation` header.
 */
export async function fundiRoutes(fastify: FastifyInstance, ops: Operations): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onSend', async (request, reply) => {
    if (request.routeOptions.url?.startsWith('/v1/')) reply.header('Deprecation', 'true').header('Link', '</openapi.json>; rel="successor-version"');
  });

  app.get('/v1/fundi', {
    schema: { operationId: 'fundiStatus', tags: ['v1'], deprecated: true, summary: 'Legacy status (use /v2)', response: { 200: Envelope(FundiStatus), ...errors(401) } },
  }, async (request, reply) => send(reply, await ops.legacy.status(callerOf(request))));

  app.get('/v1/fundi/models', {
    schema: { operationId: 'fundiModels', tags: ['v1'], deprecated: true, summary: 'Legacy model list (GET /v2/models)', response: { 200: Envelope(Type.Array(Type.Unknown())), ...errors(401) } },
  }, async (request, reply) => send(reply, await ops.legacy.modelList(callerOf(request))));

  app.post('/v1/fundi/chat', {
    schema: {
      operationId: 'fundiChat', tags: ['v1'], deprecated: true, summary: 'Legacy chat: POST /v2/search with chat: true, collected into one answer',
      body: FundiChatRequest, response: { 200: Envelope(FundiChatResult), ...errors(400, 401, 402, 503) },
    },
  }, async (request, reply) => send(reply, await ops.legacy.chat(callerOf(request), request.body, callContext(request, reply))));

  app.post('/v1/fundi/history', {
    schema: {
      operationId: 'fundiHistory', tags: ['v1'], deprecated: true, summary: 'Legacy history (GET /v2/history)',
      body: FundiHistoryRequest, response: { 200: PagedEnvelope(Type.Array(HistoryItem)), ...errors(400, 401) },
    },
  }, async (request, reply) => send(reply, await ops.legacy.history(callerOf(request), request.body)));

  app.post('/v1/fundi/explain', {
    schema: {
      operationId: 'fundiExplain', tags: ['v1'], deprecated: true,
      summary: `Legacy explain: a snippet through a generative model (${CODE_OP_COST} credits + usage), or an indexed file through research (POST /v2/search, chat: true)`,
      body: ExplainRequest, response: { 200: Envelope(ExplainResult), ...errors(400, 401, 402, 404, 501, 503) },
    },
  }, async (request, reply) => send(reply, await ops.legacy.explain(callerOf(request), request.body, callContext(request, reply))));

  for (const op of CODE_OPS.filter((o): o is Exclude<typeof o, 'explain'> => o !== 'explain')) {
    app.post(`/v1/fundi/${op}`, {
      schema: {
        operationId: `fundi${op[0].toUpperCase()}${op.slice(1)}`, tags: ['v1'], deprecated: true,
        summary: `Legacy ${op}: a generative chat model ${op}s the code sent (${CODE_OP_COST} credits + model usage)`,
        body: CodeOpRequest, response: { 200: Envelope(CodeOpResult), ...errors(400, 401, 402, 501, 503) },
      },
    }, async (request, reply) => send(reply, await ops.legacy.codeOp(callerOf(request), op, request.body, callContext(request, reply))));
  }
}
