import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { findOperation, listOperations, type OpenApiDocument, type Operation } from '../common/openapi-operations';
import { invokeOperation, type OperationOutput } from '../common/invoke';
import { radiusText, reposText, searchText, sourcesText } from './format';

// JSON of no fixed schema (the API answers and tool arguments), walked field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Json = Record<string, any>;

export interface McpOptions {
  /** The caller's credential headers (X-API-Key or Authorization), sent with every operation. */
  auth: Record<string, string>;
  /** The repository a tool uses when none is named (stdio: the folder it serves). */
  defaultRepo?: string;
  version: string;
}

/** The API's operations, read once from the generated OpenAPI document (as the A2A binding does). */
const catalogs = new WeakMap<FastifyInstance, Operation[]>();
function operationsOf(app: FastifyInstance): Operation[] {
  let ops = catalogs.get(app);
  if (!ops) {
    ops = listOperations((app as unknown as { swagger(): OpenApiDocument }).swagger());
    catalogs.set(app, ops);
  }
  return ops;
}

class OperationFailed extends Error {}

// Input schemas are built once: a zod schema costs about 1 ms to build, and a server is built per HTTP request.
const repoArg = z.string().min(1).optional().describe('Repository id, URL or folder path; default: the only one');
const INPUT = {
  search: {
    query: z.string().min(2).max(1000).describe('Words, identifiers, or /regex/flags for grep'),
    mode: z.enum(['semantic', 'grep_code', 'grep_docs']).optional(),
    repo: repoArg.describe('Repository id, URL or folder path; default: all yours'),
    limit: z.number().int().min(1).max(1000).optional().describe('Hits per kind (semantic: default 10; grep modes: every matching line, up to 1000 per page)'),
    offset: z.number().int().min(0).max(10000).optional().describe('Hits of each kind to skip: the next page'),
  },
  research: {
    question: z.string().min(2).max(1000),
    conversation_id: z.string().uuid().optional().describe('From a previous answer, to continue it'),
  },
  blastRadius: {
    files: z.array(z.string().min(1).max(1024)).max(200).optional().describe('Paths relative to the repository root; `path#Symbol` narrows to one export'),
    uncommitted: z.boolean().optional().describe('true: use the working tree changes against HEAD (staged, unstaged, untracked)'),
    repo: repoArg,
  },
  blueprint: { repo: repoArg },
  fileDocs: { path: z.string().min(1).max(1024).describe('Path relative to the repository root'), repo: repoArg },
  scope: {
    name: z.string().min(1).max(300).optional().describe('Filter by name; with expand, the exact name'),
    include: z.array(z.enum(['dependencies', 'functions', 'variables'])).max(3).optional(),
    expand: z.enum(['files', 'functions']).optional(),
    repo: repoArg,
  },
};

/**
 * An MCP server whose tools and resources run the HTTP operations through `inject`, exactly as
 * the A2A binding does: validation, authentication, credits and history are the route's own.
 * Tools are task-shaped (search, research, blast radius, blueprint, file docs, scope, repos)
 * with short descriptions: an agent pays for them in every prompt.
 */
