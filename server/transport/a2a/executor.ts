import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Message, Part, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { Logger } from '../../engine/log';
import { LoupeError } from '../../engine/errors';
import { errorBody } from '../common/error-body';
import { findOperation, type Operation } from '../common/openapi-operations';
import { invokeOperation, type OperationOutput } from '../common/invoke';
import { A2aUser } from './task-store';
import { helpParts, isHelpRequest, needsKeyParts } from './help';
import { pastedOperation } from './limits';
import { answerQuestion, type Publish } from './text-answer';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The operation a message names: a data part with `operationKey`, or the same JSON pasted as text. */
export function operationPart(message: Message): Json | undefined {
  for (const part of message.parts ?? []) {
    if (part.kind === 'data' && isObject(part.data) && 'operationKey' in part.data) return part.data;
  }
  for (const part of message.parts ?? []) {
    const pasted = part.kind === 'text' ? pastedOperation(part.text) : undefined;
    if (pasted) return pasted;
  }
  return undefined;
}

/** The message's text parts, joined: a question, "help", or nothing. */
const textOf = (message: Message) => (message.parts ?? []).map((p) => (p.kind === 'text' ? p.text : '')).join('\n').trim();

/**
 * Runs what a message asks and reports it as task events.
 * - An operation (data part, or pasted JSON): submitted → working → completed (2xx/3xx) or
 *   failed (4xx/5xx), with the HTTP output as an artifact; NDJSON answers are forwarded line by
 *   line as chunks of one artifact while the route writes them.
 * - A question (text): answered from the caller's repositories (text-answer.ts), completed.
 * - "help", an empty message, or a question without a key: a short answer, and the task waits
 *   for input (input-required), so it can be continued or canceled.
 */
export class OperationExecutor implements AgentExecutor {
  private readonly running = new Map<string, { controller: AbortController; contextId: string }>();
  private readonly canceled = new Set<string>();
  /** Research conversation of each (user, A2A context): follow-ups in a context continue it. */
  private readonly conversations = new Map<string, string>();

