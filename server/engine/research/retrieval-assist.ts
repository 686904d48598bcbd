/**
 * A language model's help with retrieval, when one is configured (`research.retrieval`, the
 * environment's LOUPE_RETRIEVAL_MODEL): off by default.
 *
 * - **Expansion**: the question and the names the repositories define (functions, methods, classes;
 *   those sharing a word with the question first, at most `maxSymbols`) go to the model, which names
 *   the identifiers most likely to hold the answer. Only names from the list are kept; they join the
 *   search's query and lead the answer's choice of its first place.
 * - **Rerank**: the question and the top function hits (name, path:line, signature, the first line
 *   of the doc comment; no code bodies) go to the model, which orders them.
 *
 * Both are model usage, charged as research charges its model (`creditsPer1kTokens`). A model that
 * fails or is slow (`timeoutMs`) is skipped: the search goes on without it and nothing is charged.
 */
import type { Logger } from '../log';
import type { ResearchStore } from '../store/research-store';
import type { Async } from '../store/surface';
import { stem } from '../embed/terms';
import { splitIdentifier } from '../util/words';
import type { ChatMessage, ChatUsage } from './model-provider';
import type { ModelRegistry } from './model-registry';
import { readQuestion } from './lead';
import type { SearchHit, SearchOutcome, SearchRequest, SearchScope } from '../search/types';



export interface RetrievalAssistConfig {
  /** The model (an id of GET /v2/models: an OpenAI-compatible one, or `vscode:…`) that helps. */
  model: string;
  /** Ask it for likely identifiers (default true). */
  expand?: boolean;
  /** Ask it to order the top function hits (default true). */
  rerank?: boolean;
  /** Names sent for expansion at most (default 400). */
  maxSymbols?: number;
  /** Hits sent for reranking at most (default 10). */
  rerankTop?: number;
  /** A call that takes longer is given up (default 10 s). */
  timeoutMs?: number;
  /** Help plain semantic search too (POST /v2/search without chat), not only research (default true). */
  search?: boolean;
}

export interface AssistCall {
  model: string;
  usage: ChatUsage;
  credits: number;
}

export interface RerankCandidate {
  name: string;
  path: string;
  line: number | null;
  signature?: string | null;
  doc?: string | null;
  /** A file's: the names it defines. */
  defines?: string[];
}

const DEFINED: ReadonlySet<string> = new Set(['function', 'method', 'class']);

/** Whether a name shares a word (a light stem) with the question. */
function nearQuestion(question: string): (name: string) => boolean {
  const q = readQuestion(question).stems.filter((w) => !w.startsWith('\u0000'));
  return (name) => splitIdentifier(name).some((w) => q.some((s) => { const x = stem(w); return x === s || (Math.min(x.length, s.length) >= 4 && (x.startsWith(s) || s.startsWith(x))); }));
}

const EXPAND_INSTRUCTIONS = 'You help a code search engine. Given a developer\'s question about their repository and the list of '
  + 'identifiers the repository defines, reply with the identifiers most likely to be where the answer is, best first, one per '
  + 'line, at most 8. Use identifiers from the list only; reply with nothing else.';
const RERANK_INSTRUCTIONS = 'You help a code search engine. Given a developer\'s question and numbered code locations, reply with '
  + 'the numbers of the locations, the one that best answers the question first, separated by spaces. Reply with nothing else.';

/** What the model's help did for one call: recorded with it (history, `meta.retrieval`) and charged. */
export interface AssistSummary {
  model: string;
  identifiers: string[];
  reranked: boolean;
  credits: number;
  inputTokens: number;
  outputTokens: number;
}

/** The summary of the calls that answered (null when none did). */
export function assistSummary(expansion: (AssistCall & { identifiers: string[] }) | null, rerank: (AssistCall & { order: number[] }) | null): AssistSummary | null {
  const calls = [expansion, rerank].filter((c): c is NonNullable<typeof c> => c !== null);
  if (!calls.length) return null;
  return {
    model: calls[0].model, identifiers: expansion?.identifiers ?? [], reranked: !!rerank,
    credits: calls.reduce((n, c) => n + c.credits, 0),
    inputTokens: calls.reduce((n, c) => n + c.usage.inputTokens, 0), outputTokens: calls.reduce((n, c) => n + c.usage.outputTokens, 0),
  };
}

