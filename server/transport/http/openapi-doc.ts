import type { FastifyRequest } from 'fastify';

// JSON of no fixed schema (A2A messages, the OpenAPI document), walked field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Json = Record<string, any>;

/**
 * The document as served at /openapi.json, from the one @fastify/swagger generates:
 * - `servers` names this sidecar (by the address the client used) when no public URL was given;
 * - a parameter with a default is not required of the client (TypeBox marks every non-Optional
 *   property required, though validation fills the default in).
 */
export function servedDocument(generated: Json, request: FastifyRequest): Json {
  const doc = structuredClone(generated);
  if (!doc.servers?.length) doc.servers = [{ url: `${request.protocol}://${request.host}`, description: 'This sidecar' }];
  for (const item of Object.values(doc.paths ?? {}) as Json[]) {
    for (const op of Object.values(item) as Json[]) {
      for (const p of op?.parameters ?? []) {
        if (p.in !== 'path' && p.required && p.schema?.default !== undefined) p.required = false;
      }
    }
  }
  return doc;
}
