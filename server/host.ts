/**
 * The one composition root. It builds the engine from one `HostSettings` object, makes sure the
 * machine's owner has a key, and mounts the transports: the HTTP API with A2A and MCP beside it, on a
 * local port, or MCP alone over stdio. `cli.ts` (headless), `mcp-cli.ts` (MCP over stdio) and
 * `main.ts` (the language server) all start here; the LSP binding
 * receives the host through an interface it declares itself, so no arrow runs from a transport
 * back up to this file.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Engine } from './engine/engine';
import type { Logger } from './engine/log';
import type { Operations } from './engine/operations';
import { newId } from './engine/util/ids';
import { LoupeError } from './engine/errors';
import { readOwnerKeyFile, writeOwnerKeyFile } from './engine/accounts/owner-key-file';
import type { AppOptions } from './transport/http/app';
import type { A2aOptions } from './transport/a2a';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { HostSettings, HttpSettings } from './settings';

export interface Sidecar {
  /** The application; an on-demand sidecar has none until its first request. */
  app?: FastifyInstance;
  url: string;
  /** Builds an on-demand sidecar's application now rather than at its first request. */
  ready?(): Promise<void>;
  close(): Promise<void>;
}

/** The owner of this machine's index: their user id and the plaintext key scripts use. */
export interface Owner {
  userId: string;
  key: string;
}

export class Host {
  http: Sidecar | null = null;

  private constructor(
    readonly engine: Engine,
    public owner: Owner,
    private readonly settings: HostSettings,
  ) {}

  /** The engine's operations, what every transport calls. */
  get ops() {
    return this.engine.ops;
  }

  /**
   * Opens the index (migrating or rebuilding it as needed) and the owner's account. `ownerKeyLater`
   * (the editor, whose key comes from SecretStorage after initialize): without `settings.ownerKey` the
   * owner is made sure of without a key of theirs (`owner.key` is '' until `adoptOwnerKey`); no key
   * file is written and none is minted: on the very first start the owner has no key at all until
   * the editor's arrives (a key nobody holds would be a credential left lying about).
   */
  /** open(), where a LoupeError (a data dir that cannot be used, a port taken) is the command line's error (`fail`). */
  static async openOrFail(settings: HostSettings, log: Logger, fail: (message: string) => never): Promise<Host> {
    try {
      return await Host.open(settings, log);
    } catch (error) {
      if (error instanceof LoupeError) fail(error.message);
      throw error;
    }
  }

  /** The owner's folder registered; a LoupeError (a folder outside the allowed roots…) closes this host and is the command line's error. */
  async registerFolderOrFail(folder: string, fail: (message: string) => never) {
    try {
      return this.ops.indexing.registerFolder(this.owner.userId, folder);
    } catch (error) {
      if (!(error instanceof LoupeError)) throw error;
      await this.close();
      return fail(error.message);
    }
  }

  static async open(settings: HostSettings, log: Logger, options: { ownerKeyLater?: boolean } = {}): Promise<Host> {
    const engine = new Engine({ ...settings.engine, log });
    try {
      const owner = options.ownerKeyLater && !settings.ownerKey
        ? { userId: (await engine.ops.owner.ensure(undefined, { keyLater: true })).userId, key: '' }
        : await ensureOwnerKey(engine, settings.ownerKey);
      return new Host(engine, owner, settings);
    } catch (error) {
      await engine.close();
      throw error;
    }
  }

  /** The owner's key, arrived after open (`ownerKeyLater`): made an active key of the owner's. */
  async adoptOwnerKey(key: string): Promise<void> {
    const { userId } = await this.engine.ops.owner.ensure(key);
    this.owner = { userId, key: key.toLowerCase() };
  }

  /**
   * Serves HTTP and A2A on the configured address; null when HTTP is turned off. A taken port
   * rejects with EADDRINUSE before anything else has started. `onDemand` (the editor's sidecar): the
   * port is bound now, the application built on the first request (startSidecarOnDemand).
   */
  async listen(options: { onDemand?: boolean } = {}): Promise<Sidecar | null> {
    if (!this.settings.http) return null;
    this.http ??= await (options.onDemand ? startSidecarOnDemand : startSidecar)(this.engine, this.settings.http);
    return this.http;
  }

