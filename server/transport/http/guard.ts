import http from 'node:http';
import os from 'node:os';
import type { Socket } from 'node:net';
import type { FastifyHttpOptions, FastifyInstance, FastifyRequest } from 'fastify';
import { LoupeError } from '../../engine/errors';
import { errorBody } from '../common/error-body';

/**
 * The sidecar listens on the developer's machine, where every web page they open and every process
 * they run can reach it. This module treats it as a server on the internet: only requests addressed
 * to it by name (DNS rebinding), no cross-origin browser requests, and hard limits on what a client
 * may send and how long it may take.
 */
export interface GuardOptions {
  /** The address the server is bound to; it is accepted as a Host besides the loopback names. */
  boundHost?: string;
  /** Extra host names accepted in the Host header (e.g. a machine name when bound to 0.0.0.0). */
  allowedHosts?: string[];
  /** Browser origins allowed to call the API (`http://localhost:3000`). None by default. */
  allowedOrigins?: string[];
  /** Longest accepted request target (path + query), in bytes. */
  maxUrlLength?: number;
  /** Longest accepted header block (Node's maxHeaderSize), in bytes. */
  maxHeaderBytes?: number;
  /** Time a client has to send its headers, and its whole request. */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /**
   * Open streams (research) one user may have at once, whatever keys they use: agent credentials
   * and sign-in keys are keys of the same user, and per key they multiplied the limit.
   */
  maxStreamsPerUser?: number;
  /** Open streams of all keys together: each holds a model run, so the machine bounds them. */
  maxStreamsTotal?: number;
}

export const GUARD_DEFAULTS = {
  maxUrlLength: 8 * 1024,
  maxHeaderBytes: 16 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxStreamsPerUser: 4,
  maxStreamsTotal: 64,
} as const;

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

declare module 'fastify' {
  interface FastifyInstance {
    /** Open streams per user (see StreamSlots). */
    streams: StreamSlots;
  }
  interface FastifyContextConfig {
    /** Marks a request of this route as a stream, counted against the caller's stream limit. */
    stream?: boolean | ((request: FastifyRequest) => boolean);
  }
}

/**
 * Options for Fastify's constructor: Node's own limits on header size and request time, and a
 * clientError handler that answers them in our error shape instead of Node's bare status line.
 */
