import type { Static } from 'typebox';
import { LoupeError } from '../errors';
import { parseTimeBound } from '../accounts/history';
import type { Conversation, HistoryItem, ListHistoryQuery } from '../../../protocol/api/history';
import type { Answer, Caller } from './call';
import { metered, page } from './metering';
import type { EngineParts } from './parts';

/** The caller's own operations and conversation threads (free). */
export class HistoryOperations {
  constructor(private readonly e: EngineParts) {}

  /** Newest first; `from`/`to` inclusive, an ISO 8601 date-time (UTC without an offset) or a date. */
  list(caller: Caller, q: ListHistoryQuery, fields = { from: 'query.from', to: 'query.to' }): Promise<Answer<HistoryItem[]>> {
    return metered(this.e.accounts, caller, { operation: 'history.list', cost: 0 }, async (meter) => {
      const from = q.from === undefined ? undefined : parseTimeBound(q.from, fields.from, 'start');
      const to = q.to === undefined ? undefined : parseTimeBound(q.to, fields.to, 'end');
      if (from && to && from > to) throw new LoupeError('VALIDATION_FAILED', `${fields.from}: must not be after ${fields.to}`, { field: 'from' });
      const { items, total } = await this.e.history.listAsync(caller.userId, { limit: q.limit, offset: q.offset, from, to });
      return meter.answer(items, { pagination: page(total, q.limit, q.offset) });
    });
  }

  get(caller: Caller, q: { history_id: string }): Promise<Answer<HistoryItem>> {
    return metered(this.e.accounts, caller, { operation: 'history.get', cost: 0 }, async (meter) =>
      meter.answer(await this.e.history.getAsync(caller.userId, q.history_id)));
  }

  /** A whole thread, in order; 404 when it is not the caller's. */
  conversation(caller: Caller, q: { conversation_id: string }): Promise<Answer<Static<typeof Conversation>>> {
    return metered(this.e.accounts, caller, { operation: 'history.conversation', cost: 0 }, async (meter) =>
      meter.answer(await this.e.history.conversationAsync(caller.userId, q.conversation_id)));
  }
}
