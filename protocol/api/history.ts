import { Type, type Static } from 'typebox';
import { Limit, Nullable, Offset, Uuid } from './common';

export const HistoryItem = Type.Object({
  history_id: Uuid,
  conversation_id: Nullable(Uuid, { description: 'The conversation this row continues, if any.' }),
  category: Type.String({ description: 'search, research, repos, files, docs, analysis, chat, code, …' }),
  operation: Type.String({ description: 'The operation, as named in the credit ledger (search.run, files.list, …).' }),
  query: Nullable(Type.String(), { description: 'What was asked: search text, URL, file path, message.' }),
  repo_ids: Type.Array(Uuid, { description: 'Repositories the operation read.' }),
  summary: Nullable(Type.String(), { description: 'One line about the result.' }),
  result: Type.Unknown({ description: 'A small structured result kept for the thread view, or null.' }),
  credits: Type.Integer({ minimum: 0, description: 'Credits charged for this operation.' }),
  duration_ms: Type.Integer({ minimum: 0 }),
  created_at: Type.String({ format: 'date-time' }),
}, { $id: 'HistoryItem', description: 'One operation in the caller\'s history.' });
export type HistoryItem = Static<typeof HistoryItem>;

export const ListHistoryQuery = Type.Object({
  limit: Limit(100, 20),
  offset: Offset,
  from: Type.Optional(Type.String({ maxLength: 40, description: 'Start, inclusive: an ISO 8601 date-time (no offset means UTC) or a date YYYY-MM-DD (its first instant, UTC).' })),
  to: Type.Optional(Type.String({ maxLength: 40, description: 'End, inclusive: an ISO 8601 date-time or a date YYYY-MM-DD (the whole day, UTC).' })),
}, { additionalProperties: false });
export type ListHistoryQuery = Static<typeof ListHistoryQuery>;

export const HistoryIdParams = Type.Object({ history_id: Type.String({ minLength: 1, maxLength: 100, description: 'A history row UUID.' }) });
export const ConversationIdParams = Type.Object({ conversation_id: Type.String({ minLength: 1, maxLength: 100, description: 'A conversation UUID.' }) });

export const Conversation = Type.Object({
  conversation_id: Uuid,
  title: Nullable(Type.String(), { description: 'The first question of the thread.' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  items: Type.Array(HistoryItem, { description: 'The whole thread, oldest first.' }),
}, { description: 'A conversation: its rows in order.' });
