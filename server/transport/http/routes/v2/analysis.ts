import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Operations } from '../../../../engine/operations';
import { Envelope } from '../../../../../protocol/api/common';
import { RepoIdParams } from '../../../../../protocol/api/repos';
import {
  Blueprint, BlueprintQuery, CoverageGapsQuery, CoverageGapsResult, MapQuery, MapResult, RadiusRequest, RadiusResult,
  ReviewRequest, ReviewResult, ScopeRequest, ScopeResult,
} from '../../../../../protocol/api/analysis';
import { callerOf, send } from '../../context';
import { errors } from '../../../common/error-responses';

/** /v2/repos/{repo_id}/…: blast radius, blueprint (and the deprecated readme), scope, map, review, coverage gaps. */
export async function analysisRoutes(fastify: FastifyInstance, ops: Operations): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v2/repos/:repo_id/radius', {
    schema: {
      operationId: 'repoRadius', tags: ['analysis'],
      summary: 'Blast radius: every file that depends on the targets, with depth, path and type-only flag (3 credits; DEV plan or higher)',
      description: 'Targets come from file/files (a `path#Symbol` narrows to one symbol), dependency/dependencies, or a pull request number (pr, pull_request or pr_number; used only when no files or dependencies are given), or `uncommitted: true` for the changes of the working tree against HEAD. Unknown targets are reported per item with `found: false`.',
      params: RepoIdParams,
      body: RadiusRequest,
      response: { 200: Envelope(RadiusResult), ...errors(400, 401, 402, 403, 404) },
    },
  }, async (request, reply) => send(reply, await ops.analysis.radius(callerOf(request), { ...request.params, ...request.body })));

  app.get('/v2/repos/:repo_id/blueprint', {
    schema: {
      operationId: 'repoBlueprint', tags: ['analysis'],
      summary: 'Repository overview: Markdown documentation, README, dependencies, top symbols, conventions (1 credit)',
      description: 'symbols depend on the plan (DEV and above); conventions need PRO or above. `notes` says why a part is empty.',
      params: RepoIdParams,
      querystring: BlueprintQuery,
      response: { 200: Envelope(Blueprint), ...errors(400, 401, 402, 403, 404) },
    },
  }, async (request, reply) => send(reply, await ops.analysis.blueprint(callerOf(request), { ...request.params, ...request.query })));

  app.get('/v2/repos/:repo_id/readme', {
    schema: {
      operationId: 'repoReadme', tags: ['analysis'], deprecated: true,
      summary: 'Deprecated: use GET /v2/repos/{repo_id}/blueprint (same answer, 1 credit)',
      params: RepoIdParams,
      querystring: BlueprintQuery,
      response: { 200: Envelope(Blueprint), ...errors(400, 401, 402, 403, 404) },
    },
  }, async (request, reply) => {
    reply.header('Deprecation', 'true').header('Link', `</v2/repos/${encodeURIComponent(request.params.repo_id)}/blueprint>; rel="successor-version"`);
    return send(reply, await ops.analysis.blueprint(callerOf(request), { ...request.params, ...request.query }));
  });

  app.post('/v2/repos/:repo_id/scope', {
    schema: {
      operationId: 'repoScope', tags: ['analysis'],
      summary: 'Dependencies, functions and variables aggregated by name, with drill-down and comparison (1 credit)',
      params: RepoIdParams,
      body: ScopeRequest,
      response: { 200: Envelope(ScopeResult), ...errors(400, 401, 402, 404) },
    },
  }, async (request, reply) => send(reply, await ops.analysis.scope(callerOf(request), { ...request.params, ...request.body })));

  app.get('/v2/repos/:repo_id/map', {
    schema: {
      operationId: 'repoMap', tags: ['analysis'],
      summary: 'Cross-repository dependency map: which other repositories use the same packages, imports, exports or environment variables (4 credits)',
      params: RepoIdParams,
      querystring: MapQuery,
      response: { 200: Envelope(MapResult), ...errors(400, 401, 402, 404) },
    },
  }, async (request, reply) => send(reply, await ops.analysis.map(callerOf(request), { ...request.params, ...request.query })));

  app.post('/v2/repos/:repo_id/review', {
    schema: {
      operationId: 'repoReview', tags: ['analysis'],
      summary: 'Code-review signals for changed files or a pull request: radius, churn, complexity, tests, public API changes (3 credits; DEV plan or higher)',
      params: RepoIdParams,
      body: ReviewRequest,
      response: { 200: Envelope(ReviewResult), ...errors(400, 401, 402, 403, 404) },
    },
  }, async (request, reply) => send(reply, await ops.analysis.review(callerOf(request), { ...request.params, ...request.body })));

  app.get('/v2/repos/:repo_id/coverage-gaps', {
    schema: {
      operationId: 'repoCoverageGaps', tags: ['analysis'],
      summary: 'Test-coverage gaps: source files and exported functions no test reaches, plus lcov data when present (2 credits)',
      params: RepoIdParams,
      querystring: CoverageGapsQuery,
      response: { 200: Envelope(CoverageGapsResult), ...errors(400, 401, 402, 404) },
    },
  }, async (request, reply) => send(reply, await ops.analysis.coverageGaps(callerOf(request), { ...request.params, ...request.query })));
}
