import type { FastifyInstance } from 'fastify';
import type { Operations } from '../../engine/operations';
import type { Logger } from '../../engine/log';
import { A2aBinding } from './binding';
import { jsonRpcRoutes } from './jsonrpc';
import { restRoutes } from './rest';
import { errors } from '../common/error-responses';
import type { TaskRetention } from './task-store';
import type { A2aLimits } from './limits';

export interface A2aOptions {
  /** The sidecar's public base URL; by default the card's URLs follow the request's Host. */
  publicUrl?: string;
  /** How long tasks are kept and how many (docs/a2a.md); tests shorten them. */
  retention?: Partial<TaskRetention>;
  /** Message sizes and the keyless rate. */
  limits?: Partial<A2aLimits>;
  /** The clock of the retention rules. */
  now?: () => number;
}

/**
 * The A2A v0.3.0 surface: the agent card, JSON-RPC at /a2a/jsonrpc and HTTP+JSON under /a2a/rest.
 * Every route is public at the HTTP level; the key is checked by each operation a task runs.
 */
export async function a2aRoutes(app: FastifyInstance, ops: Operations, log: Logger, options: A2aOptions = {}): Promise<void> {
  const binding = new A2aBinding(app, ops, log, options.publicUrl, options);
  await binding.settleInterrupted();
  app.get('/.well-known/agent-card.json', {
    schema: {
      operationId: 'getAgentCard', tags: ['a2a'], summary: 'The A2A agent card (protocol 0.3.0): skills, transports, security', security: [],
      response: { 200: { type: 'object', additionalProperties: true, required: ['protocolVersion', 'name', 'url', 'version', 'capabilities', 'skills'], properties: {
        protocolVersion: { type: 'string' }, name: { type: 'string' }, url: { type: 'string' }, version: { type: 'string' },
        capabilities: { type: 'object', additionalProperties: true }, skills: { type: 'array', items: { type: 'object', additionalProperties: true } },
      } }, ...errors(403) },
    },
    config: { public: true },
  }, async (request) => binding.card(`${request.protocol}://${request.host}`));
  await app.register(async (scope) => jsonRpcRoutes(scope, binding));
  await app.register(async (scope) => restRoutes(scope, binding));
}
