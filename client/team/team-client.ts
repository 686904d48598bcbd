/**
 * The extension's HTTP client for a team server (`npm run serve`: the same V2 API as the sidecar), over undici.
 * No `vscode` here: the key and the URL are handed in, and every failure becomes one sentence the panel can show
 * ("cannot reach …", "refused the API key …"), tested against real HTTP servers (test/client/team-client.test.ts).
 */
import { Agent, request, type Dispatcher } from 'undici';
import type { SearchHit as ApiSearchHit } from '../../protocol/api/search';
import type { FileContent } from '../../protocol/api/files';
import type { ResearchEvent } from '../../protocol/api/research';
import type { SearchParams, SearchResult } from '../../protocol/lsp';
import type { HitSource } from '../../protocol/webview';
import { teamHit, teamSource } from './merge';

/** Hits per kind asked of the team server: what the language server asks of the local index for the panel. */
const PANEL_LIMIT = 50;
/** Hits per kind research grounds on: what the language server asks of the local index (panel-search.ts). */
const RESEARCH_LIMIT = 50;
/** Longest pause between two lines of a research answer (a chat model may think a while between pieces). */
const RESEARCH_IDLE_MS = 120_000;

/** A research question for the team server: its repositories, its default model unless one is named. */
export interface TeamResearchRequest { question: string; conversationId?: string; model?: string }

export class TeamServerError extends Error {}

const SET_KEY = 'run "Loupe: Set Team Server API Key"';

export class TeamClient {
  readonly source: HitSource;
  private readonly agent: Agent;

