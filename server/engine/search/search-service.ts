import { LoupeError, invalid } from '../errors';
import type { Logger } from '../log';
import type { ReposStore } from '../store/repos-store';
import type { SearchStore } from '../store/search-store';
import type { Async } from '../store/surface';
import type { VectorIndex } from '../embed/vector-index';
import type { RepoRecord } from '../types';
import { isUuid } from '../util/ids';
import { parseRepoLocation } from '../repos/repo-url';
import type { RepoAccess } from '../repos/access';
import { allowedFiles, unindexedFiles } from './filters';
import { grepCode, grepDocs, grepHits, type GrepContext } from './grep';
import { GrepSamples, type GrepIndexUse } from './grep-plan';
import { GrepPool } from './grep-pool';
import { hybridSearch } from './hybrid';
import { FILE_ROLES, rolesAsked } from './file-role';
import { semanticHits } from './hits';
import { parseGrepQuery, queryTerms } from './query';
import type { DocSource, SearchHit, SearchOutcome, SearchRequest } from './types';
import { testingLibrariesOf } from './testing-libraries-of';
import { isTestPath } from '../analysis/entry-points';
import { underTestFolder, type TestingLibraries } from '../analysis/testing-libraries';

export const MAX_REPOS_PER_SEARCH = 25;

export interface SearchOptions {
  /** How long a grep may scan before it is stopped (a runaway regular expression). */
  grepBudgetMs: number;
  /** Cap on matched lines a grep collects. */
  maxGrepMatches: number;
  /**
   * Greps one user may have running at once (default 2): past it, 429 with Retry-After before any
   * work. Each takes at most as many workers as the pool has threads, so one user's runaway
   * patterns hold a bounded share of the workers and the rest stay for everyone else.
   */
  maxScansPerUser: number;
  /** Whether grep_code narrows files with the trigram index: when it pays (auto), always or never (tests use both). */
  grepIndex: GrepIndexUse;
}

/** Hits per kind on a page: semantic search, and grep (every matching line up to this, `offset` for the next page). */
export const SEMANTIC_PAGE_LIMIT = 20;
export const GREP_PAGE_LIMIT = 1000;

export const DEFAULT_SEARCH_OPTIONS: SearchOptions = { grepBudgetMs: 5000, maxGrepMatches: 10000, grepIndex: 'auto', maxScansPerUser: 2 };

/** POST /v2/search without `chat`: semantic (hybrid), grep over code, grep over file docs. */
export class SearchService {
  readonly pool: GrepPool;
  private readonly samples = new GrepSamples();
  private readonly options: SearchOptions;
  private docs: DocSource | null = null;
  private warmed = false;

  /**
   * Every read of the index goes through the async stores (`EngineCore.reads`, or PostgreSQL's index
   * stores), so one service answers over both backends; `vectors` (the derived index) reads its model and
   * KNN through its own async reads, and keeps the in-memory copy it writes.
   */
  constructor(
    private readonly store: Async<SearchStore>,
    readonly vectors: VectorIndex,
    private readonly repos: Async<ReposStore>,
    private readonly access: RepoAccess,
    private readonly log: Logger,
    options: Partial<SearchOptions> = {},
  ) {
    this.options = { ...DEFAULT_SEARCH_OPTIONS, ...options };
    this.pool = new GrepPool();
  }

  /** Greps running per user (maxScansPerUser). */
  private readonly scans = new Map<string, number>();

  /** The documentation service, which sits above search, hands itself in here. */
  setDocSource(docs: DocSource | null): void {
    this.docs = docs;
  }

