import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Operations } from '../../../../engine/operations';
import { Envelope } from '../../../../../protocol/api/common';
import { AgentCredential, AgentCredentialsRequest } from '../../../../../protocol/api/agent';
import { callerOf, send } from '../../context';
import { errors } from '../../../common/error-responses';

/** POST /v2/agent/credentials: short-lived keys for agents, derived from the caller's key (free). */
export async function agentRoutes(fastify: FastifyInstance, ops: Operations): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v2/agent/credentials', {
    schema: {
      operationId: 'agentCredentials', tags: ['keys'],
      summary: 'Mint or refresh a short-lived agent credential (free)',
      description: 'Each call returns a new credential usable as X-API-Key until it expires (15 minutes by default) or its parent key is disabled. ' +
        'Calling it with an agent credential refreshes from the same parent. rotate: true disables the live ones first. ' +
        'A user may have 10 live credentials (configurable); past that the answer is 429 with Retry-After (when the oldest expires). ' +
        'Expired credentials are purged a day after they expire.',
      body: AgentCredentialsRequest,
      response: { 200: Envelope(AgentCredential), ...errors(400, 401, 429) },
    },
  }, async (request, reply) => send(reply, await ops.keys.agentCredential(callerOf(request), request.body)));
}
