import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Operations } from '../../../../engine/operations';
import { Envelope, PagedEnvelope } from '../../../../../protocol/api/common';
import { Conversation, ConversationIdParams, HistoryIdParams, HistoryItem, ListHistoryQuery } from '../../../../../protocol/api/history';
import { callerOf, send } from '../../context';
import { errors } from '../../../common/error-responses';

/** /v2/history…: the caller's own operations and conversation threads (free). */
export async function historyRoutes(fastify: FastifyInstance, ops: Operations): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v2/history', {
    schema: {
      operationId: 'listHistory', tags: ['history'], summary: 'Your history, newest first (free)',
      querystring: ListHistoryQuery,
      response: { 200: PagedEnvelope(Type.Array(HistoryItem)), ...errors(400, 401) },
    },
  }, async (request, reply) => send(reply, await ops.history.list(callerOf(request), request.query)));

  app.get('/v2/history/:history_id', {
    schema: {
      operationId: 'getHistoryItem', tags: ['history'], summary: 'One history row (free)',
      params: HistoryIdParams,
      response: { 200: Envelope(HistoryItem), ...errors(401, 404) },
    },
  }, async (request, reply) => send(reply, await ops.history.get(callerOf(request), request.params)));

  app.get('/v2/history/conversation/:conversation_id', {
    schema: {
      operationId: 'getConversation', tags: ['history'], summary: 'A whole conversation thread, in order (free)',
      params: ConversationIdParams,
      response: { 200: Envelope(Conversation), ...errors(401, 404) },
    },
  }, async (request, reply) => send(reply, await ops.history.conversation(callerOf(request), request.params)));
}