  async search(userId: string, req: SearchRequest): Promise<SearchOutcome> {
    const started = performance.now();
    // Grep workers take a moment to start: the first search of any kind starts them.
    if (!this.warmed) { this.warmed = true; this.pool.warm(); }
    const scope = req.scope ?? 'all';
    const mode = req.scanMode ?? 'semantic';
    const limit = req.limit ?? (mode === 'semantic' ? SEMANTIC_PAGE_LIMIT : GREP_PAGE_LIMIT);
    const offset = req.offset ?? 0;
    // In grep modes spaces are part of the text searched for; in semantic mode they mean nothing.
    if ((mode === 'semantic' ? req.query.trim() : req.query).length < 2) throw invalid('query', 'must contain at least 2 characters');
    const repos = await this.resolveRepos(userId, req.repoIds ?? [], req.repoUrls ?? []);
    const repoIds = [...repos.keys()];
    let t = performance.now();
    // For function hits, visibility is the function's own (exported or not), not its file's.
    const fileFilters = scope === 'functions' && req.filters ? { ...req.filters, visibility: undefined } : req.filters;
    const allowed = await allowedFiles(this.store, repoIds, fileFilters);
    const timings: SearchOutcome['timings'] = { totalMs: 0, filterMs: performance.now() - t };
    const warnings: string[] = [];
    let result: { hits: SearchHit[]; totals: Partial<Record<SearchHit['type'], number>> };
    let extra: Partial<SearchOutcome> = {};

    if (mode === 'semantic') {
      const terms = queryTerms(req.expansions?.length ? `${req.query} ${req.expansions.join(' ')}` : req.query);
      // What the query as typed asks for (tests, examples, …), not what a model's identifiers happen to say.
      const asked = rolesAsked(req.expansions?.length ? queryTerms(req.query) : terms);
      const retriever = req.retriever ?? 'hybrid';
      const hybrid = await hybridSearch(this.store, this.vectors, req.query, terms, {
        retriever, repoIds, allowed, similarityThreshold: req.similarityThreshold ?? 0, expansions: req.expansions,
        depth: scope === 'code' ? Math.max(offset + limit, 50) : 200,
        // Tests, benchmarks, examples, generated files, translations and config files rank below source unless the
        // query names them or a path or type filter chose the files.
        demoted: req.filters?.filePaths?.length || req.filters?.fileTypes?.length ? new Set()
          : new Set(FILE_ROLES.filter((r) => !asked.has(r))),
      });
      Object.assign(timings, hybrid.timings);
      warnings.push(...hybrid.warnings);
      t = performance.now();
      result = await semanticHits(scope, hybrid.ranked, {
        store: this.store, repos, terms, query: req.query, limit, offset, visibility: req.filters?.visibility, functionNames: req.filters?.functionNames,
      });
      timings.hitsMs = performance.now() - t;
      extra = { retriever, embedding: hybrid.embedding };
    } else {
      const q = parseGrepQuery(req.query);
      const running = this.scans.get(userId) ?? 0;
      if (running >= this.options.maxScansPerUser) {
        throw new LoupeError('RATE_LIMITED', `you have ${running} greps running (at most ${this.options.maxScansPerUser} at once); retry when one has finished`,
          { retry_after: 1 }, { 'Retry-After': '1' });
      }
      this.scans.set(userId, running + 1);
      try {
        const ctx: GrepContext = {
          store: this.store, pool: this.pool, docs: this.docs, repos, repoIds, allowed, limit, offset,
          unindexed: mode === 'grep_code' ? await unindexedFiles(this.store, repoIds, fileFilters) : [],
          maxMatches: req.maxMatches ?? this.options.maxGrepMatches, budgetMs: this.options.grepBudgetMs,
          visibility: req.filters?.visibility, functionNames: req.filters?.functionNames,
          index: this.options.grepIndex, samples: this.samples,
        };
        const run = mode === 'grep_code' ? await grepCode(q, ctx) : await grepDocs(q, ctx);
        Object.assign(timings, run.timings);
        if (run.truncated) warnings.push(`more than ${ctx.maxMatches} lines matched; the rest were not collected`);
        result = await grepHits(scope, run, ctx, mode === 'grep_docs');
        extra = { candidates: { files: run.candidateFiles, scanned: run.scannedFiles } };
      } finally {
        const left = (this.scans.get(userId) ?? 1) - 1;
        if (left > 0) this.scans.set(userId, left); else this.scans.delete(userId);
      }
    }

    if (req.fields) {
      t = performance.now();
      await this.attachDocs(result.hits, req.fields);
      timings.docsMs = performance.now() - t;
    }
    timings.totalMs = performance.now() - started;
    for (const k of Object.keys(timings)) timings[k] = Math.round(timings[k] * 100) / 100;
    if (timings.totalMs > 1000) this.log.info(`slow search (${mode}, ${scope}) took ${timings.totalMs} ms: ${JSON.stringify(timings)}`);
    const total = Object.values(result.totals).reduce((s, n) => s + (n ?? 0), 0);
    const page = { limit, offset, total: Math.max(0, ...Object.values(result.totals).map((n) => n ?? 0)) };
    return { results: result.hits, total, totals: result.totals, mode, scope, page, repoIds, timings, warnings, ...extra };
  }

