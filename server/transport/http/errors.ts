import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, LoupeError, type ErrorCode } from '../../engine/errors';
import type { Logger } from '../../engine/log';
import { validationError } from '../common/validate';
import { machineFailure } from '../../engine/operations/failures';
import { errorBody } from '../common/error-body';

/** Fastify's own error codes mapped to ours, so that every failure has the documented shape. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'VALIDATION_FAILED',
  FST_ERR_CTP_INVALID_JSON_BODY: 'VALIDATION_FAILED',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_BAD_URL: 'BAD_REQUEST',
  FST_ERR_ASYNC_CONSTRAINT: 'BAD_REQUEST',
};

export function toLoupeError(error: unknown): LoupeError {
  if (error instanceof LoupeError) return error;
  const fe = error as FastifyError & { validation?: unknown[]; validationContext?: string };
  if (fe.validation) return validationError(fe.validation as never, fe.validationContext ?? 'body');
  if (fe.code && FASTIFY_CODES[fe.code]) {
    const code = FASTIFY_CODES[fe.code];
    const message = code === 'VALIDATION_FAILED' ? `body: ${fe.message.replace(/^Body /, '')}` : fe.message;
    return new LoupeError(code, message);
  }
  if ((error as SyntaxError)?.name === 'SyntaxError' && fe.statusCode === 400) {
    return new LoupeError('VALIDATION_FAILED', `body: is not valid JSON (${fe.message})`, { field: 'body' });
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    const code = (Object.keys(ERROR_CODES) as ErrorCode[]).find((c) => ERROR_CODES[c].status === fe.statusCode) ?? 'BAD_REQUEST';
    return new LoupeError(code, fe.message);
  }
  // A full disk or a read-only data dir is the machine's state, not a bug: say so.
  const storage = machineFailure(error);
  if (storage) return storage;
  return new LoupeError('INTERNAL', 'An unexpected error occurred; it was logged. Retry with backoff.');
}

/**
 * The challenge of every 401 (RFC 9110 §11.6.1): a key in X-API-Key, or a session token as a bearer.
 * Keys never go in URLs (they end up in logs and browser histories).
 */
export const WWW_AUTHENTICATE = 'ApiKey realm="Loupe", header="X-API-Key", Bearer realm="Loupe"';

export function makeErrorHandler(log: Logger) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const loupe = toLoupeError(error);
    if (loupe.code === 'INTERNAL') log.error(`${request.method} ${request.routeOptions.url ?? request.url} failed:`, error as Error);
    if (loupe.headers) reply.headers(loupe.headers);
    if (loupe.code === 'UNAUTHORIZED') reply.header('WWW-Authenticate', WWW_AUTHENTICATE);
    return reply.code(loupe.status).type('application/json').send(errorBody(loupe));
  };
}

/**
 * Errors the router raises before any hook or handler (Fastify's `frameworkErrors` option): without
 * it Fastify answers them in its own shape (`FST_ERR_BAD_URL`, a 414 `FST_ERR_MAX_PARAM_LENGTH`).
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const loupe = error.code === 'FST_ERR_MAX_PARAM_LENGTH'
    ? new LoupeError('URI_TOO_LONG', 'a path segment of the URL is longer than the server accepts; send long inputs in a POST body')
    : error.code === 'FST_ERR_BAD_URL'
      ? new LoupeError('BAD_REQUEST', 'the URL is not valid: a percent-escape in its path is malformed')
      : toLoupeError(error.statusCode && error.statusCode < 500 ? error : new LoupeError('BAD_REQUEST', 'the request cannot be routed'));
  return reply.code(loupe.status).type('application/json').send(errorBody(loupe));
}