/** The hits of a page a rerank orders: the scope's own kind (files for `all`). */
const RERANKED_KIND: Record<SearchScope, SearchHit['type']> = { all: 'file', files: 'file', functions: 'function', code: 'code', repos: 'repo' };

export class RetrievalAssist {
  readonly expands: boolean;
  readonly reranks: boolean;
  /** Whether plain semantic search asks it too (research always does). */
  readonly searches: boolean;

  constructor(
    private readonly models: ModelRegistry,
    private readonly store: Async<ResearchStore>,
    readonly config: RetrievalAssistConfig,
    private readonly log: Logger,
  ) {
    this.expands = config.expand !== false;
    this.reranks = config.rerank !== false;
    this.searches = config.search !== false;
  }

  /**
   * Plain semantic search with the model's help: the identifiers it names join the full-text side of the
   * search (`expansions`), then it orders the first page's top hits of the scope's kind (files for `all`;
   * each place keeps its score, so scores still fall down the list). A model that fails, times out or is
   * not a language model is skipped: the plain ranking is returned, with a note, and nothing is charged.
   */
  async search(
    request: SearchRequest, repoIds: string[], run: (request: SearchRequest) => Promise<SearchOutcome>, signal?: AbortSignal,
  ): Promise<{ outcome: SearchOutcome; summary: AssistSummary | null; note: string | null }> {
    const expansion = this.expands ? await this.expand(request.query, repoIds, signal) : null;
    const outcome = await run(expansion?.identifiers.length ? { ...request, expansions: expansion.identifiers } : request);
    const kind = RERANKED_KIND[request.scope ?? 'all'];
    // Only the first page: a later page reordered on its own would not continue the first.
    const ranked = (request.offset ?? 0) === 0 ? outcome.results.filter((h) => h.type === kind && h.filePath) : [];
    const top = ranked.slice(0, this.config.rerankTop ?? 10);
    const reranked = this.reranks && top.length > 1 ? await this.rerank(request.query, await Promise.all(top.map((h) => this.rerankCandidate(h, request.query))), signal) : null;
    if (reranked) {
      const order = reranked.order.map((i) => top[i]);
      const scores = top.map((h) => h.score);
      const at = outcome.results.indexOf(top[0]);
      order.forEach((h, i) => { outcome.results[at + i] = { ...h, score: scores[i] }; });
    }
    const summary = assistSummary(expansion, reranked);
    const asked = (this.expands ? 1 : 0) + (this.reranks && top.length > 1 ? 1 : 0);
    const missing = asked - (expansion ? 1 : 0) - (reranked ? 1 : 0);
    const note = missing > 0 ? `retrieval model ${this.config.model} did not answer${summary ? ' in part' : ''}; ${summary ? 'what it answered was used' : 'the plain ranking is returned'}` : null;
    return { outcome, summary, note };
  }

  /**
   * A hit as the rerank prompt names it: a function by its name and signature; a file or a chunk by its file's
   * base name and the names the file defines (functions, methods, classes; those sharing a word with the query first, at most 8).
   */
  async rerankCandidate(h: SearchHit, query: string): Promise<RerankCandidate> {
    if (h.type === 'function' && h.name) return { name: h.name, path: h.filePath!, line: h.startLine ?? null, signature: h.signature ?? null };
    const base = h.filePath!.slice(h.filePath!.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '');
    const row = await this.store.file(h.repoId, h.filePath!);
    const near = nearQuestion(query);
    const names = [...new Set((row ? await this.store.symbols(row.id) : []).filter((s) => DEFINED.has(s.kind)).map((s) => (s.parent ? `${s.parent}.${s.name}` : s.name)))];
    const listed = [...names.filter(near), ...names.filter((n) => !near(n))].slice(0, 8);
    return { name: base, path: h.filePath!, line: h.startLine ?? null, signature: null, defines: listed };
  }

