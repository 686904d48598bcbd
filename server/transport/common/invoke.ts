import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { invalid } from '../../engine/errors';
import type { Operation } from './openapi-operations';

/** What an agent asks for in its data part. */
export interface OperationCall {
  operation: Operation;
  pathParams?: Record<string, unknown>;
  query?: Record<string, unknown>;
  headers?: Record<string, unknown>;
  body?: unknown;
  /** The caller's credential headers (X-API-Key or Authorization), sent unless `headers` has its own. */
  auth?: Record<string, string>;
}

export interface OperationOutput {
  status: number;
  /** The headers an agent may need (content type, Retry-After, Allow, deprecation). */
  headers: Record<string, string>;
  contentType: string;
  /** The parsed JSON body (or the text, when it is not JSON). */
  body?: unknown;
  /** For NDJSON answers: the lines, as the route writes them. */
  lines?: AsyncIterable<string>;
}

const KEPT_HEADERS = ['content-type', 'retry-after', 'allow', 'deprecation', 'sunset', 'link', 'location', 'x-request-id'];
/** Headers an agent may not set: they describe the transport, which inject owns. */
const DROPPED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'expect', 'te', 'trailer']);

/**
 * Runs one HTTP operation through Fastify's own request pipeline (validation, authentication,
 * charging, errors: exactly what an HTTP client gets) without a socket. The answer is read as a
 * stream, so NDJSON lines reach the agent as the route writes them rather than when it finishes.
 */
export async function invokeOperation(app: FastifyInstance, call: OperationCall, signal?: AbortSignal): Promise<OperationOutput> {
  const url = buildUrl(call);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.headers ?? {})) {
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw invalid(`headers.${name}`, 'must be a string');
    if (!DROPPED_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = String(value);
  }
  if (!headers['x-api-key'] && !headers.authorization) Object.assign(headers, call.auth);
  let payload: string | undefined;
  if (call.body !== undefined) {
    payload = JSON.stringify(call.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await app.inject({ method: call.operation.method as never, url, headers, payload, payloadAsStream: true, signal } as never) as unknown as {
    statusCode: number; headers: Record<string, string | string[] | number | undefined>; stream(): Readable;
    raw: { res: { destroy(): void } };
  };
  // Canceling closes the route's response as a client hanging up would, so a streaming route
  // (research) stops its work instead of writing into a stream no one reads.
  signal?.addEventListener('abort', () => res.raw.res.destroy(), { once: true });
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const v = res.headers[name];
    if (v !== undefined) kept[name] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  const contentType = kept['content-type'] ?? '';
  const stream = res.stream();
  if (contentType.includes('ndjson') && res.statusCode < 400) return { status: res.statusCode, headers: kept, contentType, lines: readLines(stream) };
  const text = await readAll(stream);
  let body: unknown = text;
  if (text && contentType.includes('json')) {
    try { body = JSON.parse(text); } catch { /* keep the text */ }
  }
  return { status: res.statusCode, headers: kept, contentType, body: text === '' ? undefined : body };
}

function buildUrl(call: OperationCall): string {
  const params = call.pathParams ?? {};
  const path = call.operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === null || value === '') throw invalid(`pathParams.${name}`, 'is required');
    if (typeof value !== 'string' && typeof value !== 'number') throw invalid(`pathParams.${name}`, 'must be a string');
    return encodeURIComponent(String(value));
  });
  const unknown = Object.keys(params).find((name) => !call.operation.pathParams.some((p) => p.name === name));
  if (unknown) throw invalid(`pathParams.${unknown}`, `is not a parameter of ${call.operation.key}`);
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(call.query ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v === undefined || v === null) continue;
      if (typeof v === 'object') throw invalid(`query.${name}`, 'must be a string, number, boolean or an array of them');
      search.append(name, String(v));
    }
  }
  const qs = search.toString();
  return qs ? `${path}?${qs}` : path;
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

async function* readLines(stream: Readable): AsyncIterable<string> {
  // A multi-byte character may be split between two chunks: decode across them.
  const decoder = new StringDecoder('utf8');
  let buffered = '';
  for await (const chunk of stream) {
    buffered += decoder.write(Buffer.from(chunk));
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line) yield line;
    }
  }
  buffered += decoder.end();
  if (buffered.trim()) yield buffered.trim();
}
