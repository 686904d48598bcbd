import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { listOperations, resolve, type OpenApiDocument, type Operation } from '../../server/transport/common/openapi-operations';

/**
 * The contract as clients see it: the served /openapi.json, its operations, and a validator of
 * answers built on the document's own schemas (refs resolve inside the document).
 */
export interface Contract {
  doc: OpenApiDocument;
  operations: Operation[];
  /** Null when the answer matches the document; otherwise what is wrong. */
  checkResponse(op: Operation, status: number, contentType: string | undefined, body: unknown): string | null;
  /** The schema documented for this status and content type (for NDJSON: the line schema, if any). */
  responseSchema(op: Operation, status: number, contentType: string): unknown;
}

/** What the suite sends requests through: Fastify's inject(), or real HTTP to a team server (backends.ts). */
export interface Injector {
  inject(o: { method: string; url: string; payload?: string; headers?: Record<string, string> }): Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>;
}

export async function loadContract(app: FastifyInstance | Injector): Promise<Contract> {
  const res = await (app as Injector).inject({ method: 'GET', url: '/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`/openapi.json answered ${res.statusCode}`);
  const doc = JSON.parse(res.body) as OpenApiDocument;
  const ajv = addFormats(new Ajv({ strict: false, allErrors: false, validateSchema: false }));
  ajv.addSchema(doc as object, 'openapi.json');
  const cache = new Map<string, ValidateFunction>();
  const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

  const responseOf = (op: Operation, status: number) => {
    const responses = doc.paths![op.path][op.method.toLowerCase()].responses as Record<string, any>;
    return { key: String(status) in responses ? String(status) : `${String(status)[0]}XX` in responses ? `${String(status)[0]}XX` : 'default', responses };
  };

  return {
    doc,
    operations: listOperations(doc),
    responseSchema(op, status, contentType) {
      const { key, responses } = responseOf(op, status);
      return resolve(doc, responses[key])?.content?.[contentType]?.schema;
    },
    checkResponse(op, status, contentType, body) {
      const { key, responses } = responseOf(op, status);
      if (!(key in responses)) return `status ${status} is not documented for ${op.key} (documented: ${Object.keys(responses).join(', ')})`;
      const content = resolve(doc, responses[key]).content as Record<string, unknown> | undefined;
      if (!content) return body === undefined || body === '' ? null : `${op.key} ${status}: a body was sent but none is documented`;
      const type = (contentType ?? '').split(';')[0].trim();
      if (!(type in content)) return `${op.key} ${status}: content type ${type || '(none)'} is not documented (documented: ${Object.keys(content).join(', ')})`;
      const id = `openapi.json#/paths/${pointer(op.path)}/${op.method.toLowerCase()}/responses/${key}/content/${pointer(type)}/schema`;
      let validate = cache.get(id);
      if (!validate) {
        validate = ajv.compile({ $ref: id });
        cache.set(id, validate);
      }
      if (validate(body)) return null;
      const e = validate.errors![0];
      return `${op.key} ${status}: body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`;
    },
  };
}

/**
 * A value that satisfies a schema (smallest of what it allows), for building valid requests from
 * the document alone. Semantic validity (an existing folder, a real id) comes from the caller.
 */
export function validSample(schema: any, doc: OpenApiDocument, name = 'x'): unknown {
  schema = resolve(doc, schema);
  if (!schema || typeof schema !== 'object') return 'x';
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const alt = schema.anyOf ?? schema.oneOf;
  if (alt?.length) return validSample(alt.find((s: any) => resolve(doc, s)?.type === 'object') ?? alt.find((s: any) => resolve(doc, s)?.type !== 'null') ?? alt[0], doc, name);
  switch (Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type) {
    case 'string': {
      if (schema.format === 'email') return 'agent@example.com';
      if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
      if (schema.format === 'date-time') return new Date().toISOString();
      if (schema.pattern === '^[0-9]{6}$') return '123456';
      const base = `${name}-value`;
      const min = schema.minLength ?? 0;
      return (base.length >= min ? base : base.padEnd(min, 'x')).slice(0, schema.maxLength ?? base.length + min);
    }
    case 'integer': case 'number': return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean': return false;
    case 'array': return Array.from({ length: schema.minItems ?? 0 }, () => validSample(schema.items, doc, name));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = validSample(schema.properties?.[key], doc, key);
      return out;
    }
    default: return 'x';
  }
}

/**
 * Checks research NDJSON lines against the spec's event table: `search` first, then `chunk`s,
 * then exactly one terminal `done` (success) or `error` (failure), last; each line matching the
 * documented schema of its type. Returns what is wrong, or null.
 */
export function checkResearchLines(events: Record<string, unknown>[], validateLine?: (event: unknown) => string | null): string | null {
  if (!events.length) return 'the stream is empty';
  const types = events.map((e) => e.type);
  const terminal = types.at(-1);
  if (terminal !== 'done' && terminal !== 'error') return `the last line is ${String(terminal)}, not done or error`;
  if (types.slice(0, -1).some((t) => t === 'done' || t === 'error')) return `a terminal line before the end: ${types.join(',')}`;
  if (terminal === 'done') {
    if (types[0] !== 'search') return `a successful stream starts with ${String(types[0])}, not search`;
    if (types.slice(1, -1).some((t) => t !== 'chunk')) return `between search and done only chunks may come: ${types.join(',')}`;
  } else if (types.slice(0, -1).some((t, i) => (i === 0 ? t !== 'search' : t !== 'chunk'))) {
    return `a failed stream is search?, chunk*, error: ${types.join(',')}`;
  }
  for (const [i, e] of events.entries()) {
    const field = ({ search: ['results', 'total', 'meta'], chunk: ['text'], done: ['model', 'context_files'], error: ['message'] } as Record<string, string[]>)[String(e.type)];
    const missing = field?.find((f) => !(f in e));
    if (missing) return `line ${i + 1} (${String(e.type)}) has no ${missing}`;
    const problem = validateLine?.(e);
    if (problem) return `line ${i + 1}: ${problem}`;
  }
  return null;
}

/**
 * A 5xx the API documents for a missing service, not a fault: 501 `MODEL_NOT_CONFIGURED` where no chat model is
 * set up (the tests run offline), and 503 from `PUT /v2/keys/github-token`, which checks the token with GitHub.
 */
export function documentedAbsence(operation: string, status: number, body: { code?: unknown }): boolean {
  return (status === 501 && body.code === 'MODEL_NOT_CONFIGURED') || (status === 503 && operation === 'PUT /v2/keys/github-token');
}
