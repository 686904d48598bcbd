import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Operations } from '../../../../engine/operations';
import { Envelope } from '../../../../../protocol/api/common';
import { ChatModel, ModelLimits, ModelLimitsQuery } from '../../../../../protocol/api/models';
import { callerOf, send } from '../../context';
import { errors } from '../../../common/error-responses';

/** /v2/models…: the chat models research can use (free). */
export async function modelsRoutes(fastify: FastifyInstance, ops: Operations): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v2/models', {
    schema: {
      operationId: 'listModels', tags: ['research'], summary: 'Chat models for research (`model` with `chat: true`), the default first (free)',
      response: { 200: Envelope(Type.Array(ChatModel)), ...errors(401) },
    },
  }, async (request, reply) => send(reply, await ops.models.list(callerOf(request))));

  app.get('/v2/models/limits', {
    schema: {
      operationId: 'listModelLimits', tags: ['research'], summary: 'Context and output limits of each chat model, or of one (free)',
      querystring: ModelLimitsQuery,
      response: { 200: Envelope(Type.Array(ModelLimits)), ...errors(400, 401) },
    },
  }, async (request, reply) => send(reply, await ops.models.limits(callerOf(request), request.query)));
}
