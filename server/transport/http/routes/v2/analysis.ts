import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Engine } from '../../../../engine/engine';
import type { Caller } from '../../../../engine/accounts/accounts';
import { LoupeError, invalid } from '../../../../engine/errors';
import type { CompareRepo } from '../../../../engine/analysis/scope';
import { MAP_TYPES, type MapType } from '../../../../engine/analysis/dependency-map';
import { Envelope } from '../../../../../protocol/api/common';
import { RepoIdParams } from '../../../../../protocol/api/repos';
import {
  Blueprint, BlueprintQuery, CoverageGapsQuery, CoverageGapsResult, MapQuery, MapResult, RadiusRequest, RadiusResult,
  ReviewRequest, ReviewResult, ScopeRequest, ScopeResult,
} from '../../../../../protocol/api/analysis';
import { callerOf, ok } from '../../context';
import { errors } from '../../../common/error-responses';

/** Each id of a compare list resolved for the caller, or the reason it cannot be used (reported per item). */
function resolveEach(engine: Engine, caller: Caller, ids: string[]): CompareRepo[] {
  return [...new Set(ids.map((s) => s.trim()).filter(Boolean))].map((id) => {
    try {
      return { id, repo: engine.repos.resolve(caller, id) };
    } catch (error) {
      return { id, repo: null, reason: error instanceof LoupeError ? error.message : 'repository not found' };
    }
  });
}

/** One of pr / pull_request / pr_number; all given ones must agree. */
function prNumber(body: RadiusRequest): number | undefined {
  const given = [body.pr, body.pull_request, body.pr_number].filter((n): n is number => n !== undefined);
  if (new Set(given).size > 1) throw invalid('pr', 'pr, pull_request and pr_number name different pull requests');
  return given[0];
}