export function serverLimits(options: GuardOptions = {}): FastifyHttpOptions<http.Server> {
  const headersTimeout = options.headersTimeoutMs ?? GUARD_DEFAULTS.headersTimeoutMs;
  const requestTimeout = Math.max(options.requestTimeoutMs ?? GUARD_DEFAULTS.requestTimeoutMs, headersTimeout);
  return {
    requestTimeout,
    http: {
      maxHeaderSize: options.maxHeaderBytes ?? GUARD_DEFAULTS.maxHeaderBytes,
      headersTimeout,
      requestTimeout,
      // Node checks the two timeouts on this interval (30 s by default), which would let a slow
      // client hold a socket far longer than the timeout says.
      // Node answers a missing Host with a bodiless 400; let the guard refuse it in our shape.
      requireHostHeader: false,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
    clientErrorHandler: answerClientError,
  };
}

/** Node reports malformed, oversized and too-slow requests here, before any route runs. */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  let loupe: LoupeError;
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    loupe = new LoupeError('HEADERS_TOO_LARGE', 'the request line and headers are larger than the server accepts');
  } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    loupe = new LoupeError('REQUEST_TIMEOUT', 'the request was not received in time; send it again without pausing');
  } else {
    loupe = new LoupeError('BAD_REQUEST', 'the request is not valid HTTP');
  }
  if (socket.writable) {
    const body = JSON.stringify(errorBody(loupe));
    socket.write(`HTTP/1.1 ${loupe.status} ${http.STATUS_CODES[loupe.status]}\r\nContent-Type: application/json; charset=utf-8\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

/** Installs the Host, Origin, URL-length and stream-count checks. Call before any other hook. */
export function installGuard(app: FastifyInstance, options: GuardOptions = {}): StreamSlots {
  const hosts = allowedHostNames(options);
  const origins = new Set((options.allowedOrigins ?? []).map(normaliseOrigin).filter((o): o is string => o !== null));
  const maxUrl = options.maxUrlLength ?? GUARD_DEFAULTS.maxUrlLength;
  const slots = new StreamSlots(options.maxStreamsPerUser ?? GUARD_DEFAULTS.maxStreamsPerUser, options.maxStreamsTotal ?? GUARD_DEFAULTS.maxStreamsTotal);

  app.addHook('onRequest', async (request) => {
    if (Buffer.byteLength(request.url) > maxUrl) {
      throw new LoupeError('URI_TOO_LONG', `the request URL is longer than ${maxUrl} bytes; send long inputs in a POST body`);
    }
    checkHost(request, hosts);
    checkOrigin(request, origins);
    refuseKeyInUrl(request);
  });

  // After the body is parsed (a search becomes a stream only when its body says chat: true) and
  // after authentication, so the slot belongs to a user.
  app.addHook('preHandler', async (request, reply) => {
    const marker = request.routeOptions.config?.stream;
    const isStream = typeof marker === 'function' ? marker(request) : marker === true;
    if (!isStream) return;
    const owner = request.caller?.userId ?? `ip:${request.ip}`;
    const release = slots.acquire(owner);
    // 'close' fires when the response ends and when the client goes away mid-stream.
    reply.raw.once('close', release);
  });
  return slots;
}

/** Counts the open streams of each user; a user over the limit is refused with 429. */
export class StreamSlots {
  private readonly open = new Map<string, number>();

  private total = 0;

  constructor(readonly perUser: number, readonly overall = Number.POSITIVE_INFINITY) {}

  acquire(owner: string): () => void {
    const count = this.open.get(owner) ?? 0;
    if (count >= this.perUser) {
      throw new LoupeError('RATE_LIMITED', `your account already has ${count} open streams (with any of its keys); wait for one to finish`, { retry_after: 1 }, { 'Retry-After': '1' });
    }
    if (this.total >= this.overall) {
      throw new LoupeError('RATE_LIMITED', `the server is answering ${this.total} streams already; retry shortly`, { retry_after: 2 }, { 'Retry-After': '2' });
    }
    this.open.set(owner, count + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.open.get(owner) ?? 1) - 1;
      if (left > 0) this.open.set(owner, left); else this.open.delete(owner);
    };
  }

  /** Open streams of one user, or of all users. */
  count(owner?: string): number {
    return owner !== undefined ? this.open.get(owner) ?? 0 : this.total;
  }
}

const KEY_PARAMETERS = new Set(['apikey', 'api_key', 'api-key', 'x-api-key', 'access_token']);

/**
 * A key in a URL ends up in logs, proxies and browser histories. The HTTP API never read one
 * there; a URL that carries one is refused, so the client learns to send the header instead of
 * being treated as anonymous. (The A2A routes answer for themselves.)
 */
function refuseKeyInUrl(request: FastifyRequest): void {
  const q = request.url.indexOf('?');
  if (q < 0 || request.url.startsWith('/a2a/')) return;
  for (const name of new URLSearchParams(request.url.slice(q + 1)).keys()) {
    if (KEY_PARAMETERS.has(name.toLowerCase())) {
      throw new LoupeError('VALIDATION_FAILED', `${name}: keys do not belong in URLs (they end up in logs); send the X-API-Key header`, { field: name });
    }
  }
}

function allowedHostNames(options: GuardOptions): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  const bound = options.boundHost?.toLowerCase();
  if (bound && bound !== '0.0.0.0' && bound !== '::') names.add(bound);
  if (bound === '0.0.0.0' || bound === '::') {
    // Bound to every interface (an explicit, warned-about choice): the machine's own addresses count.
    for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) names.add(a.address.toLowerCase());
    names.add(os.hostname().toLowerCase());
  }
  for (const h of options.allowedHosts ?? []) names.add(h.toLowerCase());
  return names;
}

/** Splits a Host header into name and port; IPv6 literals come bracketed. */
function parseHost(header: string): { name: string; port: number | null } | null {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(header.trim());
  if (!match) return null;
  const name = match[1].replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  return { name, port: match[2] ? Number(match[2]) : null };
}

function checkHost(request: FastifyRequest, allowed: Set<string>): void {
  const header = request.headers.host;
  const parsed = header ? parseHost(header) : null;
  if (!parsed || !allowed.has(parsed.name)) {
    throw new LoupeError('HOST_NOT_ALLOWED', `the Host header ${JSON.stringify(header ?? '')} does not name this server; use http://127.0.0.1 or http://localhost`);
  }
  // A real socket knows its port; a Host naming another port was meant for another server.
  const localPort = request.raw.socket?.localPort;
  if (parsed.port !== null && typeof localPort === 'number' && localPort > 0 && parsed.port !== localPort) {
    throw new LoupeError('HOST_NOT_ALLOWED', `the Host header names port ${parsed.port}, but this server listens on ${localPort}`);
  }
}

/**
 * Browsers announce cross-site requests with Origin (and Sec-Fetch-Site). The API sends no CORS
 * headers, so a foreign page cannot read answers; refusing here also stops it from causing effects
 * (indexing, charging, sign-ups) with requests it cannot read.
 */
function checkOrigin(request: FastifyRequest, allowed: Set<string>): void {
  const origin = request.headers.origin;
  const site = request.headers['sec-fetch-site'];
  if (origin === undefined) {
    if (site === 'cross-site' || site === 'same-site') {
      throw new LoupeError('ORIGIN_NOT_ALLOWED', 'cross-site browser requests are not allowed');
    }
    return;
  }
  const normalised = normaliseOrigin(origin);
  if (normalised !== null && (allowed.has(normalised) || normalised === `http://${request.headers.host?.toLowerCase()}`)) return;
  throw new LoupeError('ORIGIN_NOT_ALLOWED', `requests from the origin ${JSON.stringify(origin.slice(0, 200))} are not allowed; start Loupe with --allow-origin to allow one`);
}

function normaliseOrigin(origin: string): string | null {
  try {
    const url = new URL(origin);
    if (url.origin === 'null') return null;
    return url.origin.toLowerCase();
  } catch {
    return null;
  }
}
