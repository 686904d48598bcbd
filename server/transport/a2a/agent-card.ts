import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import { exampleDataPart, type OpenApiDocument, type Operation } from '../common/openapi-operations';

export const A2A_PROTOCOL_VERSION = '0.3.0';
export const AGENT_CARD_VERSION = '2.0.0';
export const JSONRPC_PATH = '/a2a/jsonrpc';
export const REST_PATH = '/a2a/rest';

const INPUT_MODES = ['application/json', 'text/plain'];
const OUTPUT_MODES = ['application/json', 'application/x-ndjson', 'text/event-stream'];

/**
 * The agent card, generated from the OpenAPI document: one skill per tag (resource), each listing
 * its operations and an example data part per operation. A new route shows up here by itself.
 */
export function buildAgentCard(doc: OpenApiDocument, operations: Operation[], baseUrl: string): AgentCard {
  const tags = new Map<string, Operation[]>();
  for (const op of operations) tags.set(op.tag, [...(tags.get(op.tag) ?? []), op]);
  const skills: AgentSkill[] = [{
    id: 'ask',
    name: 'ask',
    description: 'Ask about your indexed repositories in plain language (a text part; your key in the X-API-Key header). '
      + 'Questions are researched over your code and the answer streams as artifact chunks on message/stream (whole on message/send), '
      + 'its sources as a data part; "what does this repository do?" is answered from the blueprint; "help" lists what else to send.',
    tags: ['question', 'research', 'text'],
    examples: ['where are cookies signed?', 'what does this repository do?', 'which files would break if I change src/lib/math.ts?', 'help'],
    inputModes: ['text/plain'],
    outputModes: ['text/plain', 'application/json'],
  }];
  for (const [tag, ops] of tags) {
    const examples = ops.map((o) => JSON.stringify(exampleDataPart(o)));
    const listed = ops.map((o) => `${o.key}${o.summary ? ` (${o.summary})` : ''}${o.deprecated ? ' [deprecated]' : ''}`);
    // Research is POST /v2/search with chat: true: the search operation, listed under research too.
    const research = tag === 'research' ? operations.find((o) => o.key === 'POST /v2/search') : undefined;
    if (research) {
      examples.unshift(JSON.stringify({ operationKey: research.key, headers: { accept: 'application/x-ndjson' }, body: { query: 'where are cookies signed?', chat: true } }));
      listed.unshift(`${research.key} with "chat": true (stream a research answer)`);
    }
    skills.push({
      id: tag,
      name: tag,
      description: `${doc.tags?.find((t) => t.name === tag)?.description ?? `Operations tagged ${tag}`}. Send a data part with operationKey set to one of: ${listed.join('; ')}.`,
      tags: [tag, 'http-operation', ...new Set(ops.map((o) => o.method.toLowerCase()))],
      examples,
      inputModes: INPUT_MODES,
      outputModes: research || ops.some((o) => o.produces.includes('application/x-ndjson')) ? OUTPUT_MODES : ['application/json'],
    });
  }
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    version: AGENT_CARD_VERSION,
    name: 'Loupe',
    description: 'Local code intelligence over your indexed repositories. Send your API key as the X-API-Key HTTP header '
      + '(or Authorization: Bearer <key>) on every request; tasks are visible only with the key that created them. '
      + 'A text message is a question: it is researched over your repositories and the answer streams as artifact chunks '
      + '(message/stream) or comes whole (message/send), with its sources as a data part; "what does this repository do?" '
      + 'is answered from the blueprint; "help" or an empty message lists what to send. To run one operation of the Code '
      + 'Intelligence API (V2), send a data part (or the same JSON as text) {operationKey: "METHOD /v2/path", pathParams, query, body}: '
      + `the task result is its HTTP output. Every operation: ${baseUrl}/openapi.json.`,
    url: `${baseUrl}${JSONRPC_PATH}`,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [
      { url: `${baseUrl}${JSONRPC_PATH}`, transport: 'JSONRPC' },
      { url: `${baseUrl}${REST_PATH}`, transport: 'HTTP+JSON' },
    ],
    provider: { organization: 'Loupe (local)', url: baseUrl },
    documentationUrl: `${baseUrl}/docs`,
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: true },
    securitySchemes: {
      ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A key UUID, as the X-API-Key HTTP header of every A2A request (Authorization: Bearer <key> works too). Sign-in, the public catalog and "help" need none.' },
    },
    // No card-level `security` requirement: the endpoint itself answers without a key (help text,
    // public operations); each protected operation asks for the key as its HTTP route does.
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    skills,
    supportsAuthenticatedExtendedCard: false,
  };
}