export function createMcpServer(app: FastifyInstance, options: McpOptions): McpServer {
  const server = new McpServer({ name: 'loupe', version: options.version }, {
    instructions: 'Loupe answers questions about the indexed repositories: code search, grounded research, blast radius of a change, repository overviews and per-file docs.',
  });

  const call = async (key: string, input: { pathParams?: Json; query?: Json; headers?: Json; body?: unknown }, signal?: AbortSignal): Promise<OperationOutput> => {
    const operation = findOperation(operationsOf(app), key);
    if (!operation) throw new Error(`the API has no operation ${key}`);
    return invokeOperation(app, { operation, ...input, auth: options.auth }, signal);
  };
  /** The JSON body's `data` of a 2xx answer, or the operation's error as a failed tool call. */
  const data = async (key: string, input: Parameters<typeof call>[1], signal?: AbortSignal): Promise<Json[keyof Json]> => {
    const out = await call(key, input, signal);
    const body = out.body as Json | undefined;
    if (out.status >= 400) throw new OperationFailed(`${key} failed with ${out.status}: ${typeof body?.message === 'string' ? body.message : 'error'}${body?.code ? ` (${body.code})` : ''}`);
    return body?.data;
  };
  /** The repository a call names, or the default one, or the caller's only repository. */
  const repoOf = async (repo: string | undefined, signal?: AbortSignal): Promise<string> => {
    if (repo) return repo;
    if (options.defaultRepo) return options.defaultRepo;
    const repos = (await data('GET /v2/repos', { query: { limit: 2 } }, signal)) as Json[];
    if (repos.length === 1) return repos[0].repo_id as string;
    throw new OperationFailed(repos.length ? 'name the repository (`repo`): you have several; the repos tool lists them' : 'no indexed repositories yet');
  };
  const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });
  const run = (fn: (signal: AbortSignal, extra: Json) => Promise<CallToolResult>) => async (extra: Json): Promise<CallToolResult> => {
    try {
      return await fn(extra.signal as AbortSignal, extra);
    } catch (error) {
      if (error instanceof OperationFailed) return { isError: true, content: [{ type: 'text', text: error.message }] };
      throw error;
    }
  };
  const readOnly = { readOnlyHint: true, openWorldHint: false };

  server.registerTool('search', {
    description: 'Find code by meaning (semantic), by regex/literal over code (grep_code) or over file docs (grep_docs). Returns file:line hits with snippets.',
    inputSchema: INPUT.search,
    annotations: readOnly,
  }, async (args, extra) => run(async (signal) => {
    const repo = args.repo ?? options.defaultRepo;
    const scope = repo ? (/^[0-9a-f-]{36}$/i.test(repo) ? { repo_ids: [repo] } : { repo_urls: [repo] }) : {};
    // grep: the API's own page (every matching line up to 1,000), so "every use of X" is every use.
    const limit = args.limit ?? (args.mode === 'grep_code' || args.mode === 'grep_docs' ? undefined : 10);
    const body = { query: args.query, scan_mode: args.mode, ...(limit ? { limit } : {}), ...(args.offset ? { offset: args.offset } : {}), ...scope };
    return text(searchText(await data('POST /v2/search', { body }, signal)));
  })(extra));

  server.registerTool('research', {
    description: 'Answer a question about your code from the indexed sources, with citations. The answer streams as progress notifications. Pass conversation_id to follow up.',
    inputSchema: INPUT.research,
    annotations: { openWorldHint: false },
  }, async (args, extra) => run(async (signal) => {
    const out = await call('POST /v2/search', {
      headers: { accept: 'application/x-ndjson' },
      body: { query: args.question, chat: true, ...(args.conversation_id ? { conversation_id: args.conversation_id } : {}), ...(options.defaultRepo ? { repo_urls: [options.defaultRepo] } : {}) },
    }, signal);
    if (!out.lines) {
      const body = out.body as Json | undefined;
      throw new OperationFailed(`research failed with ${out.status}: ${body?.message ?? 'error'}`);
    }
    const token = extra._meta?.progressToken;
    let answer = '';
    let done: Json | undefined;
    let failed: Json | undefined;
    let progress = 0;
    for await (const line of out.lines) {
      let event: Json;
      try { event = JSON.parse(line) as Json; } catch { continue; }
      if (event.type === 'chunk' && typeof event.text === 'string') {
        answer += event.text;
        if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message: event.text } });
      } else if (event.type === 'done') done = event;
      else if (event.type === 'error') failed = event;
    }
    if (!done) throw new OperationFailed(`research failed: ${failed?.message ?? 'the answer stopped before it was complete'}`);
    const sources = Array.isArray(done.context_files) && done.context_files.length ? `\n\nSources:\n${sourcesText(done.context_files)}` : '';
    return text(`${answer}${sources}\n\nconversation_id: ${done.conversation_id ?? 'none'}`);
  })(extra));

  server.registerTool('blast_radius', {
    description: 'What depends on these files (or on the uncommitted git changes): every dependent file with depth, entry points and tests reached, and a risk level.',
    inputSchema: INPUT.blastRadius,
    annotations: readOnly,
  }, async (args, extra) => run(async (signal) => {
    if (!args.files?.length && !args.uncommitted) throw new OperationFailed('give files, or uncommitted: true');
    const repo = await repoOf(args.repo, signal);
    const body = args.files?.length ? { files: args.files } : { uncommitted: true };
    const result = await data('POST /v2/repos/{repo_id}/radius', { pathParams: { repo_id: repo }, body: { ...body, include: ['dependents', 'entry_points'], limit: 50 } }, signal);
    return text(radiusText(result));
  })(extra));

  server.registerTool('blueprint', {
    description: 'Overview of a repository: what it does, README, dependencies, main symbols and layout (Markdown).',
    inputSchema: INPUT.blueprint,
    annotations: readOnly,
  }, async (args, extra) => run(async (signal) => {
    const repo = await repoOf(args.repo, signal);
    return text((await data('GET /v2/repos/{repo_id}/blueprint', { pathParams: { repo_id: repo } }, signal)).documentation);
  })(extra));

  server.registerTool('file_docs', {
    description: 'Documentation of one file: purpose, exports, imports, dependents, tests and risks (Markdown).',
    inputSchema: INPUT.fileDocs,
    annotations: readOnly,
  }, async (args, extra) => run(async (signal) => text(await fileDocs(await repoOf(args.repo, signal), args.path, signal)))(extra));

  server.registerTool('scope', {
    description: 'Dependencies, functions and variables of a repository by name and usage; with name + expand, the files or functions that use it.',
    inputSchema: INPUT.scope,
    annotations: readOnly,
  }, async (args, extra) => run(async (signal) => {
    const repo = await repoOf(args.repo, signal);
    const body = { name: args.name, include: args.include, expand: args.expand, limit: 30 };
    return text(JSON.stringify(await data('POST /v2/repos/{repo_id}/scope', { pathParams: { repo_id: repo }, body }, signal)));
  })(extra));

  server.registerTool('repos', {
    description: 'Your indexed repositories: name, id, state, file counts.',
    annotations: readOnly,
  }, async (extra) => run(async (signal) => text(reposText(await data('GET /v2/repos', { query: { limit: 100 } }, signal))))(extra));

  const fileDocs = async (repo: string, path: string, signal?: AbortSignal): Promise<string> => {
    const doc = await data('GET /v2/files/{repo_id}/{file_id}', { pathParams: { repo_id: repo, file_id: path } }, signal);
    return doc?.documentation ?? `The documentation of ${path} is being generated; ask again in a few seconds.`;
  };
  const listRepos = async () => ((await data('GET /v2/repos', { query: { limit: 100 } })) as Json[]);

  server.registerResource('blueprint', new ResourceTemplate('loupe://repos/{repo}/blueprint', {
    list: async () => ({ resources: (await listRepos()).map((r) => ({ uri: `loupe://repos/${r.repo_id}/blueprint`, name: `${r.name} blueprint`, mimeType: 'text/markdown' })) }),
  }), { description: 'A repository overview (Markdown)', mimeType: 'text/markdown' }, async (uri, { repo }) => ({
    contents: [{ uri: uri.href, mimeType: 'text/markdown', text: (await data('GET /v2/repos/{repo_id}/blueprint', { pathParams: { repo_id: String(repo) } })).documentation }],
  }));
  server.registerResource('file-docs', new ResourceTemplate('loupe://repos/{repo}/files/{path}', { list: undefined }),
    { description: 'Documentation of one file (Markdown); path percent-encoded', mimeType: 'text/markdown' },
    async (uri, { repo, path }) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: await fileDocs(String(repo), decodeURIComponent(String(path))) }] }));
  return server;
}
