import { A2AError } from '@a2a-js/sdk/server';
import type { RateRule } from '../../engine/operations';
import { credentialIn, isCredentialHeader, type Credential } from '../common/credentials';

// JSON of no fixed schema (A2A messages), walked field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Json = Record<string, any>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What one A2A message may weigh and how often callers without a key may send one. */
export interface A2aLimits {
  /** A text part: a question, or an operation pasted as JSON. */
  maxTextChars: number;
  /** The whole message as JSON, for a caller with a key (data parts carry request bodies). */
  maxMessageBytes: number;
  /** The whole message as JSON, without a key (only sign-in, the public catalog and help are open). */
  maxAnonymousMessageBytes: number;
  /** message/send and message/stream without a key, per client address. */
  keylessRate: RateRule;
}

export const DEFAULT_LIMITS: A2aLimits = {
  maxTextChars: 32_768,
  maxMessageBytes: 256 * 1024,
  maxAnonymousMessageBytes: 32 * 1024,
  keylessRate: { max: 120, windowMs: 60_000 },
};

/** A -32602 (400 over HTTP+JSON) before anything is stored or run. */
export function checkMessageSize(message: unknown, keyed: boolean, limits: A2aLimits): void {
  if (!isObject(message)) return;
  const parts = Array.isArray(message.parts) ? message.parts : [];
  parts.forEach((part: Json, i: number) => {
    if (part?.kind === 'text' && typeof part.text === 'string' && part.text.length > limits.maxTextChars) {
      throw A2AError.invalidParams(`params.message.parts[${i}].text: at most ${limits.maxTextChars} characters (a question, or one operation as JSON)`);
    }
  });
  const max = keyed ? limits.maxMessageBytes : limits.maxAnonymousMessageBytes;
  const bytes = Buffer.byteLength(JSON.stringify(message));
  if (bytes > max) {
    throw A2AError.invalidParams(`params.message: at most ${max} bytes as JSON${keyed ? '' : ' without a key (send X-API-Key for larger messages)'}; this one has ${bytes}`);
  }
}

/** An operation pasted as JSON in a text part: `{"operationKey": "…", …}`. */
export function pastedOperation(text: unknown): Json | undefined {
  if (typeof text !== 'string') return undefined;
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}') || !trimmed.includes('operationKey')) return undefined;
  try {
    const parsed = JSON.parse(trimmed) as unknown;
    return isObject(parsed) && typeof parsed.operationKey === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The operation objects of a message: data parts, and operations pasted in text parts. */
function operationObjects(message: unknown): Json[] {
  if (!isObject(message) || !Array.isArray(message.parts)) return [];
  const out: Json[] = [];
  for (const part of message.parts as Json[]) {
    if (part?.kind === 'data' && isObject(part.data)) out.push(part.data);
    else if (part?.kind === 'text') {
      const pasted = pastedOperation(part.text);
      if (pasted) out.push(pasted);
    }
  }
  return out;
}

/**
 * The caller's credential, wherever an agent may put it: X-API-Key or Authorization: Bearer in a
 * data part's `headers` (or a pasted operation's), `message.metadata.apiKey`, `params.metadata.apiKey`,
 * then the HTTP headers of the A2A request. The first one found is the caller.
 */
export function findCredential(httpHeaders: Record<string, unknown>, params: Json): Credential | undefined {
  for (const data of operationObjects(params.message)) {
    const found = credentialIn(data.headers);
    if (found) return found;
  }
  const metaKey = (o: unknown) => (isObject(o) && isObject(o.metadata) && typeof o.metadata.apiKey === 'string' && o.metadata.apiKey ? o.metadata.apiKey as string : undefined);
  const key = metaKey(params.message) ?? metaKey(params);
  if (key) return { kind: 'key', value: key };
  return credentialIn({ 'x-api-key': httpHeaders['x-api-key'], authorization: httpHeaders.authorization });
}

/**
 * Takes every credential header out of the message (data parts, pasted operations) and the
 * metadata keys out of the params, so the SDK never stores them; returns the headers (lower-case
 * names) for the operation to send.
 */
export function takeSecrets(params: Json): Record<string, string> {
  const secrets: Record<string, string> = {};
  const strip = (headers: unknown) => {
    if (!isObject(headers)) return false;
    let changed = false;
    for (const name of Object.keys(headers)) {
      if (!isCredentialHeader(name)) continue;
      if (typeof headers[name] === 'string' || typeof headers[name] === 'number') secrets[name.toLowerCase()] ??= String(headers[name]);
      delete headers[name];
      changed = true;
    }
    return changed;
  };
  const message = params.message;
  if (isObject(message) && Array.isArray(message.parts)) {
    for (const part of message.parts as Json[]) {
      if (part?.kind === 'data' && isObject(part.data)) strip(part.data.headers);
      else if (part?.kind === 'text') {
        const pasted = pastedOperation(part.text);
        if (pasted && strip(pasted.headers)) part.text = JSON.stringify(pasted);
      }
    }
  }
  for (const o of [params, message]) if (isObject(o) && isObject(o.metadata)) delete o.metadata.apiKey;
  return secrets;
}
