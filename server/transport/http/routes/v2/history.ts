import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Engine } from '../../../../engine/engine';
import { LoupeError } from '../../../../engine/errors';
import { parseTimeBound } from '../../../../engine/accounts/history';
import { Envelope, PagedEnvelope } from '../../../../../protocol/api/common';
import { Conversation, ConversationIdParams, HistoryIdParams, HistoryItem, ListHistoryQuery } from '../../../../../protocol/api/history';
import { callerOf, ok, page } from '../../context';
import { errors } from '../../../common/error-responses';

/** /v2/history…: the caller's own operations and conversation threads (free). */
export async function historyRoutes(fastify: FastifyInstance, engine: Engine): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v2/history', {
    schema: {
      operationId: 'listHistory', tags: ['history'], summary: 'Your history, newest first (free)',
      querystring: ListHistoryQuery,
      response: { 200: PagedEnvelope(Type.Array(HistoryItem)), ...errors(400, 401) },
    },
    config: { cost: 0, operation: 'history.list' },
  }, async (request, reply) => {
    const q = request.query;
    const from = q.from === undefined ? undefined : parseTimeBound(q.from, 'query.from', 'start');
    const to = q.to === undefined ? undefined : parseTimeBound(q.to, 'query.to', 'end');
    if (from && to && from > to) throw new LoupeError('VALIDATION_FAILED', 'query.from: must not be after query.to', { field: 'from' });
    const { items, total } = engine.history.list(callerOf(request).userId, { limit: q.limit, offset: q.offset, from, to });
    return ok(engine, request, reply, items, { pagination: page(total, q.limit, q.offset) });
  });

  app.get('/v2/history/:history_id', {
    schema: {
      operationId: 'getHistoryItem', tags: ['history'], summary: 'One history row (free)',
      params: HistoryIdParams,
      response: { 200: Envelope(HistoryItem), ...errors(401, 404) },
    },
    config: { cost: 0, operation: 'history.get' },
  }, async (request, reply) => ok(engine, request, reply, engine.history.get(callerOf(request).userId, request.params.history_id)));

  app.get('/v2/history/conversation/:conversation_id', {
    schema: {
      operationId: 'getConversation', tags: ['history'], summary: 'A whole conversation thread, in order (free)',
      params: ConversationIdParams,
      response: { 200: Envelope(Conversation), ...errors(401, 404) },
    },
    config: { cost: 0, operation: 'history.conversation' },
  }, async (request, reply) => ok(engine, request, reply, engine.history.conversation(callerOf(request).userId, request.params.conversation_id)));
}
