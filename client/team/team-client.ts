/**
 * The extension's HTTP client for a team server (`npm run serve`: the same V2 API as the sidecar), over undici.
 * No `vscode` here: the key and the URL are handed in, and every failure becomes one sentence the panel can show
 * ("cannot reach …", "refused the API key …"), tested against real HTTP servers (test/client/team-client.test.ts).
 */
import { Agent, request } from 'undici';
import type { SearchHit as ApiSearchHit } from '../../protocol/api/search';
import type { FileContent } from '../../protocol/api/files';
import type { SearchParams, SearchResult } from '../../protocol/lsp';
import type { HitSource } from '../../protocol/webview';
import { teamHit, teamSource } from './merge';

/** Hits per kind asked of the team server: what the language server asks of the local index for the panel. */
const PANEL_LIMIT = 50;

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

  async close(): Promise<void> {
    await this.agent.close().catch(() => {});
  }

  private async call<T>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> {
    const prefix = this.base.pathname.replace(/\/+$/, '');
    const url = new URL(`${this.base.origin}${prefix}${route}`);
    const where = `the team server at ${this.base.origin}${prefix}`;
    let res;
    try {
      res = await request(url, {
        method, dispatcher: this.agent,
        headers: {
          accept: 'application/json',
          ...(this.key ? { 'x-api-key': this.key } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new TeamServerError(`cannot reach ${where}: ${reason(error as Error & { code?: string }, this.timeoutMs)}`);
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (error) {
      throw new TeamServerError(`${where} stopped answering: ${reason(error as Error & { code?: string }, this.timeoutMs)}`);
    }
    type Body = { status?: string; data?: T; message?: string; code?: string };
    const json = parseJson(text) as Body | null;
    if (res.statusCode === 401) {
      throw new TeamServerError(this.key
        ? `${where} refused the API key (401): ${SET_KEY} with a key of that server`
        : `no API key for ${where}: ${SET_KEY}`);
    }
    if (!json || typeof json !== 'object' || (json.status !== 'success' && json.status !== 'error')) {
      throw new TeamServerError(`${url.origin}${url.pathname} did not answer as a Loupe team server (HTTP ${res.statusCode}${text ? `: ${text.slice(0, 80).replace(/\s+/g, ' ')}` : ''}): check loupe.server.url`);
    }
    if (res.statusCode >= 400 || json.status !== 'success') {
      throw new TeamServerError(`${where} answered ${res.statusCode}${json.code ? ` ${json.code}` : ''}: ${json.message ?? 'an error'}`);
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
