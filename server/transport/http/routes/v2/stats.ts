import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Engine } from '../../../../engine/engine';
import { Stats } from '../../../../engine/accounts/stats';
import { Envelope } from '../../../../../protocol/api/common';
import { ActivityStats, LanguageStats, LanguagesQuery, RangeQuery, UsageStats } from '../../../../../protocol/api/stats';
import { callerOf, ok } from '../../context';
import { errors } from '../../../common/error-responses';

/** /v2/stats/…: usage, daily activity and languages of the caller (free). */
export async function statsRoutes(fastify: FastifyInstance, engine: Engine): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const stats = new Stats(engine.history.store, engine.accounts);

  app.get('/v2/stats/usage', {
    schema: { operationId: 'usageStats', tags: ['stats'], summary: 'Queries and credits by type (free)', querystring: RangeQuery, response: { 200: Envelope(UsageStats), ...errors(400, 401) } },
    config: { cost: 0, operation: 'stats.usage' },
  }, async (request, reply) => ok(engine, request, reply, stats.usage(callerOf(request).userId, request.query.range)));

  app.get('/v2/stats/activity', {
    schema: { operationId: 'activityStats', tags: ['stats'], summary: 'Queries per day, zero days included (free)', querystring: RangeQuery, response: { 200: Envelope(ActivityStats), ...errors(400, 401) } },
    config: { cost: 0, operation: 'stats.activity' },
  }, async (request, reply) => ok(engine, request, reply, stats.activity(callerOf(request).userId, request.query.range)));

  app.get('/v2/stats/languages', {
    schema: { operationId: 'languageStats', tags: ['stats'], summary: 'Languages across your repositories (free)', querystring: LanguagesQuery, response: { 200: Envelope(LanguageStats), ...errors(400, 401) } },
    config: { cost: 0, operation: 'stats.languages' },
  }, async (request, reply) => ok(engine, request, reply, stats.languages(callerOf(request).userId, request.query.range)));
}
