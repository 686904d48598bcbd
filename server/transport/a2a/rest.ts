import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LoupeError } from '../../engine/errors';
import { refusal } from './refusal';
import type { Task } from '@a2a-js/sdk';
import { A2AError, ServerCallContext } from '@a2a-js/sdk/server';
import type { A2aBinding } from './binding';
import { REST_PATH } from './agent-card';
import { eventToProto, sendParamsFromProto, taskToProto } from './rest-codec';
import { validateMessageSendParams, validateTaskQueryParams } from './validate-params';

/** HTTP statuses of A2A errors on the HTTP+JSON binding (as the SDK's own REST handler maps them). */
function statusOf(code: number): number {
  switch (code) {
    case -32700: case -32600: case -32602: case -32003: case -32004: return 400;
    case -32601: case -32001: case -32007: return 404;
    case -32002: return 409;
    default: return 500;
  }
}

const toA2aError = (error: unknown) => (error instanceof A2AError ? error : A2AError.internalError('An unexpected error occurred; it was logged.'));

function fail(reply: FastifyReply, error: unknown) {
  if (error instanceof LoupeError) {
    const { status, headers, body } = refusal(error);
    return reply.code(status).headers(headers).type('application/json').send(body);
  }
  const e = toA2aError(error);
  return reply.code(statusOf(e.code)).type('application/json').send(e.toJSONRPCError());
}

/**
 * The HTTP+JSON binding under /a2a/rest: the 0.3.0 paths (`/v1/message:send`, `/v1/tasks/{id}:cancel`
 * …) with protobuf-JSON bodies, onto the same request handler as JSON-RPC. `{id}:action` is one
 * path segment, so the task routes take the segment whole and split it.
 */
export async function restRoutes(app: FastifyInstance, binding: A2aBinding): Promise<void> {
  const rh = binding.requestHandler;
  // Cancel and subscribe are POSTs without a body, often still labelled application/json.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (!String(body).trim()) return done(null, undefined);
    try {
      done(null, JSON.parse(String(body)));
    } catch (error) {
      done(A2AError.parseError(`Invalid JSON payload: ${(error as Error).message}`), undefined);
    }
  });
  // Errors Fastify raises before a handler runs (bad JSON, wrong content type) in the A2A error shape.
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof A2AError) return fail(reply, error);
    const e = error as { statusCode?: number; message: string };
    if ((error as Error).name === 'SyntaxError' || e.statusCode === 400) return fail(reply, A2AError.parseError(`Invalid JSON payload: ${e.message}`));
    if (e.statusCode && e.statusCode < 500) return reply.code(e.statusCode).send(A2AError.invalidRequest(e.message).toJSONRPCError());
    binding.log.error('A2A REST request failed:', error as Error);
    return fail(reply, error);
  });
  const hidden = { schema: { hide: true }, config: { public: true } };
  const contextFor = (method: string, request: FastifyRequest, params: unknown) => binding.contextFor(method, params, request);

  app.post(`${REST_PATH}/v1/message::send`, hidden, async (request, reply) => {
    try {
      const params = sendParamsFromProto(request.body);
      validateMessageSendParams(params);
      const result = await rh.sendMessage(params as never, await contextFor('message/send', request, params));
      return reply.send(eventToProto(result as never));
    } catch (error) {
      return fail(reply, error);
    }
  });

  app.post(`${REST_PATH}/v1/message::stream`, hidden, async (request, reply) => {
    let params: Record<string, unknown>;
    let context: ServerCallContext;
    try {
      params = sendParamsFromProto(request.body);
      validateMessageSendParams(params);
      context = await contextFor('message/stream', request, params);
    } catch (error) {
      return fail(reply, error);
    }
    const events = rh.sendMessageStream(params as never, context);
    return binding.stream(reply, events, (e) => eventToProto(e as never),
      (error) => { const e = toA2aError(error); return { status: statusOf(e.code), body: e.toJSONRPCError() }; },
      (error) => ({ event: 'error', body: toA2aError(error).toJSONRPCError() }));
  });

  // The key travels in a header (X-API-Key or Authorization: Bearer), never in the URL: URLs end up in logs.
  const task = async (segment: string, method: 'GET' | 'POST', request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as Record<string, unknown>;
    const colon = segment.lastIndexOf(':');
    const [id, action] = colon > 0 ? [segment.slice(0, colon), segment.slice(colon + 1)] : [segment, ''];
    try {
      if ('apiKey' in query || 'api_key' in query) throw A2AError.invalidParams('apiKey: keys do not go in URLs; send the X-API-Key header');
      if (action === 'subscribe') {
        const params = { id };
        const events = rh.resubscribe(params, await contextFor('tasks/resubscribe', request, params));
        return binding.stream(reply, events, (e) => eventToProto(e as never),
          (error) => { const e = toA2aError(error); return { status: statusOf(e.code), body: e.toJSONRPCError() }; },
          (error) => ({ event: 'error', body: toA2aError(error).toJSONRPCError() }));
      }
      if (action === 'cancel' && method === 'POST') {
        const params = { id };
        return reply.send(taskToProto(await rh.cancelTask(params, await contextFor('tasks/cancel', request, params)) as Task as never));
      }
      if (action === '' && method === 'GET') {
        const raw = query.historyLength ?? query.history_length;
        const historyLength = raw === undefined ? undefined : /^-?\d+$/.test(String(raw)) ? Number(raw) : NaN;
        const params = { id, historyLength };
        if (Number.isNaN(historyLength)) throw A2AError.invalidParams('historyLength: must be a non-negative integer');
        validateTaskQueryParams(params);
        return reply.send(taskToProto(await rh.getTask(params, await contextFor('tasks/get', request, params)) as never));
      }
      throw A2AError.methodNotFound(`${method} ${REST_PATH}/v1/tasks/${segment}`);
    } catch (error) {
      return fail(reply, error);
    }
  };
  app.get(`${REST_PATH}/v1/tasks/:segment`, hidden, async (request, reply) =>
    task((request.params as { segment: string }).segment, 'GET', request, reply));
  app.post(`${REST_PATH}/v1/tasks/:segment`, hidden, async (request, reply) =>
    task((request.params as { segment: string }).segment, 'POST', request, reply));

  // Push notifications are not offered, and there is no authenticated extended card.
  const pushUnsupported = async (_request: unknown, reply: FastifyReply) => fail(reply, A2AError.pushNotificationNotSupported());
  app.post(`${REST_PATH}/v1/tasks/:segment/pushNotificationConfigs`, hidden, pushUnsupported);
  app.get(`${REST_PATH}/v1/tasks/:segment/pushNotificationConfigs`, hidden, pushUnsupported);
  app.get(`${REST_PATH}/v1/tasks/:segment/pushNotificationConfigs/:configId`, hidden, pushUnsupported);
  app.delete(`${REST_PATH}/v1/tasks/:segment/pushNotificationConfigs/:configId`, hidden, pushUnsupported);
  app.get(`${REST_PATH}/v1/card`, hidden, async (_request, reply) => fail(reply, A2AError.authenticatedExtendedCardNotConfigured()));
}
