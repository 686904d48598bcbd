import type { Static } from 'typebox';
import type { SearchData, SearchHit as WireHitSchema, SearchRequest } from '../../../protocol/api/search';
import type { SearchHit, SearchOutcome, SearchRequest as EngineSearchRequest } from '../search/types';
import type { ResearchEvent, ResearchSearchOutcome } from '../research/research';
import { refersBack } from '../research/lead';
import { assistSummary } from '../research/retrieval-assist';
import type { Answer, CallContext, Caller } from './call';
import { metered, page, type Metering } from './metering';
import type { EngineParts } from './parts';

const SEARCH: Metering = { operation: 'search.run', cost: 5, history: 'search' };

/** A hit on the wire: snake_case, optional fields only when they apply. The one conversion of a hit. */
export const toWireHit = (h: SearchHit): Static<typeof WireHitSchema> => ({
  type: h.type, repo_id: h.repoId, repo_name: h.repoName, file_path: h.filePath, score: h.score,
  ...(h.startLine !== undefined ? { start_line: h.startLine, end_line: h.endLine } : {}),
  ...(h.language !== undefined ? { language: h.language } : {}),
  ...(h.snippet ? { snippet: { start_line: h.snippet.startLine, text: h.snippet.text, highlights: h.snippet.highlights } } : {}),
  ...(h.name !== undefined ? { name: h.name, kind: h.kind, signature: h.signature ?? null, exported: h.exported } : {}),
  ...(h.matches !== undefined ? { matches: h.matches } : {}),
  ...(h.doc ? { doc: h.doc } : {}),
});

export const toWireSearch = (o: SearchOutcome): SearchData => ({
  results: o.results.map(toWireHit),
  total: o.total,
  totals: o.totals as Record<string, number>,
  search: {
    mode: o.mode, scope: o.scope, repo_ids: o.repoIds, timings: o.timings, warnings: o.warnings,
    ...(o.retriever ? { retriever: o.retriever } : {}),
    ...(o.embedding !== undefined ? { embedding: o.embedding } : {}),
    ...(o.candidates ? { candidates: o.candidates } : {}),
  },
});

/** The API's search request in the search service's terms: the one place the two meet. */
const toEngineRequest = (b: SearchRequest): EngineSearchRequest => ({
  query: b.query, scope: b.scope, scanMode: b.scan_mode, repoIds: b.repo_ids, repoUrls: b.repo_urls,
  similarityThreshold: b.similarity_threshold, fields: b.fields, limit: b.limit, offset: b.offset,
  filters: b.filters && {
    fileTypes: b.filters.file_types, filePaths: b.filters.file_paths, dependencies: b.filters.dependencies,
    functionNames: b.filters.function_names, hasFunctions: b.filters.has_functions, minLines: b.filters.min_lines,
    maxLines: b.filters.max_lines, visibility: b.filters.visibility,
  },
});

/** A research answer that passed every check: `events(signal)` streams it; `cancel()` gives back the reserved credits if it never runs. */
export interface ResearchRun {
  model: string;
  events(signal: AbortSignal): AsyncGenerator<ResearchEvent>;
  cancel(): void;
}

/** POST /v2/search: search (semantic, grep over code or docs) and research (`chat: true`). */
export class SearchOperations {
  constructor(private readonly e: EngineParts) {}

  /**
   * Search (5 credits, history `search`). With a retrieval model configured for search (off by default), a
   * semantic search asks it for identifiers and for the order of its top hits; its usage is added to the charge,
   * and `meta.retrieval` says what it did (or that it did not answer, in which case the plain ranking is returned free).
   */
  run(caller: Caller, request: SearchRequest, context: CallContext = {}): Promise<Answer<SearchData>> {
    return metered(this.e.accounts, caller, SEARCH, async (meter) => {
      const engineRequest = toEngineRequest(request);
      const assist = (request.scan_mode ?? 'semantic') === 'semantic' && this.e.research.assist?.searches ? this.e.research.assist : null;
      const assisted = assist
        ? await assist.search(engineRequest, [...(await this.e.search.resolveRepos(caller.userId, request.repo_ids ?? [], request.repo_urls ?? [])).keys()],
          (r) => this.e.search.search(caller.userId, r), context.signal)
        : null;
      const outcome = assisted?.outcome ?? await this.e.search.search(caller.userId, engineRequest);
      const summary = assisted?.summary ?? null;
      const retrieval = assisted ? {
        retrieval: {
          ...(summary ? { model: summary.model, identifiers: summary.identifiers, reranked: summary.reranked, credits: summary.credits } : { model: assist!.config.model, identifiers: [], reranked: false, credits: 0 }),
          ...(assisted.note ? { note: assisted.note } : {}),
        },
      } : null;
      return meter.answer(toWireSearch(outcome), {
        // The retrieval model's usage is model usage, charged with the search.
        ...(summary?.credits ? { cost: meter.cost() + summary.credits } : {}),
        ...(retrieval ? { meta: retrieval } : {}),
        // Paging runs over the kind with the most hits (scope `all` pages every kind at once).
        pagination: page(outcome.page.total, outcome.page.limit, outcome.page.offset),
        history: { query: request.query, repoIds: outcome.repoIds, summary: `${outcome.total} results (${outcome.mode}, ${outcome.scope})`, ...(retrieval ? { result: retrieval } : {}) },
      });
    });
  }

