import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import { exampleDataPart, type OpenApiDocument, type Operation } from './operations';

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
  const skills: AgentSkill[] = [...tags].map(([tag, ops]) => ({
    id: tag,
    name: tag,
    description: `${doc.tags?.find((t) => t.name === tag)?.description ?? `Operations tagged ${tag}`}. Send a data part with operationKey set to one of: `
      + ops.map((o) => `${o.key}${o.summary ? ` (${o.summary})` : ''}${o.deprecated ? ' [deprecated]' : ''}`).join('; ') + '.',
    tags: [tag, 'http-operation', ...new Set(ops.map((o) => o.method.toLowerCase()))],
    examples: ops.map((o) => JSON.stringify(exampleDataPart(o))),
    inputModes: INPUT_MODES,
    outputModes: ops.some((o) => o.produces.includes('application/x-ndjson')) ? OUTPUT_MODES : ['application/json'],
  }));
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    version: AGENT_CARD_VERSION,
    name: 'Loupe',
    description: 'Local code intelligence over your indexed repositories: the Code Intelligence API (V2) as an agent. '
      + 'Send a message whose data part is {operationKey: "METHOD /v2/path", pathParams, query, headers, body} to run that '
      + 'operation; the task result is its HTTP output (status, headers, JSON body) and research streams as artifact chunks. '
      + 'A text message gets the list of operations. The API key goes in X-API-Key, in the data part headers, or in message.metadata.apiKey. '
      + `The full contract is at ${baseUrl}/openapi.json.`,
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
      ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A key UUID; also accepted in the data part headers or message.metadata.apiKey. Auth routes and the public catalog need none.' },
    },
    // No card-level `security` requirement: the endpoint itself answers without a key (help text,
    // public operations); each protected operation asks for the key as its HTTP route does.
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    skills,
    supportsAuthenticatedExtendedCard: false,
  };
}
