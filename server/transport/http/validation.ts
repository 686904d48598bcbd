import type { FastifySchemaCompiler } from 'fastify';
import { coercingAjv, strictAjv } from '../common/validate';

/** Bodies strictly, query strings, path parameters and headers coerced from text (transport/common/validate.ts). */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strictAjv : coercingAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<object>>;
};
