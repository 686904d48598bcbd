import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Message, Task, TaskQueryParams } from '@a2a-js/sdk';
import { DefaultRequestHandler, type ServerCallContext } from '@a2a-js/sdk/server';
import type { Engine } from '../../engine/engine';
import type { Logger } from '../../engine/log';
import { buildAgentCard } from './agent-card';
import { OperationExecutor } from './executor';
import { listOperations, type OpenApiDocument, type Operation } from './operations';
import { A2aUser, SqliteTaskStore } from './task-store';
import { sendEventStream } from './sse';
import { headerKey } from './executor';

type Json = Record<string, any>;

/** The SDK's handler, with historyLength 0 meaning no history (0.3.14 slices `-0`, i.e. keeps it all). */
class RequestHandler extends DefaultRequestHandler {
  override async getTask(params: TaskQueryParams, context?: ServerCallContext): Promise<Task> {
    const task = await super.getTask(params, context);
    if (params.historyLength === 0) task.history = [];
    return task;
  }
}

/**
 * What the JSON-RPC and HTTP+JSON routes share: one SDK request handler over the SQLite task
 * store and the operation executor, the operation catalog (read from /openapi.json once routes
 * are ready), and the caller's identity.
 */
export class A2aBinding {
  readonly requestHandler: DefaultRequestHandler;
  readonly log: Logger;
  private catalog?: Operation[];

  constructor(private readonly app: FastifyInstance, private readonly engine: Engine, private readonly publicUrl?: string) {
    this.log = engine.log;
    const executor = new OperationExecutor(app, () => this.operations(), engine.log);
    // The card passed here only steers the SDK (capabilities); the served card is built per request.
    this.requestHandler = new RequestHandler(buildAgentCard({}, [], 'http://127.0.0.1'), new SqliteTaskStore(engine.a2aTasks), executor);
    this.settleInterrupted();
  }

  /**
   * A task that was submitted or working when the process stopped will never finish: its
   * operation ran in that process. It is failed now, so tasks/get tells the truth after a restart.
   */
  private settleInterrupted(): void {
    for (const row of this.engine.a2aTasks.inStates(['submitted', 'working'])) {
      const task = JSON.parse(row.json) as Task;
      const message: Message = {
        kind: 'message', role: 'agent', messageId: randomUUID(), taskId: task.id, contextId: task.contextId,
        parts: [{ kind: 'text', text: 'The server stopped before this operation finished; send the message again.' }],
      };
      task.status = { state: 'failed', message, timestamp: new Date().toISOString() };
      task.history = [...(task.history ?? []), message];
      this.engine.a2aTasks.save({ id: task.id, ownerUserId: row.ownerUserId, contextId: task.contextId, state: 'failed', json: JSON.stringify(task) });
    }
  }

  /** The API's operations; the route table is fixed once the app is ready, so it is read once. */
  operations(): Operation[] {
    this.catalog ??= listOperations(this.openapi());
    return this.catalog;
  }

  openapi(): OpenApiDocument {
    return (this.app as unknown as { swagger(): OpenApiDocument }).swagger();
  }

  card(requestBaseUrl: string) {
    return buildAgentCard(this.openapi(), this.operations(), this.publicUrl ?? requestBaseUrl);
  }

  /**
   * The caller: X-API-Key in the data part's headers, else `metadata.apiKey` of the message or of
   * the params, else the X-API-Key HTTP header (the same order the executor uses for the operation). A missing or unusable key is an
   * anonymous caller; the operations it runs then fail as 401 would over HTTP.
   */
  identify(header: string | string[] | undefined, params: unknown): A2aUser {
    const p = (params ?? {}) as Json;
    const metaKey = (o: Json | undefined) => (typeof o?.metadata?.apiKey === 'string' ? o.metadata.apiKey as string : undefined);
    const parts = Array.isArray(p.message?.parts) ? p.message.parts as Json[] : [];
    const dataKey = parts.map((part) => (part?.kind === 'data' ? headerKey(part.data) : undefined)).find(Boolean);
    const key = dataKey ?? metaKey(p.message) ?? metaKey(p) ?? (typeof header === 'string' ? header : undefined);
    if (!key) return new A2aUser(null, undefined);
    try {
      return new A2aUser(this.engine.accounts.authenticate(key), key);
    } catch {
      return new A2aUser(null, key);
    }
  }

  /**
   * Removes the key from what the SDK stores and echoes (task history): keys are kept only as
   * hashes. The caller already carries it for the operation.
   */
  redactKeys(params: unknown): void {
    const p = params as Json | undefined;
    if (p?.metadata && typeof p.metadata === 'object') delete p.metadata.apiKey;
    if (p?.message?.metadata && typeof p.message.metadata === 'object') delete p.message.metadata.apiKey;
    for (const part of Array.isArray(p?.message?.parts) ? p.message.parts as Json[] : []) {
      const headers = part?.kind === 'data' ? part.data?.headers : undefined;
      if (!headers || typeof headers !== 'object') continue;
      for (const name of Object.keys(headers)) if (name.toLowerCase() === 'x-api-key') delete headers[name];
    }
  }

  stream<T>(reply: FastifyReply, events: AsyncGenerator<T, void, undefined>, format: (event: T) => unknown,
    onFirstError: (error: unknown) => { status: number; body: unknown } | { event?: string; body: unknown }, onLaterError: (error: unknown) => { event?: string; body: unknown }) {
    return sendEventStream(reply, events, format, onFirstError, onLaterError);
  }
}