  /** The prompt for expansion: the question and the repository's names, those sharing a word with the question first. */
  async expansionPrompt(question: string, repoIds: string[]): Promise<{ messages: ChatMessage[]; names: Set<string> }> {
    const max = this.config.maxSymbols ?? 400;
    const all = await this.store.symbolNames(repoIds, 20_000);
    const near = nearQuestion(question);
    const distinct = [...new Set(all)];
    const listed = [...distinct.filter(near), ...distinct.filter((n) => !near(n))].slice(0, max);
    return {
      messages: [
        { role: 'system', content: EXPAND_INSTRUCTIONS },
        { role: 'user', content: `Question: ${question}\n\nIdentifiers:\n${listed.join('\n')}` },
      ],
      names: new Set(listed),
    };
  }

  /** Likely identifiers for the question, from the repository's own names; null when the model could not help. */
  async expand(question: string, repoIds: string[], signal?: AbortSignal): Promise<(AssistCall & { identifiers: string[] }) | null> {
    const { messages, names } = await this.expansionPrompt(question, repoIds);
    const reply = await this.call(messages, signal);
    if (!reply) return null;
    const identifiers: string[] = [];
    for (const token of reply.text.match(/[A-Za-z_$#][\w$]*(?:\.[A-Za-z_$#][\w$]*)*/g) ?? []) {
      const name = names.has(token) ? token : token.split('.').pop()!;
      if (names.has(name) && !identifiers.includes(name)) identifiers.push(name);
      if (identifiers.length >= 8) break;
    }
    return { ...reply.call, identifiers };
  }

  /** The candidates' order, best first (indices into `candidates`, every one once); null when the model could not help. */
  async rerank(question: string, candidates: RerankCandidate[], signal?: AbortSignal): Promise<(AssistCall & { order: number[] }) | null> {
    const top = candidates.slice(0, this.config.rerankTop ?? 10);
    if (top.length < 2) return null;
    const lines = top.map((c, i) => {
      const doc = c.doc ? ` — ${c.doc.replace(/\s+/g, ' ').trim().slice(0, 160)}` : '';
      const sig = c.signature ? ` \`${c.signature.replace(/\s+/g, ' ').trim().slice(0, 160)}\`` : '';
      const defines = c.defines?.length ? ` — defines ${c.defines.join(', ')}` : '';
      return `${i + 1}. ${c.name} ${c.path}${c.line != null ? `:${c.line}` : ''}${sig}${doc}${defines}`;
    });
    const reply = await this.call([
      { role: 'system', content: RERANK_INSTRUCTIONS },
      { role: 'user', content: `Question: ${question}\n\nLocations:\n${lines.join('\n')}` },
    ], signal);
    if (!reply) return null;
    const order: number[] = [];
    for (const m of reply.text.match(/\d+/g) ?? []) {
      const i = Number(m) - 1;
      if (i >= 0 && i < top.length && !order.includes(i)) order.push(i);
    }
    for (let i = 0; i < candidates.length; i++) if (!order.includes(i)) order.push(i);
    return { ...reply.call, order };
  }

  /** One non-streamed answer of the configured model, or null (logged) when it fails, times out or is not a language model. */
  private async call(messages: ChatMessage[], signal?: AbortSignal): Promise<{ text: string; call: AssistCall } | null> {
    const timeout = AbortSignal.timeout(this.config.timeoutMs ?? 10_000);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const { info, provider } = await this.models.resolve(this.config.model);
      if (info.kind !== 'llm') {
        this.log.warn(`retrieval assist: ${info.id} is not a language model; retrieval goes on without it`);
        return null;
      }
      let text = '';
      let usage: ChatUsage | null = null;
      const context = { question: '', files: [], edges: [] };
      for await (const event of provider.chat({ model: info.id, messages, context, maxOutputTokens: 200, signal: combined })) {
        if (event.type === 'text') text += event.text; else usage = event.usage;
      }
      usage ??= { inputTokens: Math.ceil(messages.reduce((n, m) => n + m.content.length, 0) / 4), outputTokens: Math.ceil(text.length / 4), estimated: true };
      const credits = info.creditsPer1kTokens > 0 ? Math.ceil(((usage.inputTokens + usage.outputTokens) / 1000) * info.creditsPer1kTokens) : 0;
      return { text, call: { model: info.id, usage, credits } };
    } catch (error) {
      if (signal?.aborted) throw error;
      this.log.warn(`retrieval assist with ${this.config.model} failed, retrieval goes on without it: ${(error as Error).message}`);
      return null;
    }
  }
}
