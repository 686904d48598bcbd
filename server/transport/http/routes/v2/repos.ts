import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Operations } from '../../../../engine/operations';
import { Envelope, PagedEnvelope } from '../../../../../protocol/api/common';
import {
  IndexRequest, IndexResult, ListReposQuery, PublicRepo, PublicReposQuery, Repo, RepoStatus, StatusRequest,
} from '../../../../../protocol/api/repos';
import { authenticateRequest, callContext, callerOf, send } from '../../context';
import { errors } from '../../../common/error-responses';

/** /v2/repos…: listing, indexing and polling repositories. */
export async function reposRoutes(fastify: FastifyInstance, ops: Operations): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v2/repos', {
    schema: {
      operationId: 'listRepos', tags: ['repos'], summary: 'List your indexed repositories (1 credit)',
      querystring: ListReposQuery,
      response: { 200: PagedEnvelope(Type.Array(Repo)), ...errors(400, 401, 402) },
    },
  }, async (request, reply) => send(reply, await ops.repos.list(callerOf(request), request.query)));

  app.get('/v2/public/repos', {
    schema: {
      operationId: 'listPublicRepos', tags: ['repos'], summary: 'The public catalog (no key needed; anonymous callers get 60 requests a minute per client)', security: [],
      querystring: PublicReposQuery,
      response: { 200: PagedEnvelope(Type.Array(PublicRepo)), ...errors(400, 429) },
    },
    config: { public: true },
  }, async (request, reply) => {
    // A key is optional here: with one, the answer's meta reports the caller's account.
    const caller = request.headers['x-api-key'] || request.headers.authorization ? await authenticateRequest(ops, request) : null;
    if (caller) request.caller = caller;
    return send(reply, await ops.repos.listPublic(caller, request.query, callContext(request, reply)));
  });

  app.post('/v2/repos/index/new', {
    schema: {
      operationId: 'indexRepo', tags: ['repos'], summary: 'Queue indexing of a GitHub repository or local folder (0 credits)',
      body: IndexRequest,
      response: { 200: Envelope(IndexResult), ...errors(400, 401, 403) },
    },
  }, async (request, reply) => send(reply, await ops.repos.index(callerOf(request), request.body)));

  app.post('/v2/repos/status', {
    schema: {
      operationId: 'repoStatus', tags: ['repos'], summary: 'Poll indexing state (1 credit)',
      body: StatusRequest,
      response: { 200: Envelope(RepoStatus), ...errors(400, 401, 402, 404) },
    },
  }, async (request, reply) => send(reply, await ops.repos.status(callerOf(request), request.body)));
}
