import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Operations } from '../../../engine/operations';
import { Liveness, Readiness } from '../../../../protocol/api/health';
import { errors } from '../../common/error-responses';

/**
 * /health (liveness) and /health/ready (readiness), for load balancers and orchestrators: no key,
 * no credits, no account data, never cached. What each checks is operations/health.ts's.
 */
export async function healthRoutes(fastify: FastifyInstance, ops: Operations): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/health', {
    config: { public: true },
    schema: {
      operationId: 'liveness', tags: ['health'], security: [],
      summary: 'Liveness: the process answers (no key, free; reads no database)',
      description: 'For a liveness probe: 200 while the process answers requests. It reads no database, so an outage of the database does not get healthy nodes restarted; use /health/ready to route traffic.',
      response: { 200: Liveness, ...errors(400, 403) },
    },
  }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return ops.health.live();
  });

  app.get('/health/ready', {
    config: { public: true },
    schema: {
      operationId: 'readiness', tags: ['health'], security: [],
      summary: 'Readiness: every database answers and its schema is current (no key, free)',
      description: 'For a load balancer\'s health check or a readiness probe: 200 when every database this node serves from (PostgreSQL on a team server, the data dir\'s SQLite) answers within 2 s and has every migration this build needs; 503 `SERVICE_UNAVAILABLE` (with `Retry-After` and the failed checks in `details.checks`) otherwise. Probes share one query and run on a connection of their own, so a busy node stays ready.',
      response: { 200: Readiness, ...errors(400, 403, 503) },
    },
  }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return ops.health.ready();
  });
}
