import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Engine } from '../../../../engine/engine';
import { LoupeError } from '../../../../engine/errors';
import { parseTimeBound } from '../../../../engine/accounts/history';
import { CODE_OP_COST, CODE_OPS, CodeOps } from '../../../../engine/research/code-ops';
import { Envelope, PagedEnvelope } from '../../../../../protocol/api/common';
import { HistoryItem } from '../../../../../protocol/api/history';
import {
  CodeOpRequest, CodeOpResult, ExplainRequest, ExplainResult, FundiChatRequest, FundiChatResult, FundiHistoryRequest, FundiStatus,
} from '../../../../../protocol/api/fundi';
import { callerOf, ok, page } from '../../context';
import { errors } from '../../../common/error-responses';

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

  app.post('/v1/fundi/explain', {
    schema: {
      operationId: 'fundiExplain', tags: ['v1'], deprecated: true,
      summary: `Legacy explain: a snippet through a generative model (${CODE_OP_COST} credits + usage), or an indexed file through research (POST /v2/search, chat: true)`,
      body: ExplainRequest, response: { 200: Envelope(ExplainResult), ...errors(400, 401, 402, 404, 503) },
    },
    // A snippet is charged by the code operation; an indexed file by the V2 search it runs.
    config: { cost: 0, operation: 'fundi.explain' },
  }, async (request, reply) => {
    const b = request.body;
    if (b.code !== undefined && b.file_path !== undefined) throw new LoupeError('VALIDATION_FAILED', 'file_path: give either code or file_path, not both', { field: 'file_path' });
    if (b.code !== undefined) {
      const caller = callerOf(request);
      const reservation = engine.accounts.reserve(caller.userId, engine.accounts.costOf('fundi.explain', CODE_OP_COST), 'fundi.explain');
      const abort = new AbortController();
      // The response closing before it was written means the client left: stop the model.
      const onClose = () => { if (!reply.raw.writableFinished) abort.abort(new Error('the client went away')); };
      reply.raw.once('close', onClose);
      try {
        const r = await codeOps.run({
          userId: caller.userId, op: 'explain', code: b.code, language: b.language, instructions: b.question, model: b.model, reservation, signal: abort.signal,
        });
        return ok(engine, request, reply, { op: 'explain' as const, result: r.result, model: r.model, source: 'code' as const, context_files: [], credits_used: r.credits_used, history_id: r.history_id, conversation_id: null });
      } finally {
        reply.raw.off('close', onClose);
        engine.accounts.credits.release(reservation);
      }
    }
    if (b.file_path === undefined) throw new LoupeError('VALIDATION_FAILED', 'code: is required unless file_path is given', { field: 'code' });
    const query = `Explain ${b.file_path}${b.question ? `: ${b.question}` : ''}`.slice(0, 1000);
    const r = await research(request, {
      query, model: b.model, repo_ids: b.repo_id ? [b.repo_id] : undefined, filters: { file_paths: [b.file_path] },
    });
    return ok(engine, request, reply, {
      op: 'explain' as const, result: r.answer, model: r.model, source: 'index' as const, context_files: r.context_files,
      credits_used: r.credits_used, history_id: r.history_id, conversation_id: r.conversation_id,
    });
  });

  for (const op of CODE_OPS.filter((o) => o !== 'explain')) {
    app.post(`/v1/fundi/${op}`, {
      schema: {
        operationId: `fundi${op[0].toUpperCase()}${op.slice(1)}`, tags: ['v1'], deprecated: true,
        summary: `Legacy ${op}: a generative chat model ${op}s the code sent (${CODE_OP_COST} credits + model usage)`,
        body: CodeOpRequest, response: { 200: Envelope(CodeOpResult), ...errors(400, 401, 402, 503) },
      },
      config: { cost: CODE_OP_COST, operation: `fundi.${op}` },
    }, async (request, reply) => {
      const b = request.body;
      const abort = new AbortController();
      // The response closing before it was written means the client left: stop the model.
      const onClose = () => { if (!reply.raw.writableFinished) abort.abort(new Error('the client went away')); };
      reply.raw.once('close', onClose);
      try {
        const result = await codeOps.run({
          userId: callerOf(request).userId, op, code: b.code, language: b.language, targetLanguage: b.target_language,
          instructions: b.instructions, model: b.model, reservation: request.reservation, signal: abort.signal,
        });
        // Charged (with its history row) by the operation itself: ok() must not charge again.
        return ok(engine, request, reply, result, { cost: 0 });
      } finally {
        reply.raw.off('close', onClose);
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
