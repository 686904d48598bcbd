import Fastify, { type FastifyInstance, type FastifyServerFactory } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import FindMyWay from 'find-my-way';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import path from 'node:path';
import fs from 'node:fs';
import type { Operations } from '../../engine/operations';
import type { Logger } from '../../engine/log';
import { LoupeError } from '../../engine/errors';
import { ErrorBody } from '../../../protocol/api/common';
import { LazySchemas } from './validation';
import { frameworkErrors, makeErrorHandler } from './errors';
import { errorBody } from '../common/error-body';
import { authenticateRequest, refundUndelivered } from './context';
import { reposRoutes } from './routes/v2/repos';
import { filesRoutes } from './routes/v2/files';
import { historyRoutes } from './routes/v2/history';
import { modelsRoutes } from './routes/v2/models';
import { authRoutes } from './routes/v2/auth';
import { keysRoutes } from './routes/v2/keys';
import { statsRoutes } from './routes/v2/stats';
import { agentRoutes } from './routes/v2/agent';
import { fundiRoutes } from './routes/v1/fundi';
import { analysisRoutes } from './routes/v2/analysis';
import { fileDocsRoutes } from './routes/v2/file-docs';
import { searchRoutes } from './routes/v2/search';
import { healthRoutes } from './routes/health';
import { installGuard, serverLimits, type GuardOptions } from './guard';
import { servedDocument } from './openapi-doc';

export interface AppOptions {
  /** Shown in the OpenAPI `servers` list. */
  publicUrl?: string;
  bodyLimit?: number;
  /** Host/Origin allow-lists and request limits (see guard.ts). */
  guard?: GuardOptions;
  /** A server made (and listening) before the application: the editor's sidecar builds it on the first request (host.ts). */
  serverFactory?: FastifyServerFactory;
}

export const API_VERSION = '2.0.0';

/**
 * Builds the HTTP application without listening: tests call it in-process with inject(), the host
 * (server/host.ts) mounts A2A beside it and listens on 127.0.0.1.
 */
export async function createApp(ops: Operations, log: Logger, options: AppOptions = {}): Promise<FastifyInstance> {
  const schemas = new LazySchemas();
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    ajv: undefined,
    frameworkErrors,
    // Response serializers are built on a route's first answer, or by warmSchemas (see LazySchemas).
    schemaController: { compilersFactory: { buildSerializer: schemas.serializers(SerializerSelector()) } },
    // Fastify's 10 s for a plugin to load is missed on a loaded machine (swagger-ui's, seen at load 17): the sidecar then never started.
    pluginTimeout: 120_000,
    ...serverLimits(options.guard),
    ...(options.serverFactory ? { serverFactory: options.serverFactory } : {}),
  });
  app.setValidatorCompiler(schemas.validatorCompiler);
  app.decorate('warmSchemas', () => schemas.warm());
  app.decorate('compileSchemasNow', (routes: readonly string[]) => schemas.compileNow(routes));
  app.addHook('onClose', async () => schemas.stop());
  app.setErrorHandler(makeErrorHandler(log));
  app.addSchema(ErrorBody);
  // First hook of all: Host, Origin and URL length are checked before authentication or routing.
  app.decorate('streams', installGuard(app, options.guard));

  // Remember every route so an unknown method on a known path is a 405, not a 404.
  const known = FindMyWay();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD' || known.hasRoute(method as never, route.url)) continue;
      known.on(method as never, route.url, () => {});
    }
  });
  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?')[0];
    const allowed = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => m !== request.method && known.find(m as never, pathname));
    const error = allowed.length
      ? new LoupeError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${pathname}; use ${allowed.join(', ')}`)
      : new LoupeError('ROUTE_NOT_FOUND', `no route ${request.method} ${pathname}`);
    if (allowed.length) reply.header('Allow', allowed.join(', '));
    return reply.code(error.status).send(errorBody(error));
  });

  app.addHook('onSend', async (request, reply, payload) => {
    refundUndelivered(request, reply);
    // A body over the limit is answered before it is read, and Fastify asks for the connection to be
    // closed. Closed while the client is still sending, the socket is reset and the client sees EPIPE
    // instead of the 413 (1 upload in 4 of 1.1 MB on 127.0.0.1). Kept open, Node reads the rest of the
    // body and throws it away, bounded by the request timeout (guard.ts), and the client gets its answer.
    if (reply.statusCode === 413) reply.removeHeader('connection');
    return payload;
  });

  app.addHook('onRequest', async (request) => {
    schemas.touch();
    if (request.routeOptions.config?.public || request.url.startsWith('/docs')) return;
    if (!request.routeOptions.url) return; // not found: handled above
    request.caller = await authenticateRequest(ops, request);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Loupe — Code Intelligence API',
        version: API_VERSION,
        license: { name: 'MIT', identifier: 'MIT' },
        description: 'The Code Intelligence HTTP API (V2), served locally by Loupe over an index of your repositories.',
      },
      servers: options.publicUrl ? [{ url: options.publicUrl, description: 'This sidecar' }] : [],
      components: {
        securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A key UUID.' } },
      },
      security: [{ ApiKey: [] }],
      tags: [
        { name: 'repos', description: 'Indexing and listing repositories' },
        { name: 'files', description: 'Files and their documentation' },
        { name: 'search', description: 'Semantic search, grep over code and docs; research with chat: true' },
        { name: 'history', description: 'Your operations and conversation threads' },
        { name: 'auth', description: 'Sign-up and sign-in for scripts and agents (no key needed)' },
        { name: 'keys', description: 'Your API keys and agent credentials' },
        { name: 'stats', description: 'Usage, daily activity, languages' },
        { name: 'v1', description: 'Legacy /v1/fundi adapters over V2 (deprecated)' },
        { name: 'analysis', description: 'Blast radius, blueprint, scope, dependency map, review signals, coverage gaps' },
        { name: 'research', description: 'Chat models for research (POST /v2/search with chat: true streams the answer)' },
        { name: 'health', description: 'Liveness and readiness for load balancers and orchestrators (no key, free)' },
        { name: 'a2a', description: 'Agent-to-agent (A2A v0.3.0): the agent card; JSON-RPC at /a2a/jsonrpc and HTTP+JSON under /a2a/rest run these same operations' },
      ],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    baseDir: swaggerUiStatic(),
    uiConfig: { deepLinking: true },
    staticCSP: true,
  });
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async (request) => servedDocument(app.swagger() as never, request));

  await app.register(async (v2) => {
    await reposRoutes(v2, ops);
    await filesRoutes(v2, ops);
    await historyRoutes(v2, ops);
    await modelsRoutes(v2, ops);
    await authRoutes(v2, ops);
    await keysRoutes(v2, ops);
    await statsRoutes(v2, ops);
    await agentRoutes(v2, ops);
    await fundiRoutes(v2, ops);
    await analysisRoutes(v2, ops);
    await fileDocsRoutes(v2, ops);
    await searchRoutes(v2, ops, log);
    await healthRoutes(v2, ops);
  });
  return app;
}

/** Swagger UI's assets come from node_modules (no CDN); in a packaged extension they sit beside dist/. */
function swaggerUiStatic(): string | undefined {
  const candidates = [path.join(__dirname, 'swagger-ui-static'), path.join(path.dirname(require.resolve('@fastify/swagger-ui')), 'static')];
  return candidates.find((c) => fs.existsSync(c));
}
