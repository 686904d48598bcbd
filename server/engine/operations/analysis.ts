import type { Static } from 'typebox';
import { LoupeError, invalid } from '../errors';
import type { RepoRecord } from '../types';
import type { CompareRepo } from '../analysis/scope';
import { MAP_TYPES, type MapType } from '../analysis/dependency-map';
import type {
  Blueprint, BlueprintQuery, CoverageGapsQuery, CoverageGapsResult, MapQuery, MapResult, RadiusRequest, RadiusResult,
  ReviewRequest, ReviewResult, ScopeRequest, ScopeResult,
} from '../../../protocol/api/analysis';
import type { RepoIdParams } from '../../../protocol/api/repos';
import type { Answer, Caller } from './call';
import { metered, type Meter, type Metering } from './metering';
import type { EngineParts } from './parts';

type InRepo<T> = Static<typeof RepoIdParams> & T;

/** One of pr / pull_request / pr_number; all given ones must agree. */
function prNumber(body: RadiusRequest): number | undefined {
  const given = [body.pr, body.pull_request, body.pr_number].filter((n): n is number => n !== undefined);
  if (new Set(given).size > 1) throw invalid('pr', 'pr, pull_request and pr_number name different pull requests');
  return given[0];
}

/**
 * Blast radius, blueprint, scope, dependency map, review signals and coverage gaps of one
 * repository, with the plan gates: radius and review need DEV, conventions PRO, symbols a plan that
 * includes them. Each writes a history row of category `analysis` naming the repository.
 */
export class AnalysisOperations {
  constructor(private readonly e: EngineParts) {}

  /** Every file that depends on the targets (3 credits; DEV plan or higher). */
  radius(caller: Caller, b: InRepo<RadiusRequest>): Promise<Answer<Static<typeof RadiusResult>>> {
    return this.inRepo(caller, b, { operation: 'repos.radius', cost: 3, history: 'analysis' }, async (repo) => {
      return this.e.analysis.radius(repo, {
        files: [...(b.file ? [b.file] : []), ...(b.files ?? [])],
        dependencies: [...(b.dependency ? [b.dependency] : []), ...(b.dependencies ?? [])],
        pr: prNumber(b),
        uncommitted: b.uncommitted,
        include: b.include,
        limit: b.limit ?? 100,
        githubToken: this.e.github.tokenFor(caller),
      });
    }, () => this.e.accounts.requirePlan(caller, 'DEV', 'blast radius'));
  }

  /** Overview: documentation, README, dependencies, top symbols (by plan), conventions (PRO) (1 credit). */
  blueprint(caller: Caller, q: InRepo<Static<typeof BlueprintQuery>>): Promise<Answer<Static<typeof Blueprint>>> {
    return this.inRepo(caller, q, { operation: 'repos.blueprint', cost: 1, history: 'analysis' }, async (repo) => {
      const plan = this.e.accounts.planOf(caller.plan).name;
      const pro = plan === 'PRO' || plan === 'ENTERPRISE';
      const prefix = q.conventions_path_prefix;
      if (prefix !== undefined && !pro) this.e.accounts.requirePlan(caller, 'PRO', 'conventions_path_prefix (conventions)');
      return this.e.analysis.blueprint(repo, {
        symbolLimit: this.e.accounts.includesSymbols(caller) ? (pro ? 50 : 20) : 0,
        conventions: pro,
        conventionsPathPrefix: prefix,
      });
    });
  }

  /** Dependencies, functions and variables by name, with drill-down and comparison (1 credit). */
  scope(caller: Caller, b: InRepo<ScopeRequest>): Promise<Answer<Static<typeof ScopeResult>>> {
    return this.inRepo(caller, b, { operation: 'repos.scope', cost: 1, history: 'analysis' }, async (repo) => {
      return this.e.analysis.scope(repo, {
        include: b.include?.length ? b.include : ['dependencies', 'functions', 'variables'],
        name: b.name, type: b.type, expand: b.expand,
        compare: await this.resolveEach(caller, b.compare_repos ?? []),
        limit: b.limit ?? 50, offset: b.offset ?? 0, order: b.order ?? 'usage',
      });
    }, () => {
      if (b.expand && !b.name) throw invalid('expand', 'requires name (the dependency, function or variable to drill into)');
    });
  }

