import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { LoupeError } from '../../engine/errors';

/**
 * Bodies are validated strictly: no type coercion, no silently dropped fields. Query strings,
 * path parameters and headers arrive as text, so only they are coerced (`limit=20` → 20). Every
 * transport checks requests with these, against the API's schemas (protocol/api).
 * `validateSchema: false`: Ajv does not check each schema against JSON Schema's meta-schema when it
 * compiles it (compiling the meta-schema was 40 ms of a route's first request); the API's schemas are
 * ours and checked against it once, in test/http/lazy-schemas.test.ts.
 */
const options = { allErrors: false, useDefaults: true, removeAdditional: false, strict: false, validateSchema: false } as const;
export const strictAjv = addFormats(new Ajv({ ...options, coerceTypes: false }));
export const coercingAjv = addFormats(new Ajv({ ...options, coerceTypes: true }));
for (const ajv of [strictAjv, coercingAjv]) ajv.addKeyword({ keyword: 'example' }).addKeyword({ keyword: 'x-field' });

const compiled = new WeakMap<object, ValidateFunction>();

/**
 * A request from a transport other than HTTP (the editor's panel) checked as an HTTP body would be:
 * defaults filled in, or the 400 that names the field and the rule.
 */
export function checkRequest<T>(schema: object, value: unknown): T {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = strictAjv.compile(schema)));
  if (!validate(value)) throw validationError(validate.errors ?? [], 'body');
  return value as T;
}

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** Turns the first schema violation into a message that names the field and the rule it broke. */
export function validationError(errors: ErrorObject[], context: string): LoupeError {
  const e = errors[0];
  const part = PART_NAMES[context] ?? context;
  if (!e) return new LoupeError('VALIDATION_FAILED', `${part}: is invalid`, { field: part });
  let field = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  let rule = e.message ?? 'is invalid';
  if (e.keyword === 'required') {
    field = [field, (e.params as { missingProperty: string }).missingProperty].filter(Boolean).join('.');
    rule = 'is required';
  } else if (e.keyword === 'additionalProperties') {
    const extra = (e.params as { additionalProperty: string }).additionalProperty;
    field = [field, extra].filter(Boolean).join('.');
    rule = 'is not a known field';
  } else if (e.keyword === 'enum' || e.keyword === 'const' || e.keyword === 'anyOf') {
    const allowed = allowedValues(errors, e.instancePath);
    rule = allowed ? `must be one of ${allowed}` : rule;
  } else if (e.keyword === 'type') {
    rule = `must be ${(e.params as { type: string }).type}`;
  }
  const name = field ? `${part === 'body' ? '' : `${part}.`}${field}` : part;
  return new LoupeError('VALIDATION_FAILED', `${name}: ${rule}`, { field: field || part });
}

function allowedValues(errors: ErrorObject[], path: string): string | null {
  const values = errors
    .filter((e) => e.instancePath === path && (e.keyword === 'const' || e.keyword === 'enum'))
    .flatMap((e) => (e.keyword === 'const' ? [(e.params as { allowedValue: unknown }).allowedValue] : (e.params as { allowedValues: unknown[] }).allowedValues));
  return values.length ? values.map((v) => JSON.stringify(v)).join(', ') : null;
}
