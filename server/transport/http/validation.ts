import type { FastifySchemaCompiler } from 'fastify';
import type { ValidateFunction } from 'ajv';
import { coercingAjv, strictAjv } from '../common/validate';

type Validator = ReturnType<FastifySchemaCompiler<object>> & { errors?: ValidateFunction['errors'] };

/**
 * Bodies strictly, query strings, path parameters and headers coerced from text (transport/common/validate.ts).
 * Each route's validator is compiled by Ajv on the route's first request, not when the application is
 * built: compiling every route's schemas was ~0.5 s of a start's main thread (issue 17), spent on routes
 * most starts never see. The answers are Ajv's own (Fastify reads `errors` off the function it called).
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strictAjv : coercingAjv;
  let compiled: ValidateFunction | null = null;
  const validate: Validator = (data: unknown) => {
    compiled ??= ajv.compile(schema as object);
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  };
  return validate;
};
