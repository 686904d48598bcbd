import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Message, Task, TaskQueryParams } from '@a2a-js/sdk';
import { A2AError, DefaultRequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { Operations } from '../../engine/operations';
import type { Logger } from '../../engine/log';
import { buildAgentCard } from './agent-card';
import { OperationExecutor } from './executor';
import { listOperations, type OpenApiDocument, type Operation } from '../common/openapi-operations';
import { A2aUser, DEFAULT_RETENTION, SqliteTaskStore, type TaskRetention } from './task-store';
import { sendEventStream } from './sse';
import { callerFor, unauthorized } from '../common/credentials';
import { checkMessageSize, DEFAULT_LIMITS, findCredential, takeSecrets, type A2aLimits } from './limits';
import { RateLimiter, type Caller } from '../../engine/operations';

// JSON of no fixed schema (A2A messages, the OpenAPI document), walked field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Json = Record<string, any>;

const NOT_FOUND = 'Task not found: %s. Tasks are visible only with the key that created them (send it as the X-API-Key header); tasks made without a key are forgotten when they end.';

/** The SDK's -32001, saying why a task someone else made looks like no task at all. */
export function explainNotFound(error: unknown): unknown {
  if (!(error instanceof A2AError) || error.code !== -32001) return error;
  return new A2AError(-32001, NOT_FOUND.replace('%s', String(error.taskId ?? '')), error.data, error.taskId);
}

/**
 * The SDK's handler, with the history rules of the card (stateTransitionHistory): no
 * historyLength is the whole history (0.3.14 returns none), 0 is none (0.3.14 slices `-0`, i.e.
 * keeps it all); and a -32001 that says who can see a task.
 */
class RequestHandler extends DefaultRequestHandler {
  override async getTask(params: TaskQueryParams, context?: ServerCallContext): Promise<Task> {
    const length = params.historyLength;
    const task = await super.getTask({ ...params, historyLength: length ?? Number.MAX_SAFE_INTEGER }, context).catch((e) => { throw explainNotFound(e); });
    if (length === 0) task.history = [];
    return task;
  }
  override cancelTask(...args: Parameters<DefaultRequestHandler['cancelTask']>) {
    return super.cancelTask(...args).catch((e) => { throw explainNotFound(e); });
  }
  override sendMessage(...args: Parameters<DefaultRequestHandler['sendMessage']>) {
    return super.sendMessage(...args).catch((e) => { throw explainNotFound(e); });
  }
  override async *sendMessageStream(...args: Parameters<DefaultRequestHandler['sendMessageStream']>) {
    try { yield* super.sendMessageStream(...args); } catch (e) { throw explainNotFound(e); }
  }
  override async *resubscribe(...args: Parameters<DefaultRequestHandler['resubscribe']>) {
    try { yield* super.resubscribe(...args); } catch (e) { throw explainNotFound(e); }
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
  private readonly tasks: SqliteTaskStore;
  private readonly limits: A2aLimits;
  private readonly keyless = new RateLimiter();

  constructor(private readonly app: FastifyInstance, private readonly ops: Operations, log: Logger, private readonly publicUrl?: string,
    options: { retention?: Partial<TaskRetention>; limits?: Partial<A2aLimits>; now?: () => number } = {}) {
    this.log = log;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    const executor = new OperationExecutor(app, () => this.operations(), log);
    this.tasks = new SqliteTaskStore(ops.a2aTasks, { ...DEFAULT_RETENTION, ...options.retention }, options.now);
    // The card passed here only steers the SDK (capabilities); the served card is built per request.
    this.requestHandler = new RequestHandler(buildAgentCard({}, [], 'http://127.0.0.1'), this.tasks, executor);
  }

  /**
   * A task that was submitted or working when the process stopped will never finish: its
   * operation ran in that process. It is failed now, so tasks/get tells the truth after a restart.
   */
  async settleInterrupted(): Promise<void> {
    for (const row of await this.ops.a2aTasks.inStates(['submitted', 'working'])) {
      const task = JSON.parse(row.json) as Task;
      const message: Message = {
        kind: 'message', role: 'agent', messageId: randomUUID(), taskId: task.id, contextId: task.contextId,
        parts: [{ kind: 'text', text: 'The server stopped before this operation finished; send the message again.' }],
      };
      task.status = { state: 'failed', message, timestamp: new Date().toISOString() };
      task.history = [...(task.history ?? []), message];
      await this.ops.a2aTasks.save({ id: task.id, ownerUserId: row.ownerUserId, contextId: task.contextId, state: 'failed', json: JSON.stringify(task) });
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
   * The call context of an A2A request: who is calling (see `findCredential`), and the operation's
   * credential headers set aside. Everything the SDK is given is stored in the task, so the
   * credentials are taken out of the params here (the caller carries them to the operation).
   * A present but unusable credential is a 401 (thrown); none is an anonymous caller.
   * For a new message, also the bounds: size, the keyless rate, room in the task store.
   */
  async contextFor(method: string, params: unknown, request: { headers: Record<string, unknown>; ip: string }): Promise<ServerCallContext> {
    const p = (params ?? {}) as Json;
    const credential = findCredential(request.headers, p);
    let caller: Caller | null;
    try {
      caller = await callerFor(this.ops.auth, credential);
    } catch (error) {
      throw unauthorized(error);
    }
    const secretHeaders = takeSecrets(p);
    const context = new ServerCallContext(undefined, new A2aUser(caller, credential, secretHeaders, method === 'message/stream'));
    if (method === 'message/send' || method === 'message/stream') {
      checkMessageSize(p.message, caller !== null, this.limits);
      if (!caller) this.keyless.hit([[`a2a:${request.ip}`, this.limits.keylessRate]]);
      if (typeof p.message?.taskId !== 'string') await this.tasks.beforeNewTask(context);
    }
    return context;
  }

  stream<T>(reply: FastifyReply, events: AsyncGenerator<T, void, undefined>, format: (event: T) => unknown,
    onFirstError: (error: unknown) => { status: number; body: unknown } | { event?: string; body: unknown }, onLaterError: (error: unknown) => { event?: string; body: unknown }) {
    return sendEventStream(reply, events, format, onFirstError, onLaterError);
  }
}