  /** Which of these files are tests, each repository's testing libraries (django/test/) not: `isTest(repoId, path)`. */
  async testFiles(files: { repoId: string; filePath: string }[]): Promise<(repoId: string, path: string) => boolean> {
    const repoIds = [...new Set(files.filter((f) => underTestFolder(f.filePath)).map((f) => f.repoId))];
    const libraries = repoIds.length ? await testingLibrariesOf(this.store, repoIds) : new Map<string, TestingLibraries>();
    return (repoId, path) => isTestPath(path, libraries.get(repoId));
  }

  /** repo_ids and repo_urls together (at most 25), or every repository of the caller. Unknown ones are named in a 400. */
  async resolveRepos(userId: string, repoIds: string[], repoUrls: string[]): Promise<Map<string, RepoRecord>> {
    if (repoIds.length + repoUrls.length > MAX_REPOS_PER_SEARCH) {
      throw invalid('repo_ids', `repo_ids and repo_urls may name at most ${MAX_REPOS_PER_SEARCH} repositories together (got ${repoIds.length + repoUrls.length})`);
    }
    const out = new Map<string, RepoRecord>();
    if (!repoIds.length && !repoUrls.length) {
      for (const r of (await this.repos.list({ userId, scope: 'private', limit: 10000, offset: 0, orderBy: 'created_at', order: 'asc' })).items) {
        if (await this.access.mayRead(userId, r)) out.set(r.id, r);
      }
      return out;
    }
    const unknown: string[] = [];
    for (const id of repoIds) {
      const r = isUuid(id) ? await this.repos.get(id.toLowerCase()) : undefined;
      if (r && await this.access.mayRead(userId, r)) out.set(r.id, r); else unknown.push(id);
    }
    for (const url of repoUrls) {
      let r: RepoRecord | undefined;
      try { r = await this.repos.getByUrl(parseRepoLocation(url, 'repo_urls').url); } catch { r = undefined; }
      if (r && await this.access.mayRead(userId, r)) out.set(r.id, r); else unknown.push(url);
    }
    if (unknown.length) {
      throw new LoupeError('UNKNOWN_REPOSITORIES', `repo_ids/repo_urls: not indexed for this caller: ${unknown.join(', ')}`, { field: 'repo_ids', unknown });
    }
    return out;
  }

  private async attachDocs(hits: SearchHit[], depth: NonNullable<SearchRequest['fields']>): Promise<void> {
    // Each file's documentation asked for once, all of them awaited together.
    const asked = new Map<string, Promise<string | null | undefined> | null>();
    for (const hit of hits) {
      if (!hit.filePath) continue;
      const key = `${hit.repoId}\0${hit.filePath}`;
      if (!asked.has(key)) asked.set(key, this.docs ? this.docs.markdown(hit.repoId, hit.filePath, depth) : null);
    }
    const keys = [...asked.keys()];
    const answers = await Promise.all(asked.values());
    const cache = new Map(keys.map((k, i) => [k, answers[i]]));
    for (const hit of hits) {
      if (!hit.filePath) continue;
      const markdown = cache.get(`${hit.repoId}\0${hit.filePath}`);
      // A file the index left out (generated, oversized) gets no documentation, and none is coming.
      hit.doc = { depth, markdown: markdown ?? null, processing: markdown === null };
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
