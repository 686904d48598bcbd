import type { Part } from '@a2a-js/sdk';
import { exampleDataPart, type Operation } from './operations';

/**
 * The answer to a message that names no operation: what can be called and how, as text for a
 * person or a language model and as data for a program.
 */
export function helpParts(operations: Operation[]): Part[] {
  const byTag = new Map<string, Operation[]>();
  for (const op of operations) byTag.set(op.tag, [...(byTag.get(op.tag) ?? []), op]);
  const example = operations.find((o) => o.key === 'GET /v2/repos') ?? operations[0];
  const lines = [
    'I run the operations of the Code Intelligence API (V2). Send a message with a data part:',
    '  {"operationKey": "METHOD /v2/path", "pathParams": {…}, "query": {…}, "headers": {"X-API-Key": "…"}, "body": {…}}',
    'The task result is the HTTP output (status, headers, JSON body) as an artifact; a 4xx/5xx fails the task with the error.',
    'Research (POST /v2/search with "chat": true) streams its NDJSON lines as artifact chunks; use message/stream to follow them.',
    'The API key may also be sent as the X-API-Key HTTP header or as message.metadata.apiKey. Contract: /openapi.json.',
    '',
    'Operations:',
    ...[...byTag].flatMap(([tag, ops]) => [`${tag}:`, ...ops.map((o) => `  ${o.key}${o.summary ? ` — ${o.summary}` : ''}${o.needsKey ? '' : ' (no key needed)'}${o.deprecated ? ' [deprecated]' : ''}`)]),
  ];
  if (example) lines.push('', `Example data part: ${JSON.stringify(exampleDataPart(example))}`);
  return [
    { kind: 'text', text: lines.join('\n') },
    {
      kind: 'data',
      data: {
        operations: operations.map((o) => ({
          operationKey: o.key, operationId: o.operationId, summary: o.summary, tag: o.tag, needsKey: o.needsKey, deprecated: o.deprecated,
          pathParams: o.pathParams.map((p) => p.name), query: o.queryParams.map((p) => p.name), body: o.body ? o.body.schema : undefined,
          produces: o.produces, example: exampleDataPart(o),
        })),
      },
    },
  ];
}
