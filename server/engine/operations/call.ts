/**
 * The shape every operation shares: `(caller, request, context?) → Promise<Answer>`. Requests and
 * answers are the HTTP API's wire types (`protocol/api`, TypeBox statics), so HTTP, A2A (through
 * HTTP), MCP and the language server all speak one shape; transports only convert their own
 * framing (an envelope, an editor URI) around it.
 */
import type { Meta, Pagination } from '../../../protocol/api/common';
import type { Caller } from '../accounts/accounts';

export type { Caller };

/** What a transport knows about a call besides the caller and the request. */
export interface CallContext {
  /** Aborted when the client goes away: a model call or a long scan stops. */
  signal?: AbortSignal;
  /** The client's network address, for the rate limits of routes without a key. */
  client?: string;
}

/** The account state after the call (`tier`, credits), the history row it wrote, and operation-specific fields. */
export type AnswerMeta = Meta & { history_id?: string; conversation_id?: string } & Record<string, unknown>;

/** An operation's answer: what the HTTP envelope carries besides `status`. */
export interface Answer<T> {
  data: T;
  meta: AnswerMeta;
  pagination?: Pagination;
  message?: string;
}