  /**
   * Research: the same search, then an answer from a chat model grounded in its hits. Everything
   * that can refuse the call happens here, before a byte is streamed: credits (402), the model
   * (400), someone else's conversation (404), what the search refuses (400). The answer is charged
   * when it completes (5 credits plus the model's usage) with a history row of category `research`.
   */
  async research(caller: Caller, request: SearchRequest, context: CallContext = {}): Promise<ResearchRun> {
    const { accounts } = this.e;
    const reservation = await accounts.reserveAsync(caller.userId, accounts.costOf(SEARCH.operation, SEARCH.cost), SEARCH.operation);
    let found: ResearchSearchOutcome | null = null;
    let prepared;
    try {
      prepared = await this.e.research.prepare({
        userId: caller.userId, question: request.query, model: request.model, conversationId: request.conversation_id,
        repoIds: request.repo_ids, reservation, search: async () => found!,
      });
    } catch (error) {
      accounts.credits.release(reservation);
      throw error;
    }
    try {
      // A follow-up that points back ("where is it called?") searches for the previous answer's subject too.
      const subject = prepared.subject && refersBack(request.query) ? prepared.subject.name.replace(/^.*\./, '') : null;
      const engineRequest = toEngineRequest(request);
      const assist = (request.scan_mode ?? 'semantic') === 'semantic' ? this.e.research.assist : null;
      let query = subject ? `${request.query} ${subject}` : request.query;
      // With a retrieval model: the identifiers it names join the query (and lead the answer).
      const expansion = assist?.expands
        ? await assist.expand(request.query, [...(await this.e.search.resolveRepos(caller.userId, request.repo_ids ?? [], request.repo_urls ?? [])).keys()], context.signal)
        : null;
      if (expansion?.identifiers.length) query = `${query} ${expansion.identifiers.join(' ')}`;
      const outcome = await this.e.search.search(caller.userId, { ...engineRequest, query });
      const wire = toWireSearch(outcome);
      const located = outcome.results.filter((h): h is SearchHit & { filePath: string } => !!h.filePath);
      const isTest = await this.e.search.testFiles(located);
      let hits: ResearchSearchOutcome['hits'] = located.map((h) => ({
        repoId: h.repoId, repoName: h.repoName, filePath: h.filePath, startLine: h.startLine ?? null, endLine: h.endLine ?? null, score: h.score,
        test: isTest(h.repoId, h.filePath),
        ...(h.type === 'function' && h.name ? { name: h.name } : {}),
      }));
      // And it orders the top function hits.
      const functions = outcome.results.filter((h) => h.type === 'function' && h.filePath && h.name);
      const reranked = assist?.reranks ? await assist.rerank(request.query, functions.map((h) => ({
        name: h.name!, path: h.filePath!, line: h.startLine ?? null, signature: h.signature ?? null,
      })), context.signal) : null;
      if (reranked) {
        const order = reranked.order.map((i) => functions[i]);
        const isFn = (h: ResearchSearchOutcome['hits'][number]) => h.name !== undefined;
        const fnHits = order.map((f) => hits.find((h) => isFn(h) && h.filePath === f.filePath && h.name === f.name && h.startLine === (f.startLine ?? null))!).filter(Boolean);
        let k = 0;
        hits = hits.map((h) => (isFn(h) ? fnHits[k++] ?? h : h));
      }
      found = {
        results: wire.results, total: wire.total,
        meta: { updated_at: new Date().toISOString(), ...(await accounts.metaAsync(caller.userId)), search: wire.search },
        hits,
        assist: assistSummary(expansion, reranked),
      };
    } catch (error) {
      prepared.cancel();
      throw error;
    }
    const run = prepared;
    return { model: run.model.info.id, events: (signal) => run.run(signal), cancel: () => run.cancel() };
  }
}
