/**
 * Wire schemas shared by the HTTP sidecar (which validates with them and generates /openapi.json
 * from them), the A2A binding and the extension client. Declared once, here.
 */
import { Type, type Static, type TSchema } from 'typebox';

/**
 * A string enumeration as `{type: 'string', enum}`. A union of literals (`anyOf` of `const`s) reads
 * the same in the OpenAPI document, but fast-json-stringify then validates every value against each
 * branch to pick one, which made a one-item listing several times slower to serialize.
 */
export const StringEnum = <const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/**
 * `T | null`. Scalars become `type: [T, 'null']` (OpenAPI 3.1), which is serialized directly for
 * the same reason as StringEnum; objects and arrays stay `anyOf [T, null]`.
 */
export const Nullable = <T extends TSchema>(schema: T, options: Record<string, unknown> = {}) => {
  const type = (schema as { type?: unknown }).type;
  if (typeof type === 'string' && type !== 'object' && type !== 'array') {
    return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'], ...options });
  }
  return Type.Unsafe<Static<T> | null>(Type.Union([schema, Type.Null()], options));
};

export const Uuid = Type.String({ format: 'uuid', description: 'A UUID.' });

/** How deep a file's documentation goes: every `fields`/`depth` enum of the API lists these. */
export const DOC_DEPTHS = ['basic', 'summary', 'full'] as const;

export const Meta = Type.Object({
  updated_at: Type.String({ format: 'date-time', description: 'When this response was produced (ISO 8601).' }),
  tier: Type.String({ description: 'The caller\'s plan: FREE, DEV, PRO or ENTERPRISE.' }),
  credits_used: Type.Integer({ description: 'Credits the caller has used in total, this call included.' }),
  credits_remaining: Type.Integer({ description: 'Credits the caller has left.' }),
  max_repos_allowed: Type.Optional(Type.Integer({ description: 'How many repositories the plan may index.' })),
}, { additionalProperties: true, description: 'Account state after the call.' });
export type Meta = Static<typeof Meta>;

export const Pagination = Type.Object({
  total: Type.Integer({ minimum: 0 }),
  limit: Type.Integer({ minimum: 1 }),
  offset: Type.Integer({ minimum: 0 }),
  has_more: Type.Boolean(),
}, { description: 'Position of this page in the whole list.' });
export type Pagination = Static<typeof Pagination>;

export const ErrorBody = Type.Object({
  status: Type.Literal('error'),
  message: Type.String({ description: 'Human-readable, safe to display; not for parsing.' }),
  code: Type.String({ description: 'Machine identifier; see docs/errors.md.' }),
  field: Type.Optional(Type.String({ description: 'The request field the error is about, when there is one.' })),
  required: Type.Optional(Type.Integer({ description: '402 only: credits the operation needs.' })),
  available: Type.Optional(Type.Integer({ description: '402 only: credits the caller has.' })),
  retry_after: Type.Optional(Type.Integer({ description: '429 only: seconds to wait (also in Retry-After).' })),
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
}, { $id: 'ErrorBody', description: 'Every failure has this shape.' });
export type ErrorBody = Static<typeof ErrorBody>;

/** `{status, message?, data, meta}`: the envelope of every JSON route. */
export const Envelope = <T extends TSchema>(data: T, description?: string) =>
  Type.Object({
    status: Type.Literal('success'),
    message: Type.Optional(Type.String()),
    data,
    meta: Meta,
  }, { description });

export const PagedEnvelope = <T extends TSchema>(data: T, description?: string) =>
  Type.Object({
    status: Type.Literal('success'),
    message: Type.Optional(Type.String()),
    data,
    pagination: Pagination,
    meta: Meta,
  }, { description });

export const Limit = (max: number, dflt: number) =>
  Type.Integer({ minimum: 1, maximum: max, default: dflt, description: `Page size, 1-${max} (default ${dflt}).` });
/**
 * The deepest page any route serves. Query strings are coerced, and `Infinity` or `1e308` are
 * "integers" to a JSON-schema validator: without a bound they reached SQL and the page arithmetic.
 */
export const MAX_OFFSET = 10_000_000;
export const Offset = Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0, description: `Zero-based index of the first item (at most ${MAX_OFFSET}).` });
export const Order = StringEnum(['asc', 'desc'], { default: 'desc' });
