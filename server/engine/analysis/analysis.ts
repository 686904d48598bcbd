import type { Logger } from '../log';
import type { AnalysisStore } from '../store/analysis-store';
import type { Async } from '../store/surface';
import type { RepoRecord } from '../types';
import { AnalysisContext } from './context';
import type { PullRequestConfig } from './pull-requests';
import { radius, type RadiusRequest, type RadiusResult } from './radius';
import { blueprint, type BlueprintOptions, type BlueprintResult } from './blueprint';
import { scope, type ScopeOptions, type ScopeResult } from './scope';
import { dependencyMap, type MapOptions, type MapResult } from './dependency-map';
import { review, type ReviewOptions, type ReviewResult } from './review';
import { coverageGaps, type CoverageOptions, type CoverageResult } from './coverage-gaps';

/**
 * The analysis service: answers computed from the persisted index (import graph, symbols, chunks)
 * and git history. Plan checks and costs belong to the transport; this only computes.
 */
export class Analysis {
  readonly ctx: AnalysisContext;

  constructor(store: Async<AnalysisStore>, log: Logger, pullRequests: PullRequestConfig) {
    this.ctx = new AnalysisContext(store, log, pullRequests);
  }

  radius(repo: RepoRecord, request: RadiusRequest): Promise<RadiusResult> {
    return radius(this.ctx, repo, request);
  }

  blueprint(repo: RepoRecord, options: BlueprintOptions): Promise<BlueprintResult> {
    return blueprint(this.ctx, repo, options);
  }

  scope(repo: RepoRecord, options: ScopeOptions): Promise<ScopeResult> {
    return scope(this.ctx, repo, options);
  }

  map(repo: RepoRecord, options: MapOptions): Promise<MapResult> {
    return dependencyMap(this.ctx, repo, options);
  }

  review(repo: RepoRecord, options: ReviewOptions): Promise<ReviewResult> {
    return review(this.ctx, repo, options);
  }

  coverageGaps(repo: RepoRecord, options: CoverageOptions): Promise<CoverageResult> {
    return coverageGaps(this.ctx, repo, options);
  }
}