  /**
   * An MCP server for one client over stdio (`server/mcp-cli.ts`): the HTTP application without a
   * socket, whose tools run the operations through inject as the owner, `folder` their default
   * repository. The SDK loads here, not on every start. The caller connects it to its transport.
   */
  async mcpServer(folder: string): Promise<{ server: McpServer; close(): Promise<void> }> {
    const app = await createHttpApp(this.engine);
    await app.ready();
    const [{ createMcpServer }, { MCP_VERSION }] = await Promise.all([import('./transport/mcp/server'), import('./transport/mcp')]);
    const server = createMcpServer(app, { auth: { 'x-api-key': this.owner.key }, defaultRepo: folder, version: MCP_VERSION });
    return { server, close: async () => { await server.close().catch(() => {}); await app.close(); } };
  }

  async close(): Promise<void> {
    await this.http?.close().catch(() => {});
    this.http = null;
    await this.engine.close();
  }
}

/** What the transports need of an engine: its operations and its logger. */
export interface EngineSurface {
  ops: Operations;
  log: Logger;
}

export interface HttpAppOptions extends AppOptions {
  /** A2A task retention and message limits (tests shorten them). */
  a2a?: Omit<A2aOptions, 'publicUrl'>;
}

/** The HTTP application with A2A and MCP mounted beside the API (no listen): tests inject() into it. */
export async function createHttpApp(engine: EngineSurface, options: HttpAppOptions = {}): Promise<FastifyInstance> {
  const [{ createApp }, { a2aRoutes }, { mcpRoutes }] = await Promise.all([import('./transport/http/app'), import('./transport/a2a'), import('./transport/mcp')]);
  const app = await createApp(engine.ops, engine.log, options);
  // After the API routes: the A2A binding reads them (from the OpenAPI document) as its operations.
  await a2aRoutes(app, engine.ops, engine.log, { ...options.a2a, publicUrl: options.publicUrl });
  // MCP at /mcp beside A2A: its tools run the same operations through inject.
  await app.register(async (scope) => mcpRoutes(scope, engine.ops));
  return app;
}

/** Listens with the HTTP application on the given address (127.0.0.1 unless told otherwise). */
export async function startSidecar(engine: EngineSurface, options: HttpSettings): Promise<Sidecar> {
  const app = await createHttpApp(engine, { publicUrl: options.publicUrl, guard: { ...options.guard, boundHost: options.host } });
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    await app.close();
    throw error;
  }
  warmSchemas(app, engine);
  const url = urlOf(app.server, options);
  await warmRequestPath(url, engine.log);
  return { app, url, close: () => app.close() };
}

/** The address a listening server answers at (an IPv6 host in brackets; the port it was given when port 0 was asked). */
function urlOf(server: http.Server, options: HttpSettings): string {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return `http://${host}:${port}`;
}

/**
 * One request through the whole stack, over the socket, before the address is given out: Node's HTTP
 * server, the guard, Fastify's routing and hooks, the key's lookup (its statement compiled), an error
 * answer written. Each of those runs for the first time at a caller's first request otherwise, and V8
 * compiles it then: a first `GET /v2/repos` on an idle server took 19–25 ms against 3–5 ms for the next
 * ones, 10–13 ms after this (`bench/first-request.ts`), and at the start of a cold index that first call
 * was the largest wait (issue 17). It carries a key nobody holds (a fresh random UUID), so it is answered
 * 401 after the lookup: nothing is charged, nothing written, no key's last use moved.
 */
async function warmRequestPath(url: string, log: Logger): Promise<void> {
  const started = performance.now();
  const status = await new Promise<string>((resolve) => {
    const request = http.get(`${url}/v2/repos?limit=5`, { agent: false, timeout: 5_000, headers: { 'x-api-key': newId() } }, (response) => {
      response.resume();
      response.on('end', () => resolve(String(response.statusCode)));
      response.on('error', (error) => resolve(error.message));
    });
    request.on('timeout', () => request.destroy(new Error('no answer in 5 s')));
    request.on('error', (error) => resolve(error.message));
  });
  log.debug(`the request path was warmed: ${status} in ${(performance.now() - started).toFixed(1)} ms`);
}

/**
 * What a caller polls while an index is built (a script or an agent waiting for `ready`): their
 * schemas are compiled as soon as the application is built, ~10–25 ms, so that their first request does not pay for
 * it while the cold index keeps both cores busy (issue 17: that first request was the largest wait of a
 * cold index, 57–68 ms against ≤ 33 ms for every later one).
 */
const STATUS_ROUTES = ['GET /v2/repos', 'POST /v2/repos/status'] as const;