  /** `timeoutMs`: to connect and for the answer's headers (a search on a big index answers well within it). */
  constructor(readonly base: URL, private readonly key: string | undefined, private readonly timeoutMs = 15_000) {
    this.source = teamSource(base);
    this.agent = new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 10_000 });
  }

  get host(): string {
    return this.base.host;
  }

  /** `POST /v2/search` on the team server: every repository the key may read, unless the panel named some. */
  async search(params: SearchParams): Promise<SearchResult> {
    const { activeUri: _activeUri, ...body } = params;
    const started = Date.now();
    const answer = await this.call<{ results: ApiSearchHit[]; total: number; search?: { warnings?: string[]; timings?: { totalMs?: number } } }>(
      'POST', '/v2/search', { ...body, limit: body.limit ?? PANEL_LIMIT },
    );
    if (!Array.isArray(answer.results)) throw new TeamServerError(`${this.base.href} answered a search without results: is it a Loupe team server?`);
    return {
      hits: answer.results.map((h) => teamHit(h, this.source)),
      total: answer.total ?? answer.results.length,
      tookMs: Math.round(answer.search?.timings?.totalMs ?? Date.now() - started),
      warnings: answer.search?.warnings ?? [],
    };
  }

  /** `GET /v2/files/{repo}/{path}/content`: a file's text as the team server indexed it. */
  fileContent(repoId: string, filePath: string): Promise<FileContent> {
    return this.call<FileContent>('GET', `/v2/files/${encodeURIComponent(repoId)}/${encodeURIComponent(filePath)}/content`);
  }

  /**
   * Research on the team server: `POST /v2/search` with `chat: true`, read as it streams (NDJSON, one event a
   * line: `search`, `chunk`…, `done`). A refusal before the stream (401, 402, 400) or an `error` line or a stream
   * that ends early is a `TeamServerError` with one sentence; an aborted `signal` ends it with an AbortError.
   */
  async *research(req: TeamResearchRequest, signal?: AbortSignal): AsyncGenerator<ResearchEvent> {
    const body = {
      query: req.question, scope: 'code', scan_mode: 'semantic', limit: RESEARCH_LIMIT, chat: true,
      ...(req.model ? { model: req.model } : {}), ...(req.conversationId ? { conversation_id: req.conversationId } : {}),
    };
    const { res, url, where } = await this.send('POST', '/v2/search', body, 'application/x-ndjson', signal, RESEARCH_IDLE_MS);
    const type = String(res.headers['content-type'] ?? '');
    if (res.statusCode !== 200 || !type.includes('application/x-ndjson')) {
      this.judge(res.statusCode, await this.text(res, where), url, where);
      throw new TeamServerError(`${url.origin}${url.pathname} did not answer a research question with a stream (HTTP ${res.statusCode}, ${type || 'no content type'}): is it a Loupe team server?`);
    }
    const decoder = new TextDecoder();
    let pending = '';
    let ended = false;
    const parse = (line: string): ResearchEvent => {
      const event = parseJson(line) as ResearchEvent | null;
      if (!event || typeof event !== 'object' || typeof event.type !== 'string') throw new TeamServerError(`${where} sent a research line that is not an event: ${line.slice(0, 80)}`);
      if (event.type === 'error') throw new TeamServerError(`${where} could not answer: ${event.message}${event.code ? ` (${event.code})` : ''}`);
      if (event.type === 'done') ended = true;
      return event;
    };
    try {
      for await (const piece of res.body) {
        pending += decoder.decode(piece as Buffer, { stream: true });
        let newline: number;
        while ((newline = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, newline).trim();
          pending = pending.slice(newline + 1);
          if (line) yield parse(line);
        }
      }
    } catch (error) {
      if (error instanceof TeamServerError || (error as Error).name === 'AbortError' || signal?.aborted) throw error;
      throw new TeamServerError(`${where} stopped answering: ${reason(error as Error & { code?: string }, RESEARCH_IDLE_MS)}`);
    } finally {
      if (!res.body.destroyed) res.body.destroy();
    }
    if (pending.trim()) yield parse(pending.trim());
    if (!ended) throw new TeamServerError(`${where} stopped before its answer was complete`);
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => {});
  }

  private async call<T>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> {
    const { res, url, where } = await this.send(method, route, body, 'application/json');
    return this.judge<T>(res.statusCode, await this.text(res, where), url, where);
  }

  private async send(method: 'GET' | 'POST', route: string, body: unknown, accept: string, signal?: AbortSignal, bodyTimeout?: number) {
    const prefix = this.base.pathname.replace(/\/+$/, '');
    const url = new URL(`${this.base.origin}${prefix}${route}`);
    const where = `the team server at ${this.base.origin}${prefix}`;
    try {
      const res = await request(url, {
        method, dispatcher: this.agent, signal, ...(bodyTimeout ? { bodyTimeout } : {}),
        headers: {
          accept,
          ...(this.key ? { 'x-api-key': this.key } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { res, url, where };
    } catch (error) {
      if ((error as Error).name === 'AbortError' || signal?.aborted) throw error;
      throw new TeamServerError(`cannot reach ${where}: ${reason(error as Error & { code?: string }, this.timeoutMs)}`);
    }
  }

  private async text(res: Dispatcher.ResponseData, where: string): Promise<string> {
    try {
      return await res.body.text();
    } catch (error) {
      throw new TeamServerError(`${where} stopped answering: ${reason(error as Error & { code?: string }, this.timeoutMs)}`);
    }
  }

  /** The API's envelope: its data, or the one sentence that says what went wrong. */
  private judge<T>(status: number, text: string, url: URL, where: string): T {
    type Body = { status?: string; data?: T; message?: string; code?: string };
    const json = parseJson(text) as Body | null;
    if (status === 401) {
      throw new TeamServerError(this.key
        ? `${where} refused the API key (401): ${SET_KEY} with a key of that server`
        : `no API key for ${where}: ${SET_KEY}`);
    }
    if (!json || typeof json !== 'object' || (json.status !== 'success' && json.status !== 'error')) {
      throw new TeamServerError(`${url.origin}${url.pathname} did not answer as a Loupe team server (HTTP ${status}${text ? `: ${text.slice(0, 80).replace(/\s+/g, ' ')}` : ''}): check loupe.server.url`);
    }
    if (status >= 400 || json.status !== 'success') {
      throw new TeamServerError(`${where} answered ${status}${json.code ? ` ${json.code}` : ''}: ${json.message ?? 'an error'}`);
    }
    return json.data as T;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null; // not JSON: the caller says so
  }
}

function reason(error: Error & { code?: string; cause?: unknown }, timeoutMs: number): string {
  const cause = (error.cause ?? error) as Error & { code?: string };
  const code = cause.code ?? error.code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return `no answer within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}`;
  if (code === 'ECONNREFUSED') return 'connection refused (is the server running, on that port?)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  return `${code ? `${code}: ` : ''}${cause.message || error.message}`;
}
