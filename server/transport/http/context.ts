import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Caller, UsageMeta } from '../../engine/accounts/accounts';
import type { Reservation } from '../../engine/accounts/credits';
import type { HistoryInput, HistoryRef } from '../../engine/accounts/history';
import type { Engine } from '../../engine/engine';
import { LoupeError } from '../../engine/errors';
import { isUuid } from '../../engine/util/ids';
import type { Pagination } from '../../../protocol/api/common';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
    /** Credits set aside by the pre-check for this call; settled by ok() or released at the end. */
    reservation?: Reservation;
  }
  interface FastifyContextConfig {
    /** True for routes that need no X-API-Key. */
    public?: boolean;
    /** Credits charged when the operation succeeds (configuration may override per operation). */
    cost?: number;
    /** Name of the operation in the ledger and history. */
    operation?: string;
    /** History category: when set, ok() writes a history row for every successful call. */
    history?: string;
  }
}

/** The authenticated caller of a protected route. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new LoupeError('UNAUTHORIZED', 'X-API-Key header is required');
  return request.caller;
}

export const operationOf = (request: FastifyRequest): string =>
  request.routeOptions.config?.operation ?? request.routeOptions.url ?? 'unknown';

/** The cost of this route for this engine: configuration first, then the route's `config.cost`. */
export const costOf = (engine: Engine, request: FastifyRequest): number =>
  engine.accounts.costOf(operationOf(request), request.routeOptions.config?.cost ?? 0);

/**
 * Credits are checked before the operation runs and charged when it succeeds. The pre-check
 * reserves the route's cost (402 with `required` and `available` if it is not there, before any
 * work); ok() (or a streaming route's own `engine.accounts.settle`) turns the reservation into a
 * charge; whatever else happens (an error, a closed connection), the reservation is released.
 */
export function installCreditHooks(app: FastifyInstance, engine: Engine): void {
  app.addHook('preHandler', async (request, reply) => {
    if (!request.caller) return;
    const cost = costOf(engine, request);
    if (cost <= 0) return;
    const reservation = engine.accounts.reserve(request.caller.userId, cost, operationOf(request));
    request.reservation = reservation;
    reply.raw.once('close', () => engine.accounts.credits.release(reservation));
  });
  app.addHook('onResponse', async (request) => {
    if (request.reservation) engine.accounts.credits.release(request.reservation);
  });
}

export interface OkExtra {
  pagination?: Pagination;
  message?: string;
  /** Overrides the route's cost (a variable cost: research adds model usage). */
  cost?: number;
  /** History row fields; the category comes from `config.history` unless given here. */
  history?: Partial<Omit<HistoryInput, 'userId' | 'credits'>>;
  /** The operation's own writes, run in the same transaction as the charge (synchronous). */
  effect?: () => void;
  /** Route-specific meta fields (file docs: `processing`, `fields_applied`). */
  meta?: Record<string, unknown>;
}

/**
 * Sends the success envelope. The operation's writes (`effect`), the charge and the history row
 * are one transaction, committed before the answer is sent (group commit: the paid calls answered
 * in the same turn of the event loop share it), so meta reports the balance after this call.
 * The history row's ids go to `meta.history_id` / `meta.conversation_id`.
 */
export async function ok<T>(engine: Engine, request: FastifyRequest, reply: FastifyReply, data: T, extra: OkExtra = {}) {
  const caller = request.caller;
  let history: HistoryRef | null = null;
  let usage: UsageMeta | null = null;
  if (caller) {
    const category = extra.history?.category ?? request.routeOptions.config?.history;
    const settled = await engine.accounts.settleSoon({
      userId: caller.userId,
      operation: operationOf(request),
      credits: extra.cost ?? costOf(engine, request),
      reservation: request.reservation,
      history: category ? { durationMs: reply.elapsedTime, repoIds: repoIdsOf(request), ...extra.history, category } : undefined,
    }, extra.effect);
    history = settled.history;
    usage = engine.accounts.usage(caller.plan, settled.balance);
  }
  const meta = {
    updated_at: new Date().toISOString(),
    tier: usage?.tier ?? 'ANONYMOUS',
    credits_used: usage?.credits_used ?? 0,
    credits_remaining: usage?.credits_remaining ?? 0,
    ...(usage ? { max_repos_allowed: usage.max_repos_allowed } : {}),
    ...(history ? { history_id: history.historyId, ...(history.conversationId ? { conversation_id: history.conversationId } : {}) } : {}),
    ...extra.meta,
  };
  return reply.send({ status: 'success', ...(extra.message ? { message: extra.message } : {}), data, ...(extra.pagination ? { pagination: extra.pagination } : {}), meta });
}

/** Default repositories of a history row: the route's `repo_id` path parameter when it is a UUID. */
function repoIdsOf(request: FastifyRequest): string[] {
  const id = (request.params as { repo_id?: unknown } | undefined)?.repo_id;
  return typeof id === 'string' && isUuid(id) ? [id.toLowerCase()] : [];
}

export const page = (total: number, limit: number, offset: number): Pagination => ({ total, limit, offset, has_more: offset + limit < total });

/**
 * The caller of a protected route: `X-API-Key`, or else `Authorization: Bearer <session token>`
 * from /v2/auth (the session stands for the key it was opened with).
 */
export function authenticateRequest(engine: Engine, request: FastifyRequest): Caller {
  const key = request.headers['x-api-key'];
  const authorization = request.headers.authorization;
  if (key === undefined && typeof authorization === 'string' && /^bearer\s+/i.test(authorization)) {
    return engine.auth.callerForSession(authorization.replace(/^bearer\s+/i, ''));
  }
  return engine.accounts.authenticate(typeof key === 'string' ? key : undefined);
}