/**
 * The route schemas no request has needed yet, compiled in the background (LazySchemas.warm) once no index
 * run is queued or running: compiling them beside a restart's catch-up run made it ~0.1 s later on payload.
 * A failure is the route's to report.
 */
function warmSchemas(app: FastifyInstance, engine: EngineSurface): void {
  // Now, before the CLI prints its address: compiled on the next turn instead, they made the first poll after
  // that line wait for them (first call during a cold index of phaser ×4: median 58 ms against 28).
  for (const f of app.compileSchemasNow(STATUS_ROUTES).failed) engine.log.warn(`route schema not compiled: ${f}`);
  engine.ops.indexing.idle().then(() => app.warmSchemas()).then(({ failed }) => {
    for (const f of failed) engine.log.warn(`route schema not compiled: ${f}`);
  }, () => {});
}

/**
 * The editor's sidecar: the port is bound at once (a taken port rejects, as startSidecar's does, and the
 * status shows the URL), but the HTTP application (Fastify, OpenAPI, A2A, MCP: dist/vendor.js and about a
 * second of the server's thread on a quiet machine, many on a busy one) is built when the first request
 * arrives, so an editor nobody calls the API of never pays for it. Requests that arrive while it is
 * built wait for it. The server has the application's own limits from the start (header size, timeouts,
 * Node's refusals answered in the error shape: guard.ts); Host, Origin and the rest are the
 * application's hooks, which every request passes through.
 */
export async function startSidecarOnDemand(engine: EngineSurface, options: HttpSettings): Promise<Sidecar> {
  const guard = { ...options.guard, boundHost: options.host };
  const { serverLimits } = await import('./transport/http/guard');
  const limits = serverLimits(guard);
  const server = http.createServer(limits.http ?? {});
  // As Fastify sets them on a server it makes itself.
  server.requestTimeout = limits.requestTimeout ?? server.requestTimeout;
  server.keepAliveTimeout = 72_000;
  const clientError = limits.clientErrorHandler as (error: Error, socket: Socket) => void;
  server.on('clientError', clientError);
  let handle: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | null = null;
  let app: FastifyInstance | null = null;
  let building: Promise<FastifyInstance> | null = null;
  const build = () => (building ??= (async () => {
    const built = await createHttpApp(engine, { publicUrl: options.publicUrl, guard, serverFactory: (handler) => {
      handle = handler as typeof handle;
      return server;
    } });
    await built.ready();
    server.off('clientError', clientError); // the application's own handler (the same function) took over
    app = built;
    warmSchemas(built, engine);
    return built;
  })());
  server.on('request', (req, res) => {
    if (app) return handle!(req, res);
    build().then(() => handle!(req, res), (error: Error) => {
      engine.log.error('the HTTP sidecar could not be built:', error);
      building = null; // the next request tries again
      res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      res.end(JSON.stringify({ status: 'error', code: 'SERVICE_UNAVAILABLE', message: 'the HTTP API could not start; see the Loupe log' }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.host, port: options.port }, () => { server.off('error', reject); resolve(); });
  });
  const url = urlOf(server, options);
  let warmed: Promise<void> | null = null;
  return {
    get app() { return app ?? undefined; },
    url,
    // The CLI's start (nothing waits on it yet): the request path is warmed before its address is printed.
    ready: async () => {
      await build();
      await (warmed ??= warmRequestPath(url, engine.log));
    },
    async close() {
      await building?.catch(() => null);
      // Fastify does not close a server it was handed before it listened: closed here, with its connections.
      await app?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The owner's key: the one given (LOUPE_API_KEY, or the editor's stored key) when set, otherwise
 * the one created on first start. The database keeps only its hash; the plaintext is kept for the
 * owner in DATA_DIR/owner-key (mode 0600) so that each start can show it again, as local servers
 * such as Jupyter do with their tokens. If that file was removed, a fresh key is minted rather than
 * leave the owner locked out.
 */
async function ensureOwnerKey(engine: Engine, seed: string | undefined): Promise<Owner> {
  const { userId, createdKey } = await engine.ops.owner.ensure(seed);
  if (seed) return { userId, key: seed.toLowerCase() };
  if (createdKey) {
    writeOwnerKeyFile(engine.dataDir, createdKey);
    return { userId, key: createdKey };
  }
  let key = readOwnerKeyFile(engine.dataDir);
  if (!key) {
    // The key file was removed: mint a fresh owner key rather than leave the owner locked out.
    key = newId();
    await engine.ops.owner.addKey(userId, key);
    writeOwnerKeyFile(engine.dataDir, key);
  }
  return { userId, key };
}
