import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Engine } from '../../../../engine/engine';
import type { RepoRecord } from '../../../../engine/types';
import { Envelope, PagedEnvelope } from '../../../../../protocol/api/common';
import {
  IndexRequest, IndexResult, ListReposQuery, PublicRepo, PublicReposQuery, Repo, RepoStatus, StatusRequest,
} from '../../../../../protocol/api/repos';
import { authenticateRequest, callerOf, ok, page } from '../../context';
import { RateLimiter, type RateRule } from '../../../../engine/accounts/rate-limit';
import { errors } from '../../../common/error-responses';

export const toRepo = (r: RepoRecord) => ({
  repo_id: r.id, name: r.name, url: r.url, source: r.source, branch: r.branch, visibility: r.visibility, state: r.state,
  updating: r.updating, files_total: r.filesTotal, files_indexed: r.filesDone, error: r.error, head_commit: r.headCommit,
  created_at: r.createdAt, last_updated: r.lastUpdated,
});

export const toStatus = (r: RepoRecord) => ({
  repo_id: r.id, updating: r.updating, status: r.active && r.state !== 'failed' && r.state !== 'missing', name: r.name,
  last_updated: r.lastUpdated, state: r.state, files_total: r.filesTotal, files_indexed: r.filesDone, error: r.error,
});

/** /v2/repos…: listing, indexing and polling repositories. */
/** Anonymous callers of the public catalog, per client address (callers with a key are not limited). */
export const ANONYMOUS_CATALOG_LIMIT: RateRule = { max: 60, windowMs: 60_000 };

export async function reposRoutes(fastify: FastifyInstance, engine: Engine): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const anonymous = new RateLimiter();

  app.get('/v2/repos', {
    schema: {
      operationId: 'listRepos', tags: ['repos'], summary: 'List your indexed repositories (1 credit)',
      querystring: ListReposQuery,
      response: { 200: PagedEnvelope(Type.Array(Repo)), ...errors(400, 401, 402) },
    },
    config: { cost: 1, operation: 'repos.list', history: 'repos' },
  }, async (request, reply) => {
    const q = request.query;
    const { items, total } = engine.repos.list(callerOf(request), {
      scope: q.scope, search: q.search, limit: q.limit, offset: q.offset, orderBy: q.order_by as never, order: q.order,
    });
    return ok(engine, request, reply, items.map(toRepo), {
      pagination: page(total, q.limit, q.offset),
      history: { query: q.search ?? null, repoIds: items.map((r) => r.id), summary: `${total} repositories` },
    });
  });

  app.get('/v2/public/repos', {
    schema: {
      operationId: 'listPublicRepos', tags: ['repos'], summary: 'The public catalog (no key needed; anonymous callers get 60 requests a minute per client)', security: [],
      querystring: PublicReposQuery,
      response: { 200: PagedEnvelope(Type.Array(PublicRepo)), ...errors(400, 429) },
    },
    config: { public: true },
  }, async (request, reply) => {
    if (request.headers['x-api-key'] || request.headers.authorization) request.caller = authenticateRequest(engine, request);
    else anonymous.hit([[`catalog:${request.ip}`, ANONYMOUS_CATALOG_LIMIT]]);
    const q = request.query;
    const { items, total } = engine.repos.listPublic(q.limit, q.offset, q.since);
    const data = items.map((r) => ({
      repo_id: r.id, name: r.name, url: r.url, branch: r.branch, files_total: r.filesTotal, last_updated: r.lastUpdated,
      ...(q.file_count ? { top_files: engine.filesStore.mostImported(r.id, q.file_count) } : {}),
    }));
    return ok(engine, request, reply, data, { pagination: page(total, q.limit, q.offset) });
  });

  app.post('/v2/repos/index/new', {
    schema: {
      operationId: 'indexRepo', tags: ['repos'], summary: 'Queue indexing of a GitHub repository or local folder (0 credits)',
      body: IndexRequest,
      response: { 200: Envelope(IndexResult), ...errors(400, 401, 403) },
    },
    config: { cost: 0, operation: 'repos.index', history: 'repos' },
  }, async (request, reply) => {
    const outcome = await engine.repos.index(callerOf(request), request.body);
    const message = outcome.created ? 'indexing queued'
      : outcome.queued ? 'refresh queued' : 'already indexed; pass update: true to refresh';
    return ok(engine, request, reply, {
      repo: toRepo(outcome.repo), created: outcome.created, queued: outcome.queued,
      file_tree: outcome.fileTree, file_tree_total: outcome.fileTreeTotal,
    }, { message, history: { query: request.body.url, repoIds: [outcome.repo.id], summary: message } });
  });

  app.post('/v2/repos/status', {
    schema: {
      operationId: 'repoStatus', tags: ['repos'], summary: 'Poll indexing state (1 credit)',
      body: StatusRequest,
      response: { 200: Envelope(RepoStatus), ...errors(400, 401, 402, 404) },
    },
    config: { cost: 1, operation: 'repos.status', history: 'repos' },
  }, async (request, reply) => {
    const repo = engine.repos.status(callerOf(request), request.body.url);
    return ok(engine, request, reply, toStatus(repo), {
      history: { query: request.body.url, repoIds: [repo.id], summary: `${repo.state}, ${repo.filesDone}/${repo.filesTotal} files` },
    });
  });
}
