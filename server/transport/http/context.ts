import type { FastifyReply, FastifyRequest } from 'fastify';
import { refundAnswer, type Answer, type Caller, type CallContext, type Operations } from '../../engine/operations';
import { LoupeError } from '../../engine/errors';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
    /** The answer sent for this request: if the response ends as an error after all, its charge is taken back. */
    answer?: Answer<unknown>;
  }
  interface FastifyContextConfig {
    /** True for routes that need no X-API-Key. */
    public?: boolean;
  }
}

/** The authenticated caller of a protected route. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new LoupeError('UNAUTHORIZED', 'X-API-Key header is required');
  return request.caller;
}

/**
 * What the operation may need from the HTTP request besides its body: the client's address (rate
 * limits) and a signal that aborts when the client goes away before the answer was written.
 */
export function callContext(request: FastifyRequest, reply: FastifyReply): CallContext {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the client went away'));
  });
  return { client: request.ip, signal: controller.signal };
}

/** The success envelope around an operation's answer: `{status, message?, data, pagination?, meta}`. */
export function send<T>(reply: FastifyReply, answer: Answer<T>) {
  reply.request.answer = answer;
  return reply.send({
    status: 'success',
    ...(answer.message ? { message: answer.message } : {}),
    data: answer.data,
    ...(answer.pagination ? { pagination: answer.pagination } : {}),
    meta: answer.meta,
  });
}

/**
 * The last step before a response is written (an `onSend` hook): an answer that was settled (charged,
 * history written) but whose response is an error after all (it failed to serialize, so the client
 * gets a 500) is refunded, so a call that does not succeed costs nothing and leaves no history.
 */
export function refundUndelivered(request: FastifyRequest, reply: FastifyReply): void {
  const answer = request.answer;
  if (!answer || reply.statusCode < 400) return;
  request.answer = undefined;
  try {
    refundAnswer(answer);
  } catch (error) {
    request.log.error(`could not take back the charge of a failed response: ${(error as Error).message}`);
  }
}

/**
 * The caller of a protected route: `X-API-Key`, or else `Authorization: Bearer <session token>`
 * from /v2/auth (the session stands for the key it was opened with).
 */
export function authenticateRequest(ops: Operations, request: FastifyRequest): Promise<Caller> {
  const key = request.headers['x-api-key'];
  const authorization = request.headers.authorization;
  const bearer = typeof authorization === 'string' && /^bearer\s+/i.test(authorization) ? authorization.replace(/^bearer\s+/i, '') : undefined;
  // A repeated X-API-Key header is no key at all (401), not a reason to fall back to the session.
  return ops.auth.caller({ apiKey: key === undefined ? undefined : typeof key === 'string' ? key : '', sessionToken: bearer });
}
