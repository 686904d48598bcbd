import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../engine/accounts/accounts';
import type { Engine } from '../../engine/engine';
import { LoupeError } from '../../engine/errors';
import type { Pagination } from '../../../protocol/api/common';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
  interface FastifyContextConfig {
    /** True for routes that need no X-API-Key. */
    public?: boolean;
    /** Credits charged when the operation succeeds. */
    cost?: number;
    /** Name of the operation in the ledger and history. */
    operation?: string;
  }
}

/** The authenticated caller of a protected route. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new LoupeError('UNAUTHORIZED', 'X-API-Key header is required');
  return request.caller;
}

/**
 * Sends the success envelope. When the route has a cost, the charge is written before the meta is
 * read, so meta reports the balance after this call.
 */
export function ok<T>(engine: Engine, request: FastifyRequest, reply: FastifyReply, data: T, extra: { pagination?: Pagination; message?: string; cost?: number } = {}) {
  const caller = request.caller;
  const cost = extra.cost ?? request.routeOptions.config.cost ?? 0;
  if (caller && cost > 0) engine.accounts.charge(caller.userId, request.routeOptions.config.operation ?? request.routeOptions.url ?? 'unknown', cost);
  const usage = caller ? engine.accounts.meta(caller.userId) : null;
  const meta = {
    updated_at: new Date().toISOString(),
    tier: usage?.tier ?? 'ANONYMOUS',
    credits_used: usage?.credits_used ?? 0,
    credits_remaining: usage?.credits_remaining ?? 0,
    ...(usage ? { max_repos_allowed: usage.max_repos_allowed } : {}),
  };
  return reply.send({ status: 'success', ...(extra.message ? { message: extra.message } : {}), data, ...(extra.pagination ? { pagination: extra.pagination } : {}), meta });
}

export const page = (total: number, limit: number, offset: number): Pagination => ({ total, limit, offset, has_more: offset + limit < total });
