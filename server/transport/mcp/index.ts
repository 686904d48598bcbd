import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Operations } from '../../engine/operations';
import { LoupeError } from '../../engine/errors';
import { callerFor, credentialHeaders, credentialIn, unauthorized, WWW_AUTHENTICATE } from '../common/credentials';

/** The SDK and the tools load on the first MCP request: they cost start-up time to every sidecar that never sees one. */
const loadMcp = async () => {
  const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await Promise.all([
    import('./server'), import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]);
  return { createMcpServer, StreamableHTTPServerTransport };
};

export const MCP_PATH = '/mcp';
export const MCP_VERSION = '2.0.0';

/**
 * Only a call that asked for progress (research streams its answer that way) needs an SSE
 * response; every other call is answered as plain JSON, which costs the client less.
 */
function wantsProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => m && typeof m === 'object' && (m as { params?: { _meta?: { progressToken?: unknown } } }).params?._meta?.progressToken !== undefined);
}

/** A JSON-RPC error as the MCP transport itself answers them, with the HTTP status. */
function refuse(reply: FastifyReply, status: number, message: string, headers: Record<string, string> = {}) {
  return reply.code(status).headers(headers).send({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

/**
 * MCP over Streamable HTTP at /mcp, stateless: every POST gets a fresh server bound to the
 * caller's key (X-API-Key or Authorization: Bearer), whose tools run the HTTP operations through
 * inject. The guard (Host, Origin, limits) has run before, as for every route; a missing or
 * unusable key is a 401 with WWW-Authenticate. GET (a server-initiated stream) and DELETE (end a
 * session) have no meaning without sessions: 405.
 */
export async function mcpRoutes(app: FastifyInstance, ops: Operations): Promise<void> {
  app.post(MCP_PATH, { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
    const credential = credentialIn({ 'x-api-key': request.headers['x-api-key'], authorization: request.headers.authorization });
    if (!credential) return refuse(reply, 401, 'Unauthorized: send your key as the X-API-Key header or Authorization: Bearer <key>', { 'www-authenticate': WWW_AUTHENTICATE });
    try {
      await callerFor(ops.auth, credential);
    } catch (error) {
      const e = unauthorized(error);
      if (!(e instanceof LoupeError)) throw error;
      return refuse(reply, 401, `Unauthorized: ${e.message}`, { 'www-authenticate': WWW_AUTHENTICATE });
    }
    const { createMcpServer, StreamableHTTPServerTransport } = await loadMcp();
    const server = createMcpServer(app, { auth: credentialHeaders(credential), version: MCP_VERSION });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !wantsProgress(request.body) });
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  const notAllowed = async (_request: unknown, reply: FastifyReply) => refuse(reply.header('allow', 'POST'), 405, 'Method not allowed: this MCP server is stateless; POST JSON-RPC to /mcp');
  app.get(MCP_PATH, { schema: { hide: true }, config: { public: true } }, notAllowed);
  app.delete(MCP_PATH, { schema: { hide: true }, config: { public: true } }, notAllowed);
}
