import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Engine } from '../../../../engine/engine';
import { LoupeError } from '../../../../engine/errors';
import { parseTimeBound } from '../../../../engine/accounts/history';
import { CODE_OP_COST, CODE_OPS, CodeOps } from '../../../../engine/research/code-ops';
import { Envelope, PagedEnvelope } from '../../../../../protocol/api/common';
import { HistoryItem } from '../../../../../protocol/api/history';
import { CodeOpRequest, CodeOpResult, FundiChatRequest, FundiChatResult, FundiHistoryRequest, FundiStatus } from '../../../../../protocol/api/fundi';
import { callerOf, ok, page } from '../../context';
import { errors } from '../../responses';

const SUCCESSOR = '/v2 (see /openapi.json)';

/**
 * Legacy `/v1/fundi…`, kept for old clients: each route is a thin adapter over a V2 operation or
 * engine call, marked deprecated in the OpenAPI document, with a `Deprecation` header.
 */
export async function fundiRoutes(fastify: FastifyInstance, engine: Engine): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const codeOps = new CodeOps(engine.research.models, engine.accounts);
  app.addHook('onSend', async (request, reply) => {
    if (request.routeOptions.url?.startsWith('/v1/')) reply.header('Deprecation', 'true').header('Link', '</openapi.json>; rel="successor-version"');
  });

  app.get('/v1/fundi', {
    schema: { operationId: 'fundiStatus', tags: ['v1'], deprecated: true, summary: 'Legacy status (use /v2)', response: { 200: Envelope(FundiStatus), ...errors(401) } },
    config: { cost: 0, operation: 'fundi.status' },
  }, async (request, reply) => {
    const models = await engine.research.models.list();
    return ok(engine, request, reply, {
      service: 'fundi' as const, status: 'ok' as const, api_version: 'v1' as const, deprecated: true as const, successor: SUCCESSOR,
      models: models.length, generative_models: models.filter((m) => m.kind === 'llm').length,
      uptime_s: Math.round((Date.now() - engine.startedAt.getTime()) / 1000),
    });
  });

  // The same list as GET /v2/models, run through it so the two never differ.
  app.get('/v1/fundi/models', {
    schema: { operationId: 'fundiModels', tags: ['v1'], deprecated: true, summary: 'Legacy model list (GET /v2/models)', response: { 200: Envelope(Type.Array(Type.Unknown())), ...errors(401) } },
    config: { cost: 0, operation: 'fundi.models' },
  }, async (request, reply) => {
    const res = await request.server.inject({ method: 'GET', url: '/v2/models', headers: forwardAuth(request) });
    if (res.statusCode !== 200) throw new LoupeError('INTERNAL', `GET /v2/models answered ${res.statusCode}`);
    return ok(engine, request, reply, JSON.parse(res.body).data);
  });

  app.post('/v1/fundi/chat', {
    schema: {
      operationId: 'fundiChat', tags: ['v1'], deprecated: true, summary: 'Legacy chat: POST /v2/search with chat: true, collected into one answer',
      body: FundiChatRequest, response: { 200: Envelope(FundiChatResult), ...errors(400, 401, 402, 503) },
    },
    // Charged by the V2 search it runs; nothing here.
    config: { cost: 0, operation: 'fundi.chat' },
  }, async (request, reply) => {
    const b = request.body;
    const result = await research(request, { query: b.message, model: b.model, conversation_id: b.conversation_id, repo_ids: b.repo_ids });
    return ok(engine, request, reply, result);
  });

  app.post('/v1/fundi/history', {
    schema: {
      operationId: 'fundiHistory', tags: ['v1'], deprecated: true, summary: 'Legacy history (GET /v2/history)',
      body: FundiHistoryRequest, response: { 200: PagedEnvelope(Type.Array(HistoryItem)), ...errors(400, 401) },
    },
    config: { cost: 0, operation: 'fundi.history' },
  }, async (request, reply) => {
    const q = request.body ?? { limit: 20, offset: 0 };
    const limit = q.limit ?? 20;
    const offset = q.offset ?? 0;
    const from = q.from === undefined ? undefined : parseTimeBound(q.from, 'from', 'start');
    const to = q.to === undefined ? undefined : parseTimeBound(q.to, 'to', 'end');
    const { items, total } = engine.history.list(callerOf(request).userId, { limit, offset, from, to });
    return ok(engine, request, reply, items, { pagination: page(total, limit, offset) });
  });

  for (const op of CODE_OPS) {
    app.post(`/v1/fundi/${op}`, {
      schema: {
        operationId: `fundi${op[0].toUpperCase()}${op.slice(1)}`, tags: ['v1'], deprecated: true,
        summary: `Legacy ${op}: a generative chat model ${op === 'explain' ? 'explains' : `${op}s`} the code sent (${CODE_OP_COST} credits + model usage)`,
        body: CodeOpRequest, response: { 200: Envelope(CodeOpResult), ...errors(400, 401, 402, 503) },
      },
      config: { cost: CODE_OP_COST, operation: `fundi.${op}` },
    }, async (request, reply) => {
      const b = request.body;
      const abort = new AbortController();
      const onClose = () => abort.abort(new Error('the client went away'));
      request.raw.once('close', onClose);
      try {
        const result = await codeOps.run({
          userId: callerOf(request).userId, op, code: b.code, language: b.language, targetLanguage: b.target_language,
          instructions: b.instructions, model: b.model, reservation: request.reservation, signal: abort.signal,
        });
        // Charged (with its history row) by the operation itself: ok() must not charge again.
        return ok(engine, request, reply, result, { cost: 0 });
      } finally {
        request.raw.off('close', onClose);
      }
    });
  }

  /** Runs POST /v2/search with chat: true for the caller and folds the NDJSON stream into one answer. */
  async function research(request: FastifyRequest, body: Record<string, unknown>) {
    const res = await request.server.inject({
      method: 'POST', url: '/v2/search', headers: { ...forwardAuth(request), accept: 'application/x-ndjson', 'content-type': 'application/json' },
      payload: JSON.stringify({ ...Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)), chat: true }),
    });
    if (res.statusCode === 404 && JSON.parse(res.body).code === 'ROUTE_NOT_FOUND') {
      throw new LoupeError('SERVICE_UNAVAILABLE', 'research (POST /v2/search) is not available in this build');
    }
    if (res.statusCode !== 200) {
      const error = JSON.parse(res.body);
      throw new LoupeError(error.code ?? 'INTERNAL', error.message ?? `POST /v2/search answered ${res.statusCode}`, {
        ...(error.field ? { field: error.field } : {}), ...(error.required !== undefined ? { required: error.required, available: error.available } : {}),
      });
    }
    let answer = '';
    for (const line of res.body.split('\n').filter(Boolean)) {
      const event = JSON.parse(line);
      if (event.type === 'chunk') answer += event.text;
      else if (event.type === 'error') throw new LoupeError('SERVICE_UNAVAILABLE', `research failed: ${event.message}`);
      else if (event.type === 'done') {
        return {
          answer, model: event.model, context_files: event.context_files ?? [], conversation_id: event.conversation_id ?? null,
          history_id: event.history_id ?? null, credits_used: event.credits_used ?? 0,
        };
      }
    }
    throw new LoupeError('SERVICE_UNAVAILABLE', 'research ended without an answer');
  }
}

/** The caller's credentials, for the V2 operation an adapter runs on their behalf. */
function forwardAuth(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['x-api-key', 'authorization']) {
    const value = request.headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}
