import type { FastifyInstance, FastifyReply } from 'fastify';
import { A2AError, JsonRpcTransportHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { A2aBinding } from './binding';
import { JSONRPC_PATH } from './agent-card';
import { validateParams } from './validate-params';
import { LoupeError } from '../../engine/errors';
import { refusal } from './refusal';

// JSON of no fixed schema (A2A messages, the OpenAPI document), walked field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Json = Record<string, any>;

const rpcError = (id: unknown, error: A2AError) => ({ jsonrpc: '2.0', id: id ?? null, error: error.toJSONRPCError() });
/** A refused caller (401 bad key, 429 too many keyless messages): that HTTP status, its headers, a JSON-RPC error body. */
function sendRefusal(reply: FastifyReply, id: unknown, error: LoupeError) {
  const { status, headers, body } = refusal(error);
  return reply.code(status).headers(headers).send({ jsonrpc: '2.0', id: id ?? null, error: body });
}
const asA2aError = (error: unknown) => (error instanceof A2AError ? error : A2AError.internalError('An unexpected error occurred; it was logged.'));

/**
 * JSON-RPC 2.0 at POST /a2a/jsonrpc. The body is read as text so that malformed JSON is -32700
 * in the JSON-RPC shape; params are checked here (-32602) before the SDK's handler runs them.
 */
export async function jsonRpcRoutes(app: FastifyInstance, binding: A2aBinding): Promise<void> {
  const handler = new JsonRpcTransportHandler(binding.requestHandler);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  // The card's `url` is this endpoint; a GET on it (a browser, a discovery probe) gets the card.
  app.get(JSONRPC_PATH, { schema: { hide: true }, config: { public: true } }, async (request) => binding.card(`${request.protocol}://${request.host}`));

  app.post(JSONRPC_PATH, { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
    let body: unknown;
    try {
      body = JSON.parse(String(request.body ?? ''));
    } catch (error) {
      return rpcError(null, A2AError.parseError(`Parse error: ${(error as Error).message}`));
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return rpcError(null, A2AError.invalidRequest('Invalid Request: the body must be one JSON-RPC request object'));
    const rpc = body as Json;
    const id = rpc.id;
    if (rpc.jsonrpc !== '2.0' || typeof rpc.method !== 'string' || (id !== undefined && id !== null && typeof id !== 'string' && !Number.isInteger(id))) {
      return rpcError(typeof id === 'string' || Number.isInteger(id) ? id : null, A2AError.invalidRequest('Invalid Request: needs jsonrpc "2.0", a string method and a string or integer id'));
    }
    if (rpc.method === 'agent/getAuthenticatedExtendedCard') return rpcError(id, A2AError.authenticatedExtendedCardNotConfigured());
    try {
      validateParams(rpc.method, rpc.params);
    } catch (error) {
      return rpcError(id, asA2aError(error));
    }
    let context: ServerCallContext;
    try {
      context = await binding.contextFor(rpc.method, rpc.params, request);
    } catch (error) {
      if (error instanceof LoupeError) return sendRefusal(reply, id, error);
      return rpcError(id, asA2aError(error));
    }
    let result: Awaited<ReturnType<typeof handler.handle>>;
    try {
      result = await handler.handle(rpc, context);
    } catch (error) {
      binding.log.error(`A2A ${rpc.method} failed:`, error as Error);
      return rpcError(id, asA2aError(error));
    }
    if (result && typeof (result as AsyncGenerator)[Symbol.asyncIterator] === 'function') {
      const stream = result as AsyncGenerator<unknown, void, undefined>;
      return binding.stream(reply, stream, (event) => event,
        (error) => ({ body: rpcError(id, asA2aError(error)) }),
        (error) => ({ body: rpcError(id, asA2aError(error)) }));
    }
    return result;
  });
}
