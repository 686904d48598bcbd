/**
 * Every failure the engine reports is a LoupeError with a stable code. Transports map the code to
 * an HTTP status, a JSON-RPC error or an LSP error in one place each; docs/errors.md lists them all
 * (a test keeps the two equal).
 */
export const ERROR_CODES = {
  VALIDATION_FAILED: { status: 400, summary: 'A request field is missing, has the wrong type, or breaks a documented rule.' },
  BAD_REQUEST: { status: 400, summary: 'The request is well-formed but cannot be carried out as asked (business rule).' },
  NOT_A_REPOSITORY: { status: 400, summary: 'The URL or path to index is not a git repository or an existing folder.' },
  UNKNOWN_REPOSITORIES: { status: 400, summary: 'Some repository ids or URLs in the request are not indexed for this caller.' },
  UNKNOWN_MODEL: { status: 400, summary: 'The `model` of a research request is not an available chat model (see GET /v2/models).' },
  INVALID_CODE: { status: 400, summary: 'The one-time code is wrong or expired, or the address has no code; the three cases are not told apart.' },
  INVALID_CREDENTIALS: { status: 400, summary: 'The email or password is incorrect (which one is not said).' },
  UNAUTHORIZED: { status: 401, summary: 'X-API-Key is missing, unknown, disabled or expired.' },
  INSUFFICIENT_CREDITS: { status: 402, summary: 'The operation costs more credits than remain; nothing was charged.' },
  FORBIDDEN: { status: 403, summary: 'Authenticated, but not allowed (plan or ownership).' },
  PLAN_REQUIRED: { status: 403, summary: 'The caller\'s plan does not include this feature; the message names the plan needed.' },
  HOST_NOT_ALLOWED: { status: 403, summary: 'The Host header does not name this server (protection against DNS rebinding); use 127.0.0.1 or localhost.' },
  ORIGIN_NOT_ALLOWED: { status: 403, summary: 'A browser request came from a web origin that is not allowed (no cross-origin access by default).' },
  PATH_NOT_ALLOWED: { status: 403, summary: 'A local path lies outside the folders this server was given.' },
  REPO_LIMIT_REACHED: { status: 403, summary: 'The plan\'s number of indexed repositories is reached.' },
  NOT_FOUND: { status: 404, summary: 'The resource does not exist for the authenticated caller.' },
  ROUTE_NOT_FOUND: { status: 404, summary: 'No route has this path.' },
  METHOD_NOT_ALLOWED: { status: 405, summary: 'The path exists but not with this method.' },
  NOT_ACCEPTABLE: { status: 406, summary: 'The Accept header excludes every content type the route produces.' },
  REQUEST_TIMEOUT: { status: 408, summary: 'The client took too long to send the request.' },
  CONFLICT: { status: 409, summary: 'The resource is in a state that does not allow the operation.' },
  PAYLOAD_TOO_LARGE: { status: 413, summary: 'The request body is larger than the server accepts.' },
  URI_TOO_LONG: { status: 414, summary: 'The request URL (path and query) is longer than the server accepts; send long inputs in a body.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, summary: 'The request body is not JSON.' },
  RATE_LIMITED: { status: 429, summary: 'Too many requests; retry after the number of seconds in Retry-After.' },
  HEADERS_TOO_LARGE: { status: 431, summary: 'The request headers are larger than the server accepts.' },
  INTERNAL: { status: 500, summary: 'An unexpected failure; retry with backoff.' },
  MODEL_NOT_CONFIGURED: { status: 501, summary: 'The operation needs a generative chat model and this server has none configured; do not retry: configure one (LOUPE_CHAT_BASE_URL and LOUPE_CHAT_MODELS, or the editor\'s models).' },
  STORAGE_UNAVAILABLE: { status: 503, summary: 'The index cannot be written (read-only data dir, no permission, I/O error); nothing was half-written.' },
  SERVICE_UNAVAILABLE: { status: 503, summary: 'A service the operation needs (mail, model) is unavailable right now; from `GET /health/ready`, a database the node serves from does not answer or its schema is behind (`details.checks`, `Retry-After`).' },
  STORAGE_FULL: { status: 507, summary: 'The disk that holds the index is full; nothing was half-written. Free space and retry.' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class LoupeError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, headers?: Record<string, string>) {
    super(message);
    this.name = 'LoupeError';
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

export const invalid = (field: string, rule: string) =>
  new LoupeError('VALIDATION_FAILED', `${field}: ${rule}`, { field });

export const notFound = (what: string) => new LoupeError('NOT_FOUND', `${what} not found`);
