import type { AuthOperations } from '../../engine/operations/auth';
import { LoupeError } from '../../engine/errors';
import { isUuid, type Caller } from '../../engine/operations';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The challenge sent with a 401: the key goes in X-API-Key (or as a bearer token). */
export const WWW_AUTHENTICATE = 'ApiKey realm="loupe", header="X-API-Key", Bearer realm="loupe"';

/**
 * Header names that carry a secret: keys, passwords, session tokens, cookies. They reach the
 * operation but are never stored in a task (the SDK would keep them in the task's history).
 */
export function isCredentialHeader(name: string): boolean {
  return /^(authorization|proxy-authorization|cookie|set-cookie)$/i.test(name) || /key|token|secret|passw|auth|session|cookie/i.test(name);
}

/** How a caller proved who they are: a key, or a bearer token (a key or a sign-in session token). */
export interface Credential {
  kind: 'key' | 'bearer';
  value: string;
}

/** The HTTP headers that present this credential to a route, as an HTTP client would send it. */
export function credentialHeaders(credential: Credential | undefined): Record<string, string> {
  if (!credential) return {};
  // A key may come as a bearer token (MCP clients send one); the HTTP routes take keys in X-API-Key.
  if (credential.kind === 'key' || isUuid(credential.value.trim().toLowerCase())) return { 'x-api-key': credential.value };
  return { authorization: `Bearer ${credential.value}` };
}

/** Reads `Authorization: Bearer <token>`; anything else in Authorization is not a credential we take. */
export function bearerOf(authorization: unknown): string | undefined {
  if (typeof authorization !== 'string') return undefined;
  const match = /^bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}

/** X-API-Key or Authorization: Bearer among these headers, whatever their case. */
export function credentialIn(headers: unknown): Credential | undefined {
  if (!isObject(headers)) return undefined;
  let bearer: string | undefined;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'x-api-key' && typeof value === 'string' && value) return { kind: 'key', value };
    if (lower === 'authorization') bearer = bearerOf(value);
  }
  return bearer ? { kind: 'bearer', value: bearer } : undefined;
}

/**
 * The caller behind a credential. A missing credential is an anonymous caller (null); a present
 * but unusable one is a 401, as over HTTP: an agent with a wrong key must learn it, not be
 * treated as someone without a key.
 */
export async function callerFor(auth: AuthOperations, credential: Credential | undefined): Promise<Caller | null> {
  if (!credential) return null;
  const value = credential.value.trim();
  if (credential.kind === 'key' || isUuid(value.toLowerCase())) return auth.caller({ apiKey: value });
  return auth.caller({ sessionToken: value });
}

/** A 401 for an unusable credential, with the reason the accounts gave. */
export function unauthorized(error: unknown): LoupeError {
  if (error instanceof LoupeError && error.status === 401) return error;
  return new LoupeError('UNAUTHORIZED', 'the key is not valid');
}
