/**
 * The operations an agent may call, read from the OpenAPI document: whatever HTTP routes exist
 * (and are documented) are the A2A surface, with no list of our own to keep in step.
 */

/** A node of the OpenAPI document: JSON of no fixed schema, walked field by field. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Node = any;
export interface OperationParam {
  name: string;
  required: boolean;
  schema: Record<string, Node>;
  description?: string;
}

export interface Operation {
  /** "METHOD /v2/path/{param}", as an agent writes it in `operationKey`. */
  key: string;
  method: string;
  /** OpenAPI path template, `{name}` for path parameters. */
  path: string;
  operationId?: string;
  summary?: string;
  tag: string;
  deprecated: boolean;
  /** False for routes that need no X-API-Key. */
  needsKey: boolean;
  pathParams: OperationParam[];
  queryParams: OperationParam[];
  body?: { required: boolean; schema: Record<string, Node> };
  /** Content types of the 200 answer (application/json, application/x-ndjson, …). */
  produces: string[];
}

export interface OpenApiDocument {
  paths?: Record<string, Record<string, Node>>;
  tags?: { name: string; description?: string }[];
  components?: { schemas?: Record<string, Node> };
  security?: unknown[];
  [key: string]: unknown;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Only the versioned API is reachable through A2A (not the docs, not A2A itself). */
export const isApiPath = (path: string) => /^\/v\d+\//.test(path);

export function listOperations(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!isApiPath(path)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Node) => resolve(doc, p));
      const toParam = (p: Node): OperationParam => ({ name: p.name, required: !!p.required, schema: resolve(doc, p.schema ?? {}), description: p.description });
      const content = op.requestBody ? resolve(doc, op.requestBody).content ?? {} : {};
      const bodySchema = content['application/json']?.schema;
      const ok = op.responses?.['200'] ?? op.responses?.['201'] ?? op.responses?.['202'];
      const security = op.security ?? doc.security ?? [];
      out.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        summary: op.summary,
        tag: op.tags?.[0] ?? 'other',
        deprecated: !!op.deprecated,
        needsKey: security.length > 0,
        pathParams: params.filter((p: Node) => p.in === 'path').map(toParam),
        queryParams: params.filter((p: Node) => p.in === 'query').map(toParam),
        body: bodySchema ? { required: !!resolve(doc, op.requestBody).required, schema: resolve(doc, bodySchema) } : undefined,
        produces: Object.keys(resolve(doc, ok ?? {}).content ?? { 'application/json': {} }),
      });
    }
  }
  return out;
}

/** Follows a local `$ref` (one level is all the generated document uses). */
export function resolve(doc: OpenApiDocument, node: Node): Node {
  if (!node || typeof node !== 'object' || typeof node.$ref !== 'string') return node;
  const parts = node.$ref.replace(/^#\//, '').split('/');
  let target: Node = doc;
  for (const part of parts) target = target?.[part];
  return target ?? {};
}

/**
 * Finds the operation an `operationKey` names. The path may use `{name}` (as in the OpenAPI
 * document) or `:name` (as in Fastify) for its parameters; the method is case-insensitive.
 */
export function findOperation(operations: Operation[], operationKey: string): Operation | undefined {
  const match = /^\s*([A-Za-z]+)\s+(\/\S*)\s*$/.exec(operationKey);
  if (!match) return undefined;
  const method = match[1].toUpperCase();
  const path = match[2].replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}').replace(/\/+$/, '');
  return operations.find((o) => o.method === method && o.path === path);
}

/** A small, valid-looking value for a schema: used to write examples for agents. */
export function exampleValue(schema: Record<string, Node> | undefined, name = 'value'): unknown {
  if (!schema) return `<${name}>`;
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const alt = schema.anyOf ?? schema.oneOf;
  if (alt?.length) return exampleValue(alt.find((s: Node) => s.type !== 'null') ?? alt[0], name);
  switch (schema.type) {
    case 'string': return schema.format === 'uuid' ? `<${name}: UUID>` : schema.format === 'date-time' ? new Date(0).toISOString() : `<${name}>`;
    case 'integer': case 'number': return schema.minimum ?? 1;
    case 'boolean': return false;
    case 'array': return [exampleValue(schema.items, name)];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = exampleValue(schema.properties?.[key], key);
      return out;
    }
    default: return `<${name}>`;
  }
}

/** The data part an agent sends to call this operation, with the required inputs filled in. */
export function exampleDataPart(op: Operation): Record<string, unknown> {
  const part: Record<string, unknown> = { operationKey: op.key };
  if (op.pathParams.length) part.pathParams = Object.fromEntries(op.pathParams.map((p) => [p.name, exampleValue(p.schema, p.name)]));
  const query = op.queryParams.filter((p) => p.required || p.name === 'limit');
  if (query.length) part.query = Object.fromEntries(query.map((p) => [p.name, exampleValue(p.schema, p.name)]));
  if (op.body) part.body = exampleValue(op.body.schema, 'body');
  // The key is not part of the example: it goes in the X-API-Key header of the A2A request.
  return part;
}