/** /v2/repos/{repo_id}/…: blast radius, blueprint (and the deprecated readme), scope, map, review, coverage gaps. */
export async function analysisRoutes(fastify: FastifyInstance, engine: Engine): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const repoOf = (request: FastifyRequest) => engine.repos.resolve(callerOf(request), (request.params as { repo_id: string }).repo_id);

  app.post('/v2/repos/:repo_id/radius', {
    schema: {
      operationId: 'repoRadius', tags: ['analysis'],
      summary: 'Blast radius: every file that depends on the targets, with depth, path and type-only flag (3 credits; DEV plan or higher)',
      description: 'Targets come from file/files (a `path#Symbol` narrows to one symbol), dependency/dependencies, or a pull request number (pr, pull_request or pr_number; used only when no files or dependencies are given), or `uncommitted: true` for the changes of the working tree against HEAD. Unknown targets are reported per item with `found: false`.',
      params: RepoIdParams,
      body: RadiusRequest,
      response: { 200: Envelope(RadiusResult), ...errors(400, 401, 402, 403, 404) },
    },
    config: { cost: 3, operation: 'repos.radius', history: 'analysis' },
  }, async (request, reply) => {
    const caller = callerOf(request);
    engine.accounts.requirePlan(caller, 'DEV', 'blast radius');
    const repo = repoOf(request);
    const b = request.body;
    const result = await engine.analysis.radius(repo, {
      files: [...(b.file ? [b.file] : []), ...(b.files ?? [])],
      dependencies: [...(b.dependency ? [b.dependency] : []), ...(b.dependencies ?? [])],
      pr: prNumber(b),
      uncommitted: b.uncommitted,
      include: b.include,
      limit: b.limit ?? 100,
    });
    return ok(engine, request, reply, result);
  });

  const blueprintHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = callerOf(request);
    const repo = repoOf(request);
    const prefix = (request.query as { conventions_path_prefix?: string }).conventions_path_prefix;
    const pro = engine.accounts.planOf(caller.plan).name === 'PRO' || engine.accounts.planOf(caller.plan).name === 'ENTERPRISE';
    if (prefix !== undefined && !pro) engine.accounts.requirePlan(caller, 'PRO', 'conventions_path_prefix (conventions)');
    const result = engine.analysis.blueprint(repo, {
      symbolLimit: engine.accounts.includesSymbols(caller) ? (pro ? 50 : 20) : 0,
      conventions: pro,
      conventionsPathPrefix: prefix,
    });
    return ok(engine, request, reply, result);
  };

  app.get('/v2/repos/:repo_id/blueprint', {
    schema: {
      operationId: 'repoBlueprint', tags: ['analysis'],
      summary: 'Repository overview: Markdown documentation, README, dependencies, top symbols, conventions (1 credit)',
      description: 'symbols depend on the plan (DEV and above); conventions need PRO or above. `notes` says why a part is empty.',
      params: RepoIdParams,
      querystring: BlueprintQuery,
      response: { 200: Envelope(Blueprint), ...errors(400, 401, 402, 403, 404) },
    },
    config: { cost: 1, operation: 'repos.blueprint', history: 'analysis' },
  }, blueprintHandler);

  app.get('/v2/repos/:repo_id/readme', {
    schema: {
      operationId: 'repoReadme', tags: ['analysis'], deprecated: true,
      summary: 'Deprecated: use GET /v2/repos/{repo_id}/blueprint (same answer, 1 credit)',
      params: RepoIdParams,
      querystring: BlueprintQuery,
      response: { 200: Envelope(Blueprint), ...errors(400, 401, 402, 403, 404) },
    },
    config: { cost: 1, operation: 'repos.blueprint', history: 'analysis' },
  }, async (request, reply) => {
    reply.header('Deprecation', 'true').header('Link', `</v2/repos/${encodeURIComponent(request.params.repo_id)}/blueprint>; rel="successor-version"`);
    return blueprintHandler(request, reply);
  });

  app.post('/v2/repos/:repo_id/scope', {
    schema: {
      operationId: 'repoScope', tags: ['analysis'],
      summary: 'Dependencies, functions and variables aggregated by name, with drill-down and comparison (1 credit)',
      params: RepoIdParams,
      body: ScopeRequest,
      response: { 200: Envelope(ScopeResult), ...errors(400, 401, 402, 404) },
    },
    config: { cost: 1, operation: 'repos.scope', history: 'analysis' },
  }, async (request, reply) => {
    const caller = callerOf(request);
    const b = request.body;
    if (b.expand && !b.name) throw invalid('expand', 'requires name (the dependency, function or variable to drill into)');
    const repo = repoOf(request);
    const result = engine.analysis.scope(repo, {
      include: b.include?.length ? b.include : ['dependencies', 'functions', 'variables'],
      name: b.name, type: b.type, expand: b.expand,
      compare: resolveEach(engine, caller, b.compare_repos ?? []),
      limit: b.limit ?? 50, offset: b.offset ?? 0, order: b.order ?? 'usage',
    });
    return ok(engine, request, reply, result);
  });

  app.get('/v2/repos/:repo_id/map', {
    schema: {
      operationId: 'repoMap', tags: ['analysis'],
      summary: 'Cross-repository dependency map: which other repositories use the same packages, imports, exports or environment variables (4 credits)',
      params: RepoIdParams,
      querystring: MapQuery,
      response: { 200: Envelope(MapResult), ...errors(400, 401, 402, 404) },
    },
    config: { cost: 4, operation: 'repos.map', history: 'analysis' },
  }, async (request, reply) => {
    const caller = callerOf(request);
    const q = request.query;
    const ids = (q.compare_repos ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    if (ids.length > 10) throw invalid('query.compare_repos', `must name at most 10 repositories (got ${ids.length})`);
    const repo = repoOf(request);
    const compare = resolveEach(engine, caller, ids);
    const candidates = compare.length ? [] : engine.repos.list(caller, { scope: 'private', limit: 1000, offset: 0, orderBy: 'created_at', order: 'asc' }).items;
    if (!compare.length && q.include_public_index) {
      const seen = new Set(candidates.map((r) => r.id));
      for (const r of engine.repos.listPublic(1000, 0).items) if (!seen.has(r.id)) candidates.push(r);
    }
    const result = engine.analysis.map(repo, {
      types: q.type ? [q.type as MapType] : MAP_TYPES,
      dependency: q.dependency, compare, candidates, includePublicIndex: q.include_public_index ?? false,
      limit: q.limit ?? 25, filesPerRepo: q.files_per_repo ?? 25,
    });
    return ok(engine, request, reply, result);
  });

  app.post('/v2/repos/:repo_id/review', {
    schema: {
      operationId: 'repoReview', tags: ['analysis'],
      summary: 'Code-review signals for changed files or a pull request: radius, churn, complexity, tests, public API changes (3 credits; DEV plan or higher)',
      params: RepoIdParams,
      body: ReviewRequest,
      response: { 200: Envelope(ReviewResult), ...errors(400, 401, 402, 403, 404) },
    },
    config: { cost: 3, operation: 'repos.review', history: 'analysis' },
  }, async (request, reply) => {
    const caller = callerOf(request);
    engine.accounts.requirePlan(caller, 'DEV', 'code review signals');
    const repo = repoOf(request);
    const result = await engine.analysis.review(repo, { files: request.body.files ?? [], pr: request.body.pr, base: request.body.base });
    return ok(engine, request, reply, result);
  });

  app.get('/v2/repos/:repo_id/coverage-gaps', {
    schema: {
      operationId: 'repoCoverageGaps', tags: ['analysis'],
      summary: 'Test-coverage gaps: source files and exported functions no test reaches, plus lcov data when present (2 credits)',
      params: RepoIdParams,
      querystring: CoverageGapsQuery,
      response: { 200: Envelope(CoverageGapsResult), ...errors(400, 401, 402, 404) },
    },
    config: { cost: 2, operation: 'repos.coverage_gaps', history: 'analysis' },
  }, async (request, reply) => {
    const repo = repoOf(request);
    const q = request.query;
    const result = engine.analysis.coverageGaps(repo, { pathPrefix: q.path_prefix, limit: q.limit ?? 50, offset: q.offset ?? 0 });
    return ok(engine, request, reply, result);
  });
}