  /** Which other repositories use the same packages, imports, exports or environment variables (4 credits). */
  map(caller: Caller, q: InRepo<MapQuery>): Promise<Answer<Static<typeof MapResult>>> {
    const ids = (q.compare_repos ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    return this.inRepo(caller, q, { operation: 'repos.map', cost: 4, history: 'analysis' }, async (repo) => {
      const compare = await this.resolveEach(caller, ids);
      const candidates = compare.length ? [] : (await this.e.repos.list(caller, { scope: 'private', limit: 1000, offset: 0, orderBy: 'created_at', order: 'asc' })).items;
      if (!compare.length && q.include_public_index) {
        const seen = new Set(candidates.map((r) => r.id));
        for (const r of (await this.e.repos.listPublic(1000, 0)).items) if (!seen.has(r.id)) candidates.push(r);
      }
      return this.e.analysis.map(repo, {
        types: q.type ? [q.type as MapType] : MAP_TYPES,
        dependency: q.dependency, compare, candidates, includePublicIndex: q.include_public_index ?? false,
        limit: q.limit ?? 25, filesPerRepo: q.files_per_repo ?? 25,
      });
    }, () => {
      if (ids.length > 10) throw invalid('query.compare_repos', `must name at most 10 repositories (got ${ids.length})`);
    });
  }

  /** Code-review signals for changed files or a pull request (3 credits; DEV plan or higher). */
  review(caller: Caller, b: InRepo<ReviewRequest>): Promise<Answer<Static<typeof ReviewResult>>> {
    return this.inRepo(caller, b, { operation: 'repos.review', cost: 3, history: 'analysis' }, async (repo) => {
      return this.e.analysis.review(repo, { files: b.files ?? [], pr: b.pr, base: b.base, githubToken: this.e.github.tokenFor(caller) });
    }, () => this.e.accounts.requirePlan(caller, 'DEV', 'code review signals'));
  }

  /** Source files and exported functions no test reaches, plus lcov data when present (2 credits). */
  coverageGaps(caller: Caller, q: InRepo<Static<typeof CoverageGapsQuery>>): Promise<Answer<Static<typeof CoverageGapsResult>>> {
    return this.inRepo(caller, q, { operation: 'repos.coverage_gaps', cost: 2, history: 'analysis' }, async (repo) => {
      return this.e.analysis.coverageGaps(repo, { pathPrefix: q.path_prefix, limit: q.limit ?? 50, offset: q.offset ?? 0 });
    });
  }

  /**
   * The shared frame: credits reserved, then the gate (a plan or a request rule), then the
   * repository resolved for the caller, then the computation; the history row names the repository.
   */
  private inRepo<T>(caller: Caller, q: Static<typeof RepoIdParams>, metering: Metering, compute: (repo: RepoRecord) => Promise<T> | T, gate?: () => void): Promise<Answer<T>> {
    return metered(this.e.accounts, caller, metering, async (meter: Meter) => {
      gate?.();
      const repo = await this.e.repos.resolve(caller, q.repo_id);
      return meter.answer(await compute(repo), { history: { repoIds: [repo.id] } });
    });
  }

  /** Each id of a compare list resolved for the caller, or the reason it cannot be used (reported per item). */
  private resolveEach(caller: Caller, ids: string[]): Promise<CompareRepo[]> {
    return Promise.all([...new Set(ids.map((s) => s.trim()).filter(Boolean))].map(async (id) => {
      try {
        return { id, repo: await this.e.repos.resolve(caller, id) };
      } catch (error) {
        return { id, repo: null, reason: error instanceof LoupeError ? error.message : 'repository not found' };
      }
    }));
  }
}
