import type { LoupeError } from '../../engine/errors';
import { WWW_AUTHENTICATE } from '../common/credentials';

/** JSON-RPC code of a caller refused before any method runs (bad key, rate limit): see data.code. */
export const REFUSED_CODE = -32000;

/**
 * A caller refused at the door, in the shape of both bindings: the HTTP status of the error
 * (401 with WWW-Authenticate for an unusable key, 429 with Retry-After), and a JSON-RPC error
 * object whose data carries the HTTP API's code.
 */
export function refusal(error: LoupeError): { status: number; headers: Record<string, string>; body: { code: number; message: string; data: Record<string, unknown> } } {
  const headers: Record<string, string> = { ...error.headers };
  if (error.status === 401) headers['www-authenticate'] = WWW_AUTHENTICATE;
  return { status: error.status, headers, body: { code: REFUSED_CODE, message: error.message, data: { status: error.status, code: error.code, ...error.details } } };
}
