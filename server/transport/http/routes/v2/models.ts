import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Engine } from '../../../../engine/engine';
import type { ChatModelInfo } from '../../../../engine/research/model-provider';
import { Envelope } from '../../../../../protocol/api/common';
import { ChatModel, ModelLimits, ModelLimitsQuery } from '../../../../../protocol/api/models';
import { ok } from '../../context';
import { errors } from '../../../common/error-responses';

const toChatModel = (m: ChatModelInfo & { isDefault: boolean }) => ({
  id: m.id, provider: m.provider, description: m.description, kind: m.kind, context_window: m.contextWindow,
  max_output: m.maxOutput, credits_per_1k_tokens: m.creditsPer1kTokens, default: m.isDefault,
});

const toLimits = (m: ChatModelInfo) => ({
  id: m.id, context_window: m.contextWindow, max_output: m.maxOutput, max_input: Math.max(0, m.contextWindow - m.maxOutput),
});

/** /v2/models…: the chat models research can use (free). */
export async function modelsRoutes(fastify: FastifyInstance, engine: Engine): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v2/models', {
    schema: {
      operationId: 'listModels', tags: ['research'], summary: 'Chat models for research (`model` with `chat: true`), the default first (free)',
      response: { 200: Envelope(Type.Array(ChatModel)), ...errors(401) },
    },
    config: { cost: 0, operation: 'models.list' },
  }, async (request, reply) => {
    const models = await engine.research.models.list();
    models.sort((a, b) => Number(b.isDefault) - Number(a.isDefault));
    return ok(engine, request, reply, models.map(toChatModel));
  });

  app.get('/v2/models/limits', {
    schema: {
      operationId: 'listModelLimits', tags: ['research'], summary: 'Context and output limits of each chat model, or of one (free)',
      querystring: ModelLimitsQuery,
      response: { 200: Envelope(Type.Array(ModelLimits)), ...errors(400, 401) },
    },
    config: { cost: 0, operation: 'models.limits' },
  }, async (request, reply) => {
    const wanted = request.query.model;
    const models = wanted ? [(await engine.research.models.resolve(wanted)).info] : await engine.research.models.list();
    return ok(engine, request, reply, models.map(toLimits));
  });
}
