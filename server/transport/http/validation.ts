import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { LoupeError } from '../../engine/errors';

/**
 * Bodies are validated strictly: no type coercion, no silently dropped fields. Query strings,
 * path parameters and headers arrive as text, so only they are coerced (`limit=20` → 20).
 */
const options = { allErrors: false, useDefaults: true, removeAdditional: false, strict: false } as const;
const strictAjv = addFormats(new Ajv({ ...options, coerceTypes: false }));
const coercingAjv = addFormats(new Ajv({ ...options, coerceTypes: true }));
for (const ajv of [strictAjv, coercingAjv]) ajv.addKeyword({ keyword: 'example' }).addKeyword({ keyword: 'x-field' });

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strictAjv : coercingAjv;
  return ajv.compile(schema as object) as any;
};

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** Turns the first schema violation into a message that names the field and the rule it broke. */
export function validationError(errors: ErrorObject[], context: string): LoupeError {
  const e = errors[0];
  const part = PART_NAMES[context] ?? context;
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
