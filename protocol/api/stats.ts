import { Type } from 'typebox';
import { Nullable, StringEnum } from './common';

export const RangeQuery = Type.Object({
  range: StringEnum(['7d', '30d', '90d'], { default: '7d', description: 'Rolling window: 7d (default), 30d or 90d.' }),
}, { additionalProperties: false });

export const LanguagesQuery = Type.Object({
  range: Type.Optional(StringEnum(['7d', '30d', '90d'], { description: 'Only files indexed in this window; all indexed files when absent.' })),
}, { additionalProperties: false });

export const UsageStats = Type.Object({
  range: Type.String(),
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  total_queries: Type.Integer({ description: 'History rows in the window.' }),
  credits_used: Type.Integer({ description: 'Credits charged in the window.' }),
  credits_remaining: Type.Integer(),
  tier: Type.String(),
  by_category: Type.Array(Type.Object({ category: Type.String(), queries: Type.Integer(), credits: Type.Integer(), duration_ms: Type.Integer() })),
  by_operation: Type.Array(Type.Object({ operation: Type.String(), calls: Type.Integer(), credits: Type.Integer() }), { description: 'Paid calls by operation, from the credit ledger.' }),
}, { description: 'Usage by query type.' });

export const ActivityStats = Type.Object({
  range: Type.String(),
  from: Type.String({ format: 'date', description: 'First day (UTC).' }),
  to: Type.String({ format: 'date', description: 'Today (UTC).' }),
  total_queries: Type.Integer(),
  days: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), queries: Type.Integer(), credits: Type.Integer() }), {
    description: 'One entry per UTC day of the window, oldest first, days without queries included.',
  }),
}, { description: 'Queries per day.' });

export const LanguageStats = Type.Object({
  range: Nullable(Type.String()),
  total_files: Type.Integer(),
  languages: Type.Array(Type.Object({
    language: Type.String({ description: 'Language id, or `other` for files no parser recognised.' }),
    files: Type.Integer(), lines: Type.Integer(), bytes: Type.Integer(),
    share: Type.Number({ description: 'Fraction of files, 0-1.' }),
  })),
}, { description: 'Programming languages across your indexed repositories.' });
