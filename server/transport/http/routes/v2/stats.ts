import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Operations } from '../../../../engine/operations';
import { Envelope } from '../../../../../protocol/api/common';
import { ActivityStats, LanguageStats, LanguagesQuery, RangeQuery, UsageStats } from '../../../../../protocol/api/stats';
import { callerOf, send } from '../../context';
import { errors } from '../../../common/error-responses';

/** /v2/stats/…: usage, daily activity and languages of the caller (free). */
export async function statsRoutes(fastify: FastifyInstance, ops: Operations): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v2/stats/usage', {
    schema: { operationId: 'usageStats', tags: ['stats'], summary: 'Queries and credits by type (free)', querystring: RangeQuery, response: { 200: Envelope(UsageStats), ...errors(400, 401) } },
  }, async (request, reply) => send(reply, await ops.stats.usage(callerOf(request), request.query)));

  app.get('/v2/stats/activity', {
    schema: { operationId: 'activityStats', tags: ['stats'], summary: 'Queries per day, zero days included (free)', querystring: RangeQuery, response: { 200: Envelope(ActivityStats), ...errors(400, 401) } },
  }, async (request, reply) => send(reply, await ops.stats.activity(callerOf(request), request.query)));

  app.get('/v2/stats/languages', {
    schema: { operationId: 'languageStats', tags: ['stats'], summary: 'Languages across your repositories (free)', querystring: LanguagesQuery, response: { 200: Envelope(LanguageStats), ...errors(400, 401) } },
  }, async (request, reply) => send(reply, await ops.stats.languages(callerOf(request), request.query)));
}