  constructor(private readonly app: FastifyInstance, private readonly operations: () => Operation[], private readonly log: Logger) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = ctx;
    const agentMessage = (parts: Part[]): Message => ({ kind: 'message', role: 'agent', messageId: randomUUID(), taskId, contextId, parts });
    const status = (state: TaskState, parts: Part[], final: boolean) => {
      if (this.canceled.has(taskId)) return;
      bus.publish({ kind: 'status-update', taskId, contextId, status: { state, message: agentMessage(parts), timestamp: new Date().toISOString() }, final });
    };
    const publish: Publish = (artifact, append, lastChunk) => {
      if (this.canceled.has(taskId)) return;
      bus.publish({ kind: 'artifact-update', taskId, contextId, append, lastChunk, artifact });
    };
    if (!ctx.task) {
      bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted', timestamp: new Date().toISOString() }, history: [userMessage] });
    }
    const user = ctx.context?.user instanceof A2aUser ? ctx.context.user : new A2aUser(null, undefined);
    const controller = new AbortController();
    this.running.set(taskId, { controller, contextId });
    try {
      const data = operationPart(userMessage);
      if (data) {
        await this.runOperation(data, user, controller.signal, taskId, contextId, bus, status);
        return;
      }
      const text = textOf(userMessage);
      if (isHelpRequest(text)) {
        status('input-required', helpParts(this.operations()), true);
        return;
      }
      if (!user.caller) {
        status('input-required', needsKeyParts(), true);
        return;
      }
      const conversationKey = `${user.caller.userId}:${contextId}`;
      const outcome = await answerQuestion({
        question: text, auth: user.authHeaders, streaming: user.streaming, signal: controller.signal,
        conversationId: this.conversations.get(conversationKey),
        call: (key, input) => invokeOperation(this.app, { operation: this.operation(key), ...input, auth: user.authHeaders }, controller.signal),
        publish, status: (parts) => status('working', parts, false),
      });
      if (this.canceled.has(taskId)) return;
      if (outcome.conversationId) this.remember(conversationKey, outcome.conversationId);
      if (outcome.ok) status('completed', outcome.parts, true);
      else status('failed', outcome.parts, true);
    } catch (error) {
      if (this.canceled.has(taskId)) return;
      this.log.error(`A2A task ${taskId} failed:`, error as Error);
      status('failed', [{ kind: 'text', text: 'An unexpected error occurred; it was logged. Retry with backoff.' }, { kind: 'data', data: errorBody(new LoupeError('INTERNAL', 'An unexpected error occurred; it was logged. Retry with backoff.')) }], true);
    } finally {
      this.running.delete(taskId);
      this.canceled.delete(taskId);
      bus.finished();
    }
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const run = this.running.get(taskId);
    this.canceled.add(taskId);
    run?.controller.abort();
    const contextId = run?.contextId ?? '';
    bus.publish({
      kind: 'status-update', taskId, contextId, final: true,
      status: { state: 'canceled', timestamp: new Date().toISOString(), message: { kind: 'message', role: 'agent', messageId: randomUUID(), taskId, contextId, parts: [{ kind: 'text', text: 'Canceled; the operation was stopped.' }] } },
    });
  }

  private operation(key: string): Operation {
    const op = findOperation(this.operations(), key);
    if (!op) throw new Error(`the API has no operation ${key}`);
    return op;
  }

  private remember(key: string, conversationId: string): void {
    this.conversations.delete(key);
    this.conversations.set(key, conversationId);
    if (this.conversations.size > 10_000) this.conversations.delete(this.conversations.keys().next().value!);
  }

  private async runOperation(data: Json, user: A2aUser, signal: AbortSignal, taskId: string, contextId: string, bus: ExecutionEventBus,
    status: (state: TaskState, parts: Part[], final: boolean) => void): Promise<void> {
    let output: OperationOutput;
    let key = typeof data.operationKey === 'string' ? data.operationKey : '';
    try {
      const op = this.resolve(data);
      key = op.key;
      status('working', [{ kind: 'text', text: `Calling ${op.key}` }], false);
      // The binding took the credential headers out of the message (it is stored); they come back here.
      // The operation runs as the caller the binding identified (a key sent as a bearer becomes X-API-Key).
      const { 'x-api-key': _key, authorization: _authorization, ...secrets } = user.secretHeaders;
      const headers = { ...(data.headers as Json | undefined), ...secrets, ...user.authHeaders };
      output = await invokeOperation(this.app, {
        operation: op, pathParams: data.pathParams as Json, query: data.query as Json, headers, body: data.body, auth: user.authHeaders,
      }, signal);
    } catch (error) {
      if (this.canceled.has(taskId)) return;
      if (!(error instanceof LoupeError)) throw error;
      output = { status: error.status, headers: { 'content-type': 'application/json; charset=utf-8' }, contentType: 'application/json', body: errorBody(error) };
    }
    const artifactId = `response-${randomUUID()}`;
    const artifactName = key || 'operation';
    if (output.lines) {
      await this.forwardLines(output, artifactId, artifactName, taskId, contextId, bus, status);
      return;
    }
    if (this.canceled.has(taskId)) return;
    bus.publish({
      kind: 'artifact-update', taskId, contextId, append: false, lastChunk: true,
      artifact: { artifactId, name: artifactName, description: `HTTP ${output.status} ${output.contentType}`.trim(), parts: [{ kind: 'data', data: { status: output.status, headers: output.headers, body: output.body ?? null } }], metadata: { status: output.status } },
    });
    if (output.status >= 400) {
      const message = isObject(output.body) && typeof output.body.message === 'string' ? output.body.message : `HTTP ${output.status}`;
      status('failed', [{ kind: 'text', text: `${artifactName} failed with ${output.status}: ${message}` }, { kind: 'data', data: { status: output.status, error: output.body ?? null } }], true);
    } else {
      status('completed', [{ kind: 'text', text: `${artifactName} answered ${output.status}` }], true);
    }
  }

  /** The operation a data part names, or a 400/404 in the HTTP error shape. */
  private resolve(data: Json): Operation {
    if (typeof data.operationKey !== 'string') throw new LoupeError('VALIDATION_FAILED', 'operationKey: must be a string like "GET /v2/repos"', { field: 'operationKey' });
    for (const field of ['pathParams', 'query', 'headers'] as const) {
      if (data[field] !== undefined && !isObject(data[field])) throw new LoupeError('VALIDATION_FAILED', `${field}: must be an object`, { field });
    }
    const op = findOperation(this.operations(), data.operationKey);
    if (!op) {
      throw new LoupeError('ROUTE_NOT_FOUND', `operationKey: no operation "${data.operationKey}"; send "help" (or read /openapi.json) for the list`, { field: 'operationKey' });
    }
    return op;
  }

  private async forwardLines(output: OperationOutput, artifactId: string, name: string, taskId: string, contextId: string, bus: ExecutionEventBus,
    status: (state: TaskState, parts: Part[], final: boolean) => void): Promise<void> {
    bus.publish({
      kind: 'artifact-update', taskId, contextId, append: false, lastChunk: false,
      artifact: { artifactId, name, description: `HTTP ${output.status} ${output.contentType}`, parts: [{ kind: 'data', data: { status: output.status, headers: output.headers } }], metadata: { status: output.status } },
    });
    let last: Json | undefined;
    for await (const line of output.lines!) {
      if (this.canceled.has(taskId)) return;
      let event: Json;
      try {
        const parsed = JSON.parse(line) as unknown;
        event = isObject(parsed) ? parsed : { type: 'invalid', line };
      } catch {
        event = { type: 'invalid', line };
      }
      last = event;
      const terminal = event.type === 'done' || event.type === 'error';
      bus.publish({ kind: 'artifact-update', taskId, contextId, append: true, lastChunk: terminal, artifact: { artifactId, name, parts: [{ kind: 'data', data: event }] } });
    }
    if (this.canceled.has(taskId)) return;
    if (last?.type === 'done') {
      status('completed', [{ kind: 'text', text: `${name} streamed to the end` }], true);
    } else {
      const message = last?.type === 'error' && typeof last.message === 'string' ? last.message : 'the stream ended without a done event';
      status('failed', [{ kind: 'text', text: `${name} failed: ${message}` }, { kind: 'data', data: last ?? {} }], true);
    }
  }
}
